import { calendarLabel, type Calendar } from '../../model/time';
import { QUARTER_HOUR_NS } from '../log/usage-cells';

const QUARTER_HOUR_MS = Number(QUARTER_HOUR_NS / 1_000_000n);

/** A calendar unit's usual length in quarter hours (a month's shortest): the first guess of where it ends. */
const NOMINAL: Record<Calendar, number> = { hour: 4, day: 96, week: 672, month: 2688 };

/**
 * More units than this and a report is cheaper at the quarter-hour grain (a log whose calls lie
 * decades apart): about two years of hours.
 */
export const MAX_CALENDAR_UNITS = 20_000;

/**
 * The calendar units (hours, days, ISO weeks or months in the local zone, or UTC) that cover the
 * quarter hours [first, last], each as its quarter hours [start, end): one per `calendarLabel`, the
 * first starting at `first`. A unit is exactly the quarter hours its label names, so a sum per unit
 * is the sum per label, daylight saving included (a 23-hour day, a 30-minute shift, a repeated hour
 * with its own offset): the ends are found with the label itself, never assumed. Every label covers
 * one run of quarter hours (time only moves on, and an hour's label names its offset), so an end is
 * the first quarter hour of another label: usually the nominal length away, else a binary search.
 * Undefined past `max` units, or for a quarter hour before 1970 (SQLite's integer division of a
 * negative time rounds towards zero, not down: such a cell's bucket is not its quarter hour).
 */
export function calendarUnits(first: number, last: number, by: Calendar, utc: boolean, max = MAX_CALENDAR_UNITS): [number, number][] | undefined {
  if (first < 0 || last < first) return first < 0 ? undefined : [];
  const label = (q: number) => calendarLabel(q * QUARTER_HOUR_MS, by, utc);
  const units: [number, number][] = [];
  let start = first;
  let name = label(start);
  while (start <= last) {
    if (units.length === max) return undefined;
    let inside = start;
    let outside = start + NOMINAL[by];
    let next = label(outside);
    while (next === name) [inside, outside, next] = [outside, outside + NOMINAL[by], label(outside + NOMINAL[by])];
    // label(inside) is the unit's, label(outside) another's: the end is in (inside, outside]
    if (label(outside - 1) === name) inside = outside - 1;
    while (outside - inside > 1) {
      const mid = Math.floor((inside + outside) / 2);
      const at = label(mid);
      if (at === name) inside = mid;
      else [outside, next] = [mid, at];
    }
    units.push([start, outside]);
    [start, name] = [outside, next];
  }
  return units;
}
