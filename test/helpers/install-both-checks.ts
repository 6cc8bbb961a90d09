import assert from 'node:assert/strict';
import type { installAloneRun } from './install-both-lab';
import { PROMPT } from './install-both-lab';

type Run = NonNullable<Awaited<ReturnType<typeof installAloneRun>>>;

/**
 * What issue 30 asks of every agent after `beacon install <agent>` alone: the prompt's text (not a
 * placeholder), the write with its diff (Codex on the lab's slug writes through its shell), the
 * failing command with its line, and one row per call across the hook and OTLP paths — the prompt's too.
 */
export function assertInstallAlone(r: Run, platform: string): void {
  const hook = r.records.filter((x) => x.harness.collection_method === 'hook');
  assert.ok(hook.every((x) => x.harness.name === platform));
  // the lab hands opencode its prompt inside a shell command line, quotes and all (agent-cli.ts runOpencode)
  const text = (t: string) => (platform === 'opencode' ? t.replace(/^"(.*)"$/, '$1') : t);
  assert.deepEqual(hook.filter((x) => x.event.action === 'prompt.submitted').map((x) => text(x.prompt.text)), [PROMPT], 'the prompt text, from the hook');
  // The prompt once, as a user sees the session: the hook's record, its OTLP record (no text: content
  // capture off) joined into it (store/log/prompt-join.ts). Copilot exports no prompt with capture
  // off; opencode's first model call's span can be lost at exit (agents-otlp-facts.md), so for these
  // two the join itself is the unit tests'.
  const promptLines = r.printed.split('\n').filter((l) => /\bprompt\.submitted\b/.test(l));
  assert.equal(promptLines.length, 1, `the prompt once in beacon events --session:\n${r.printed}`);
  assert.ok(promptLines[0]!.includes(PROMPT), `the prompt's text on its line: ${promptLines[0]}`);
  const prompts = r.records.filter((x) => x.event.action === 'prompt.submitted');
  assert.equal(prompts.length, 1, `one prompt record: ${JSON.stringify(prompts)}`);
  if (PROMPT_IN_OTLP.has(platform)) {
    assert.deepEqual(prompts[0].event.merged_paths, ['otlp'], `its OTLP record joined into the hook's: ${JSON.stringify(prompts[0])}`);
    assert.match(promptLines[0]!, /\bhook\+otlp\s+prompt\.submitted\b/, `SEEN BY names both paths: ${promptLines[0]}`);
  }
  if (platform === 'codex') {
    assert.ok(r.records.some((x) => /printf/.test(x.command?.command ?? '') && x.command.command.includes('beacon-lab-note.txt')), 'the write, through the shell');
  } else {
    const write = r.records.find((x) => x.event.action === 'file.modified' && x.file?.diff);
    assert.equal(write?.file.path, r.note);
    assert.match(write?.file.diff ?? '', /^\+hello from the lab$/m);
  }
  const failed = r.records.filter((x) => x.command?.command === r.command && (x.event.action === 'tool.failed' || (x.command.exit_code ?? 0) !== 0));
  assert.ok(failed.length > 0, `the failing command with its line: ${JSON.stringify(r.records.map((x) => [x.harness.collection_method, x.event.action, x.command?.command]))}`);
  // one turn, one end: Claude Code's Stop hook and its assistant_response record are one row (store/log/turn-join.ts)
  const ends = r.records.filter((x) => x.event.action === 'tool.completed');
  // (Pi's extension records no turn end)
  assert.equal(ends.length, platform === 'pi' ? 0 : 1, `one turn end: ${JSON.stringify(ends.map((x) => [x.harness.collection_method, x.event.merged_paths]))}`);
  if (TURN_END_BOTH_PATHS.has(platform)) assert.deepEqual([ends[0].harness.collection_method, ...(ends[0].event.merged_paths ?? [])].sort(), ['hook', 'otlp'], 'the hook and the OTLP turn ends joined');
  assert.equal((r.printed.match(/Agent response completed/g) ?? []).length, ends.length, `beacon events --session shows the turn's end once:\n${r.printed}`);
  const rows = JSON.stringify(r.calls.map((c) => c.kind === 'tool_call' && [c.callId, c.seenBy]));
  const hooked = r.calls.filter((c) => c.kind === 'tool_call' && c.seenBy.includes('pre-tool') && c.seenBy.includes('post-tool'));
  assert.equal(hooked.length, 2, `each call's pre and post hooks one row: ${rows}`);
  assert.equal(r.calls.length, 2, `one row per call across hooks and OTLP: ${rows}`);
  // Gemini CLI's and Copilot CLI's hooks send no call id (Beacon pairs them): each call takes the id
  // of its OTLP span, and its row has the hook's command line beside the OTLP's duration.
  if (NO_HOOK_CALL_ID.has(platform)) {
    for (const c of r.calls) {
      if (c.kind !== 'tool_call') continue;
      assert.deepEqual([...c.seenBy].sort(), ['otlp', 'post-tool', 'pre-tool'], `joined across paths: ${rows}`);
      assert.ok(c.callId && !c.callId.startsWith('beacon:'), `the agent's call id, from its span: ${rows}`);
      const otlp = c.observations.filter((o) => o.observer === 'otlp');
      assert.equal(otlp.length, 1, 'one OTLP record per call (Gemini: its log record and span folded)');
      assert.ok(typeof otlp[0]!.record.gen_ai?.duration_ms === 'number', "the OTLP's duration");
    }
    const shell = r.calls.find((c) => c.kind === 'tool_call' && c.observations.some((o) => o.record.command?.command === r.command));
    assert.ok(shell && shell.kind === 'tool_call' && shell.failed && shell.seenBy.includes('otlp'), `the failing command, its hook line and its OTLP record on one row: ${rows}`);
    assert.ok(!/\(call beacon:/.test(r.printed), `beacon events --session shows the agent's ids:\n${r.printed}`);
  }
}

/** The agents whose OTLP export has a prompt record with content capture off (without its text). */
const PROMPT_IN_OTLP = new Set(['claude-code', 'codex', 'gemini-cli', 'qwen-code']);

/** The agents whose hook and OTLP export both report a turn's end with content capture off (Copilot's invoke_agent answer needs capture on). */
const TURN_END_BOTH_PATHS = new Set(['claude-code']);

/**
 * The lab's deny run (`installAloneRun(…, { deny: true })`): the command never ran, and the denied
 * call is one row for every agent — `approval.denied`, RESULT denied — joined with the agent's own
 * OTLP record of it where the agent sends one (`withOtlp`), under the agent's call id where any path has one.
 */
export function assertDeniedCall(r: Run, platform: string, o: { withOtlp: boolean; agentCallId: boolean }): void {
  assert.equal(r.sideEffectRan, false, 'denied: the command did not run');
  const denial = r.records.find((x) => x.event.action === 'approval.denied');
  assert.equal(denial?.policy?.reason, 'no side effects here');
  const rows = JSON.stringify(r.calls.map((c) => c.kind === 'tool_call' && [c.callId, c.seenBy, c.action]));
  const denied = r.calls.filter((c) => c.kind === 'tool_call' && c.denied);
  assert.equal(denied.length, 1, `one row for the denied call: ${rows}`);
  const call = denied[0]!;
  assert.ok(call.kind === 'tool_call');
  assert.deepEqual([call.action, call.failed], ['approval.denied', false], `one taxonomy: ${rows}`);
  assert.ok(call.seenBy.includes('pre-tool') && call.seenBy.includes('policy'), rows);
  assert.equal(call.seenBy.includes('otlp'), o.withOtlp, `the agent's OTLP record of the call on the same row: ${rows}`);
  assert.equal(r.calls.length, 2, `the write and the denied call, nothing apart: ${rows}`);
  if (o.agentCallId) assert.ok(call.callId && !call.callId.startsWith('beacon:'), `the agent's call id: ${rows}`);
  const line = r.printed.split('\n').filter((l) => l.includes('SIDE-EFFECT') || l.includes('denied'));
  assert.equal(line.length, 1, `beacon events --session: the denied call on one line:\n${r.printed}`);
  assert.match(line[0]!, /approval\.denied +denied/, platform);
}

/** The agents whose hooks send no tool call id (agent-hooks-facts.md). */
export const NO_HOOK_CALL_ID = new Set(['gemini-cli', 'copilot-cli']);
