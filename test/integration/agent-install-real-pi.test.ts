/**
 * Issue 34's "done means" for Pi: a fresh home, `beacon install pi` alone (its extension: Pi has no
 * OTLP), one real run of the pinned CLI against the mock model's two-tool script, and in the log the
 * prompt's text, the write with its diff, the failing command with its exit code, the model calls
 * with the mock's exact tokens in Beacon's buckets, one row per call once its session store is
 * imported too; a deny policy stops the write; uninstall puts the extension directory back as it was.
 * Its own file: the runner bounds each file at 180 s. A missing CLI is a skip.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { agentBinary } from '../helpers/agent-cli';
import { assertInstallAlone } from '../helpers/install-both-checks';
import { installAloneRun } from '../helpers/install-both-lab';
import { MOCK_USAGE } from '../helpers/mock-model';
import { BEACON_BIN, tempDir } from '../helpers/paths';

/** The mock's calls in Beacon's buckets on the chat wire: input without the cached tokens; Pi reports no reasoning count. */
const TRUTH = [MOCK_USAGE.step1, MOCK_USAGE.step1, MOCK_USAGE.step2].map((u) => ({ input_tokens: u.input - u.cached, output_tokens: u.output, cache_read: { input_tokens: u.cached }, cache_creation: { input_tokens: 0 } }));

const usageOf = (r: Record<string, any>) => { // eslint-disable-line @typescript-eslint/no-explicit-any
  const u = r.gen_ai.usage;
  return { input_tokens: u.input_tokens, output_tokens: u.output_tokens, cache_read: u.cache_read, cache_creation: u.cache_creation };
};

describe('beacon install pi alone, then one real run of Pi', () => {
  it('records the prompt, the write with its diff, the failing command, the model calls with the mock\'s tokens; import adds no row', { timeout: 150_000 }, async (t) => {
    const r = await installAloneRun(t, 'pi', 'pi', [], (home, log) => {
      // the same session's store, imported into the same log: every call it holds is already there
      const imported = spawnSync(process.execPath, [BEACON_BIN, 'import', 'pi', '--from', home, '--log', log], { encoding: 'utf8' });
      assert.equal(imported.status, 0, imported.stdout + imported.stderr);
    });
    if (!r) return;
    assertInstallAlone(r, 'pi');
    const failed = r.records.find((x) => x.event.action === 'tool.failed' && x.harness.collection_method === 'hook');
    assert.deepEqual([failed?.command?.command, failed?.command?.exit_code, failed?.gen_ai?.tool?.call?.id], [r.command, 2, 'call_beacon_0002']);
    const calls = r.records.filter((x) => x.event.action === 'model.invoked');
    assert.deepEqual(calls.map((x) => x.gen_ai.response.id), ['chatcmpl-beacon-0001', 'chatcmpl-beacon-0002', 'chatcmpl-beacon-0003'], 'one row per model call across the extension and the import');
    assert.deepEqual(calls.map(usageOf), TRUTH, 'the mock\'s exact tokens, in disjoint buckets');
    assert.ok(r.all.some((x) => x.harness.collection_method === 'poll'), 'the import read the session file (its tool calls join the extension\'s rows)');
    assert.match(r.printed, /Write the lab note/);
  });

  it('a deny policy blocks the write: no file, the reason in what the model got back', { skip: agentBinary('pi').skip, timeout: 150_000 }, async (t) => {
    const provider = join(tempDir('pi-deny-'), 'deny-writes.sh');
    writeFileSync(provider, `#!/bin/sh\ncase "$(cat)" in *beacon-lab-note*) echo '{"decision":"deny","reason":"no notes here"}';; *) echo '{"decision":"allow"}';; esac\n`);
    chmodSync(provider, 0o755);
    const r = await installAloneRun(t, 'pi', 'pi', [], undefined, { BEACON_POLICY_PROVIDER: provider });
    if (!r) return;
    assert.equal(existsSync(r.note), false, 'the denied write did not happen');
    assert.equal(r.records.find((x) => x.event.action === 'approval.denied')?.policy?.reason, 'no notes here');
    // one taxonomy for a denied call (issue 30): approval.denied, as every agent's
    const denied = r.calls.filter((c) => c.kind === 'tool_call' && c.denied);
    assert.deepEqual(denied.map((c) => c.kind === 'tool_call' && [c.action, c.failed]), [['approval.denied', false]]);
    assert.match(r.printed, /approval\.denied +denied/);
  });

  it('uninstall pi restores the extension directory byte for byte', { skip: agentBinary('pi').skip }, () => {
    const home = tempDir('pi-uninstall-');
    const extensions = join(home, '.pi', 'agent', 'extensions');
    const env = { PATH: process.env.PATH, HOME: home, SHELL: '/bin/bash', BEACON_SERVICE_NO_ACTIVATE: '1' };
    // the user's own extension beside Beacon's: untouched by both
    mkdirSync(extensions, { recursive: true });
    const mine = 'export default function (pi) { pi.on("input", async () => undefined); }\r\n';
    writeFileSync(join(extensions, 'mine.js'), mine);
    const install = spawnSync(process.execPath, [BEACON_BIN, 'install', 'pi'], { env, encoding: 'utf8' });
    assert.equal(install.status, 0, install.stdout + install.stderr);
    assert.deepEqual(readdirSync(extensions).sort(), ['beacon.js', 'mine.js']);
    const doctor = JSON.parse(spawnSync(process.execPath, [BEACON_BIN, 'doctor', 'pi', '--json'], { env, encoding: 'utf8' }).stdout);
    assert.ok(doctor.checks.some((c: { id: string; status: string }) => /^pi/.test(c.id) && c.status === 'ok'), JSON.stringify(doctor.checks));
    const un = spawnSync(process.execPath, [BEACON_BIN, 'uninstall', 'pi'], { env, encoding: 'utf8' });
    assert.equal(un.status, 0, un.stdout + un.stderr);
    assert.deepEqual(readdirSync(extensions), ['mine.js']);
    assert.equal(readFileSync(join(extensions, 'mine.js'), 'utf8'), mine);
  });
});
