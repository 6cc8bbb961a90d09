import assert from 'node:assert/strict';
import type { installAloneRun } from './install-both-lab';
import { PROMPT } from './install-both-lab';

type Run = NonNullable<Awaited<ReturnType<typeof installAloneRun>>>;

/**
 * What issue 30 asks of every agent after `beacon install <agent>` alone: the prompt's text (not a
 * placeholder), the write with its diff (Codex on the lab's slug writes through its shell), the
 * failing command with its line, and one row per call across the hook and OTLP paths.
 */
export function assertInstallAlone(r: Run, platform: string): void {
  const hook = r.records.filter((x) => x.harness.collection_method === 'hook');
  assert.ok(hook.every((x) => x.harness.name === platform));
  // the lab hands opencode its prompt inside a shell command line, quotes and all (agent-cli.ts runOpencode)
  const text = (t: string) => (platform === 'opencode' ? t.replace(/^"(.*)"$/, '$1') : t);
  assert.deepEqual(hook.filter((x) => x.event.action === 'prompt.submitted').map((x) => text(x.prompt.text)), [PROMPT], 'the prompt text, from the hook');
  if (platform === 'codex') {
    assert.ok(r.records.some((x) => /printf/.test(x.command?.command ?? '') && x.command.command.includes('beacon-lab-note.txt')), 'the write, through the shell');
  } else {
    const write = r.records.find((x) => x.event.action === 'file.modified' && x.file?.diff);
    assert.equal(write?.file.path, r.note);
    assert.match(write?.file.diff ?? '', /^\+hello from the lab$/m);
  }
  const failed = r.records.filter((x) => x.command?.command === r.command && (x.event.action === 'tool.failed' || (x.command.exit_code ?? 0) !== 0));
  assert.ok(failed.length > 0, `the failing command with its line: ${JSON.stringify(r.records.map((x) => [x.harness.collection_method, x.event.action, x.command?.command]))}`);
  const rows = JSON.stringify(r.calls.map((c) => c.kind === 'tool_call' && [c.callId, c.seenBy]));
  const hooked = r.calls.filter((c) => c.kind === 'tool_call' && c.seenBy.includes('pre-tool') && c.seenBy.includes('post-tool'));
  assert.equal(hooked.length, 2, `each call's pre and post hooks one row: ${rows}`);
  // Gemini CLI's and Copilot CLI's hook payloads carry no call id (paired by Beacon), and their OTLP
  // tool records are not joined to those pairs yet: their OTLP observation is a row of its own.
  if (!NO_HOOK_CALL_ID.has(platform)) assert.equal(r.calls.length, 2, `one row per call across hooks and OTLP: ${rows}`);
}

/** The agents whose hooks send no tool call id (agent-hooks-facts.md). */
export const NO_HOOK_CALL_ID = new Set(['gemini-cli', 'copilot-cli']);
