import type { NormalizedEvent } from '../../model/record';
import { rowColumnsOf, type EventColumns } from './columns';

/** One event as the store writes it: the indexed columns (columns.ts) and the record JSON. Plain
 *  data, so it crosses to the writer thread by structured clone. */
export interface EventRow extends EventColumns {
  /** not a column: tells the append to drop a chat span whose child model call is already stored */
  dropIfChatChildStored: boolean;
  /** not a column: merge into the stored record of the same call or prompt from another path, if any (merge.ts) */
  mergeWithStored?: boolean;
  /** not a column: a tool call whose call id another path's record may hold (call-join.ts) */
  joinCall?: boolean;
  /** not a column: the id of this tool call's record read before its outcome, which this one replaces (call-join.ts) */
  supersedes?: string;
  /** not a column: the id of this tool call's failed record, which (when stored) makes this one add nothing (call-join.ts) */
  supersededBy?: string;
}

export function toRow(ev: NormalizedEvent, json: string): EventRow {
  const row = rowColumnsOf(ev, json) as EventRow;
  row.dropIfChatChildStored = ev.dropIfChatChildStored === true;
  if (ev.mergeWithStored) row.mergeWithStored = true;
  if (ev.joinCall) row.joinCall = true;
  if (ev.supersedes) row.supersedes = ev.supersedes;
  if (ev.supersededBy) row.supersededBy = ev.supersededBy;
  return row;
}
