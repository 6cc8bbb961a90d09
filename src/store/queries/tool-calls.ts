import { selectList, type EventField, type Selected } from '../log/columns';

/**
 * The columns every activity reader takes (timeline, event search, joined events): enough to join a
 * tool call's observations without parsing the record. `record` is the Beacon record JSON as stored
 * (hostile content: escape before rendering).
 */
export const ACTIVITY_FIELDS = ['seq', 'tsNs', 'method', 'action', 'sessionId', 'harness', 'toolCallId', 'record'] as const satisfies readonly EventField[];
export const ACTIVITY_COLUMNS = selectList(ACTIVITY_FIELDS);
export type StoredActivity = Selected<(typeof ACTIVITY_FIELDS)[number]>;

/** Which collection path saw a tool call, and as what. */
export type Observer = 'pre-tool' | 'post-tool' | 'otlp' | 'stream' | 'poll' | 'policy';

export interface ToolCallRow {
  kind: 'tool_call';
  callId: string | null;
  firstNs: bigint;
  /** every stored observation of the call, in time order */
  observations: { observer: Observer; event: StoredActivity; record: Record<string, any> }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  seenBy: Observer[];
  /** the classified action (command.executed, file.modified, …), from whichever path classified it; `approval.denied` for a denied call */
  action: string | null;
  toolName: string | null;
  failed: boolean;
  denied: boolean;
  /** a pre-tool observation with no result from any path: denied, still running, or never finished */
  unfinished: boolean;
}

export interface EventRowItem {
  kind: 'event';
  event: StoredActivity;
  record: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export type TimelineItem = ToolCallRow | EventRowItem;

const TOOL_ACTIONS = new Set(['tool.invoked', 'tool.failed', 'approval.denied', 'command.executed']);

/** `isToolAction` in SQL, on an `action` column (substr, not LIKE: LIKE ignores case). */
export const TOOL_ACTION_SQL = `(action IN (${[...TOOL_ACTIONS].map((a) => `'${a}'`).join(', ')}) OR substr(action, 1, 5) = 'file.' OR substr(action, 1, 4) = 'mcp.')`;

/** Actions that are (an observation of) a tool call: the taxonomy's tool actions plus the hook's pre-tool and the policy's verdict. */
export function isToolAction(action: string): boolean {
  return TOOL_ACTIONS.has(action) || action.startsWith('file.') || action.startsWith('mcp.');
}

/**
 * What a call id names a call within. The id is the agent's (its model provider's): unique at most
 * within one session of one harness — two sessions, or two agents, both have a `call_1`.
 */
export function callKey(ev: Pick<StoredActivity, 'sessionId' | 'harness' | 'toolCallId'>): string | null {
  return ev.toolCallId === null ? null : JSON.stringify([ev.sessionId, ev.harness, ev.toolCallId]);
}

/**
 * The path an observation came by, for telling a reused call id apart: each path reports a call
 * once (one pre-tool and one post-tool hook, one span or log record, one stream event, one verdict
 * per recorder), so a second report by a path that already reported the call is the next call under
 * the same id. Policy verdicts are told apart by the method that recorded them (the hook's and the
 * stream's are two records of one denial).
 */
function pathOf(observer: Observer, ev: StoredActivity): string {
  return observer === 'policy' ? `policy/${ev.method}` : observer;
}

/**
 * Folds events (in time order) into timeline items: the observations of one call become one row, at
 * its first observation. A call is its key (session, harness, call id) over one pairing of its
 * paths in time order: an observation joins the key's latest call unless its path already reported
 * that call, in which case it begins the next call (a provider numbering its calls call_1, call_2…
 * anew in every turn reuses ids within a session).
 */
export function joinToolCalls(events: readonly StoredActivity[]): TimelineItem[] {
  const items: TimelineItem[] = [];
  const latest = new Map<string, ToolCallRow>();
  const paths = new Map<ToolCallRow, Set<string>>();
  for (const ev of events) {
    const record = parseRecord(ev.record);
    if (!isToolAction(ev.action)) {
      items.push({ kind: 'event', event: ev, record });
      continue;
    }
    const key = callKey(ev);
    let row = key !== null ? latest.get(key) : undefined;
    const seen = observerOf(ev, record);
    // An unclassified tool is `tool.invoked` before and after it ran. The record says which hook saw
    // it (raw.hook_phase); a record stored before it did is guessed from order: an agent sends one
    // pre-tool hook per call, so a second hook `tool.invoked` of a call not yet ended (no post-tool,
    // not denied) is its post-tool observation (it was shown as unfinished: issue 24 item 7) — which
    // merges the next call into this one when this one's post-tool hook was lost.
    const guessed = seen === 'pre-tool' && hookPhaseOf(record) === undefined;
    const observer = guessed && row && row.seenBy.includes('pre-tool') && !row.seenBy.includes('post-tool') && !row.denied ? 'post-tool' : seen;
    if (row && paths.get(row)!.has(pathOf(observer, ev))) row = undefined;
    if (!row) {
      row = { kind: 'tool_call', callId: ev.toolCallId, firstNs: ev.tsNs, observations: [], seenBy: [], action: null, toolName: null, failed: false, denied: false, unfinished: false };
      items.push(row);
      paths.set(row, new Set());
      if (key !== null) latest.set(key, row);
    }
    paths.get(row)!.add(pathOf(observer, ev));
    row.observations.push({ observer, event: ev, record });
    if (!row.seenBy.includes(observer)) row.seenBy.push(observer);
    const name = record.gen_ai?.tool?.name ?? record.tool?.name;
    if (typeof name === 'string' && row.toolName === null) row.toolName = name;
    if (ev.action === 'approval.denied') row.denied = true;
    else if (ev.action === 'tool.failed') {
      row.failed = true;
      // a failed shell call is a failed command, as sessions.ts's detail counts it
      if (row.action === null && record.command !== undefined) row.action = 'command.executed';
    }
    else if (ev.action !== 'tool.invoked') {
      if (row.action === null || ev.method === 'hook') row.action = ev.action;
      // COMMAND_FAILED_SQL's rule (store/log/schema.ts), so a session's detail agrees whether its calls were summed in
      // SQL or joined here: a command whose exit code is present and not 0
      const exit = record.command?.exit_code;
      if (ev.action === 'command.executed' && exit != null && exit !== 0) row.failed = true;
    }
  }
  for (const it of items) {
    if (it.kind !== 'tool_call') continue;
    // Only observations that report an outcome count as a result: pre-tool and the policy's verdict do not.
    const results = it.observations.filter((o) => o.observer !== 'pre-tool' && o.observer !== 'policy');
    it.unfinished = it.seenBy.includes('pre-tool') && results.length === 0;
    asDenied(it);
  }
  return items;
}

/**
 * One taxonomy for a denied call, whichever agent and paths reported it: `approval.denied`, never
 * failed — the call never ran (as a goose span of a refused call is `approval.denied`, never
 * `tool.failed`: sources/otel-genai/tool-span.ts). What the agent's own record of it says (Qwen's
 * and opencode's `command.executed`, Pi's import, Gemini's and Copilot's `tool.failed`) is kept in
 * the call's observations; sessions.ts counts the same way.
 */
function asDenied(it: ToolCallRow): void {
  if (!it.denied) return;
  it.action = DENIED_ACTION;
  it.failed = false;
}

export const DENIED_ACTION = 'approval.denied';

/** The items holding at least one of `chosen` (commit numbers): the rows a reader asked for, not those its completing read brought. */
export function itemsHolding(items: TimelineItem[], chosen: ReadonlySet<bigint>): TimelineItem[] {
  return items.filter((it) => (it.kind === 'event' ? chosen.has(it.event.seq) : it.observations.some((o) => chosen.has(o.event.seq))));
}

function observerOf(ev: StoredActivity, record: Record<string, any>): Observer { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (ev.action === 'approval.denied') return 'policy';
  if (ev.method === 'hook') return ev.action === 'tool.invoked' && hookPhaseOf(record) !== 'post-tool' ? 'pre-tool' : 'post-tool';
  return ev.method === 'stream' ? 'stream' : ev.method === 'poll' ? 'poll' : 'otlp';
}

/**
 * Where in the turn the hook that recorded a tool record sits (`raw.hook_phase`, every agent's:
 * src/sources/hook-facts.ts hookTrace), when the record says. goose's records stored before the
 * phase was recorded name only the hook, in the Claude names goose uses.
 */
function hookPhaseOf(record: Record<string, any>): 'pre-tool' | 'post-tool' | undefined { // eslint-disable-line @typescript-eslint/no-explicit-any
  const phase = record.raw?.hook_phase;
  if (phase === 'pre-tool' || phase === 'post-tool') return phase;
  const event = record.raw?.hook_event;
  return event === 'PreToolUse' ? 'pre-tool' : event === 'PostToolUse' || event === 'PostToolUseFailure' ? 'post-tool' : undefined;
}

export function parseRecord(json: string): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    const v = JSON.parse(json);
    return typeof v === 'object' && v !== null ? v : {};
  } catch {
    return {};
  }
}
