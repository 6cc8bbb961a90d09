import type { HookAdapter, HookDenial, HookEventContext, HookReading } from '../hook-adapter';
import { hookEvents, policyCandidate } from './hook-events';
import { BLOCKING, SUBCOMMANDS, parsePayload, type Subcommand } from './hook-payload';

const ALLOW = '{"decision":"allow"}';

/**
 * goose's hooks: the plugin's hooks.json runs `beacon-hooks --platform goose <subcommand>`. goose
 * judges the stdout of PreToolUse and Stop, and there "allow" is its neutral answer (goose has its
 * own permission step, which an allow does not skip); every other event's output is ignored.
 */
export const gooseHooks: HookAdapter = {
  platform: 'goose',
  events: SUBCOMMANDS,
  policyEvents: new Set(['pre-tool']),
  replyStart: '{"decision":',
  read(event: string, payload: string, ctx: HookEventContext): HookReading {
    const p = parsePayload(payload);
    const events = hookEvents(event as Subcommand, p, ctx);
    if (event !== 'pre-tool' || events.length === 0) return { events };
    return { events, candidate: () => policyCandidate(p, ctx) ?? events[0]! };
  },
  reply(event: string, denial?: HookDenial): string | undefined {
    // An unknown subcommand: whether goose waits for a verdict is unknown, and allow is safe on every event.
    if (!SUBCOMMANDS.includes(event as Subcommand)) return ALLOW;
    if (!BLOCKING.has(event as Subcommand)) return undefined;
    return denial && event === 'pre-tool' ? JSON.stringify({ decision: 'block', reason: denial.reason }) : ALLOW;
  },
};
