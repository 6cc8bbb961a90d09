/**
 * A write's diff under its row in `beacon events`: what a reviewer of a session reads after the
 * command lines. Only the diff a path recorded (redacted and limited at ingest); escaping and the
 * width are the table's (formatTable's under-rows).
 */
import type { TimelineItem } from '../store/queries/tool-calls';

/** Diff lines shown per call; the rest is counted, and whole in `--json` / `--raw --tool-call ID`. */
export const DIFF_LINES = 20;

const INDENT = '      ';

/** The call's diff as indented lines (at most `max`, then how many more and where they are), or none. */
export function diffLines(item: TimelineItem, max = DIFF_LINES): string[] | undefined {
  if (item.kind !== 'tool_call') return undefined;
  const diff = item.observations.map((o) => o.record.file?.diff).find((d): d is string => typeof d === 'string' && d !== '');
  if (diff === undefined) return undefined;
  const lines = diff.replace(/\n$/, '').split('\n').map((l) => `${INDENT}${l.replace(/\t/g, '    ')}`);
  if (lines.length <= max) return lines;
  const where = item.callId !== null ? `beacon events --raw --tool-call ${item.callId}` : 'beacon events --json';
  return [...lines.slice(0, max), `${INDENT}… ${(lines.length - max).toLocaleString('en-US')} more lines (${where})`];
}
