import { localUser, newRecord } from '../model/envelope';
import { callEventId, freshEventId } from '../model/event-id';
import type { NormalizedEvent } from '../model/record';
import { applyToolClassification, classifyGooseTool } from '../taxonomy/classify';
import { gitBranch } from './git';
import type { GoosePayload, Subcommand } from './payload';

interface Context {
  now: bigint;
  env: NodeJS.ProcessEnv;
}

/** goose hook payload → the Beacon events it stands for (none for goose's internal todo tool). */
export function hookEvents(sub: Subcommand, p: GoosePayload, ctx: Context): NormalizedEvent[] {
  switch (sub) {
    case 'session-start':
      return [simple(p, ctx, 'session.started', 'session', 'Agent session started')];
    case 'session-end':
      return [simple(p, ctx, 'session.ended', 'session', 'Agent session ended')];
    case 'stop':
      return [simple(p, ctx, 'tool.completed', 'tool', 'Agent response completed')];
    case 'prompt-submit': {
      const ev = simple(p, ctx, 'prompt.submitted', 'prompt', 'Prompt submitted to agent');
      if (p.message !== undefined && p.message !== '') {
        ev.record.prompt = { text: p.message };
      }
      return [ev];
    }
    case 'pre-tool':
      return toolEvent(p, ctx, 'pre');
    case 'post-tool':
      return toolEvent(p, ctx, p.event === 'PostToolUseFailure' ? 'failed' : 'post');
  }
}

/**
 * pre: `tool.invoked`, an observation (goose's permission step already ran; no approval is claimed).
 * post: the classified action, with a diff for write/edit. failed: `tool.failed`, and never a diff —
 * goose reports a failed edit with the same name and arguments as one that landed.
 */
function toolEvent(p: GoosePayload, ctx: Context, phase: 'pre' | 'post' | 'failed'): NormalizedEvent[] {
  const name = p.tool_name ?? '';
  const cls = classifyGooseTool(name, p.tool_input, { withDiff: phase === 'post', failed: phase === 'failed' });
  if ('consumed' in cls) return [];
  const action = phase === 'pre' ? 'tool.invoked' : phase === 'failed' ? 'tool.failed' : cls.action;
  const category = phase === 'post' ? cls.category : 'tool';
  const message = phase === 'pre' ? 'Tool invocation observed' : phase === 'failed' ? 'Tool call failed' : cls.message;
  const ev = base(p, ctx, action, category, message, p.tool_call_id && p.session_id !== undefined ? callEventId(p.session_id, action, p.tool_call_id) : freshEventId());
  const r = ev.record;
  r.event.fidelity = phase === 'post' ? cls.fidelity : 'observed';
  if (phase === 'failed') r.severity = 'high';
  applyToolClassification(r, cls);
  r.gen_ai = {
    tool: { name, ...(p.tool_call_id || p.tool_input !== undefined ? { call: { ...(p.tool_call_id ? { id: p.tool_call_id } : {}), ...(p.tool_input !== undefined ? { arguments: p.tool_input } : {}) } } : {}) },
  };
  return [ev];
}

function simple(p: GoosePayload, ctx: Context, action: string, category: string, message: string): NormalizedEvent {
  // A prompt, a session start or a stop has no identity of its own: the same prompt twice is two events.
  return base(p, ctx, action, category, message, freshEventId());
}

function base(p: GoosePayload, ctx: Context, action: string, category: string, message: string, id: string): NormalizedEvent {
  const record = newRecord({ timeUnixNano: ctx.now, action, category, id, harness: { name: 'goose', collection_method: 'hook' }, message });
  record.user = localUser();
  // No fallback to this process's cwd: under the desktop app it is the application bundle.
  if (p.session_id !== undefined || p.working_dir !== undefined) {
    record.session = { ...(p.session_id !== undefined ? { id: p.session_id } : {}), ...(p.working_dir ? { working_directory: p.working_dir } : {}) };
  }
  if (p.working_dir) {
    record.repository = p.working_dir;
    const branch = gitBranch(p.working_dir, ctx.env);
    if (branch) record.branch = branch;
  }
  return { record, timeUnixNano: ctx.now };
}
