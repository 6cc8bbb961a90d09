import type { DestinationBase, DestinationType } from './destination';
import { configError, fail, wholeNumber } from './destination';
import { otlpDestination } from './destinations/otlp';
import { syslogDestination } from './destinations/syslog';

/** Every kind of forward destination: a new one is its module under `destinations/` and a line here. */
const DESTINATION_TYPES = [otlpDestination, syslogDestination] as const;

/** One configured destination, of any registered type. */
export type ForwardDestination = ReturnType<(typeof DESTINATION_TYPES)[number]['parse']>;
export type DestinationTypeName = ForwardDestination['type'];

const COMMON_KEYS = ['name', 'type', 'from', 'maxBatchRecords', 'batchDelayMs', 'timeoutMs', 'tls'];

/** The module of a parsed destination's type (the config parser below looks up the raw `type` it checks). */
export function destinationType(d: Pick<ForwardDestination, 'type'>): DestinationType<ForwardDestination> {
  // Each entry handles its own type only; found by that type, it is given its own destinations.
  return DESTINATION_TYPES.find((t) => t.type === d.type) as unknown as DestinationType<ForwardDestination>;
}

/**
 * The `forward` list of the collector config, checked. Messages name keys, never values (a header
 * value may be a credential).
 */
export function parseForwardDestinations(value: unknown, expandPath: (p: string) => string): ForwardDestination[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw configError('"forward" must be a list of destinations');
  const names = new Set<string>();
  return value.map((raw, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw configError(`forward[${i}] must be an object`);
    const d = raw as Record<string, unknown>;
    const where = typeof d.name === 'string' ? `forward destination "${d.name}"` : `forward[${i}]`;
    if (typeof d.name !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(d.name)) throw configError(`${where}: "name" must be 1-64 letters, digits, '.', '_' or '-'`);
    if (names.has(d.name)) throw configError(`${where}: two destinations have this name (the name identifies its cursor)`);
    names.add(d.name);
    const type = DESTINATION_TYPES.find((t) => t.type === d.type);
    if (!type) throw configError(`${where}: "type" must be ${DESTINATION_TYPES.map((t) => `"${t.type}"`).join(' or ')}`);
    const unknown = Object.keys(d).filter((k) => !COMMON_KEYS.includes(k) && !type.keys.includes(k));
    if (unknown.length) throw configError(`${where}: unknown key ${unknown.map((k) => `"${k}"`).join(', ')}`);
    const base: DestinationBase = {
      name: d.name,
      from: d.from === undefined || d.from === 'end' ? 'end' : d.from === 'start' ? 'start' : fail(`${where}: "from" must be "start" or "end"`),
      maxBatchRecords: wholeNumber(d.maxBatchRecords, type.maxBatchRecords.default, 1, type.maxBatchRecords.max, `${where}: "maxBatchRecords"`),
      batchDelayMs: wholeNumber(d.batchDelayMs, 5000, 0, 3_600_000, `${where}: "batchDelayMs"`),
      timeoutMs: wholeNumber(d.timeoutMs, 10_000, 100, 600_000, `${where}: "timeoutMs"`),
    };
    return type.parse(d, base, where, expandPath);
  });
}
