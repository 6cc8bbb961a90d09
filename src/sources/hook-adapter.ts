import type { NormalizedEvent } from '../model/record';

/** The action of a record saying Beacon's own hook did not do its job (it could not read the payload, or the agent reported it failed). */
export const HOOK_FAILED = 'hook.failed';

/** What an agent's hook adapter is told beside the payload. */
export interface HookEventContext {
  now: bigint;
  env: NodeJS.ProcessEnv;
  /** the hook invocation's idempotency key: events with no identity of their own take their id from it */
  key?: string;
  /** the session's working directory as an earlier hook event reported it (for events sent without one) */
  rememberedDir?: (sessionId: string) => string | undefined;
  /**
   * For agents whose payload carries no tool call id (Gemini CLI, Copilot CLI): the id Beacon gives
   * the call, from the log's earlier hook records of the session (see hooks/call-pairing.ts). Absent,
   * the call's records get no call id at all (they stay two rows rather than join the wrong call).
   */
  pairCall?: (sessionId: string, key: string, phase: 'pre' | 'post') => string | undefined;
}

/** What one hook payload stands for. */
export interface HookReading {
  events: NormalizedEvent[];
  /**
   * On the agent's pre-tool event, the call as a policy provider judges it (classified as it will be
   * once it has run: `command.executed` with its command line, `file.modified` with the diff). Built
   * only when a provider is configured: it classifies the call again with its diff and reads the
   * repository's branch again, work every pre-tool would otherwise pay for nothing.
   */
  candidate?: () => NormalizedEvent | undefined;
}

/** A policy provider's deny, as an agent's reply needs it. */
export interface HookDenial {
  reason: string;
}

/**
 * One agent's hooks as Beacon answers them (`beacon-hooks --platform <platform> <event>`, and the
 * collector's `POST /v1/hooks/<platform>/<event>`). The event arrives on the command line (the URL),
 * never only in the payload: the installer writes one entry per event, so the entry names its event,
 * and Copilot's camelCase payloads carry no event name at all. Adding an agent's hooks is one
 * module under `sources/<agent>/` exporting one of these, and one line in `hook-registry.ts`.
 */
export interface HookAdapter {
  /** the `--platform` value and URL segment: Beacon's harness name for the agent */
  readonly platform: string;
  /** the event names this adapter answers, spelled as the agent's configuration spells them */
  readonly events: readonly string[];
  /** the events whose payload goes to the policy provider (the agent's pre-tool event) */
  readonly policyEvents: ReadonlySet<string>;
  /** payload → events; throws (with a message that never quotes the payload) on one it cannot read */
  read(event: string, payload: string, ctx: HookEventContext): HookReading;
  /**
   * What the agent reads on stdout: the agent's own neutral answer without a denial (for most agents
   * nothing at all: "allow" would skip the user's approval), its own deny shape with one. Undefined
   * for nothing. Also the answer whenever anything went wrong, so it must never fail.
   */
  reply(event: string, denial?: HookDenial): string | undefined;
  /**
   * How every answer the agent reads starts, when that is narrower than a JSON object (goose's
   * verdicts: `{"decision":`): the launcher's fast path hands the agent nothing else the collector says.
   */
  readonly replyStart?: string;
}
