/**
 * Issue 30 item 5: goose is one AgentSpec among the others — no goose-only code path in install,
 * uninstall, doctor or the hook transport. On main the commands each had a goose branch, the registry
 * had no goose, and the launcher's fallback and fast path spelled `goose:` in their shell text.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AGENT_SPECS, findAgent, namedAgent } from '../../src/setup/agents/registry';
import { FAST_ATTEMPT, NEUTRAL_FALLBACK } from '../../src/setup/hook-fast-path';
import { HOOK_ADAPTERS } from '../../src/sources/hook-registry';
import { repoRoot } from '../helpers/paths';

/** The agent-neutral modules: each names no agent (goose's own steps are agents/goose.ts and setup/goose-*.ts). */
const NEUTRAL = [
  'src/cli/commands/install.ts', 'src/cli/commands/uninstall.ts', 'src/cli/commands/doctor.ts',
  'src/setup/agent-setup.ts', 'src/setup/doctor-run.ts', 'src/setup/doctor.ts', 'src/setup/agent-install.ts', 'src/setup/agent-doctor.ts',
  'src/setup/agents/registry.ts', 'src/setup/launcher.ts', 'src/setup/hook-fast-path.ts', 'src/hooks/main.ts', 'src/hooks/pipeline.ts', 'src/hooks/route.ts',
];

describe('goose through the registry', () => {
  it('is one AgentSpec in the registry, its names resolved like every agent\'s', () => {
    assert.equal(AGENT_SPECS.filter((a) => a.id === 'goose').length, 1);
    for (const name of ['goose', 'Goose', 'goose-cli', 'codename-goose', 'block_goose']) assert.equal(findAgent(name)?.id, 'goose', name);
    assert.equal(namedAgent('claude', 'beacon doctor').id, 'claude-code');
    assert.throws(() => namedAgent('gooseai', 'beacon install'), /GooseAI, an LLM inference service/);
  });

  it('no agent-neutral module names goose in its code', () => {
    const offenders = NEUTRAL.flatMap((f) => readFileSync(join(repoRoot(), f), 'utf8').split('\n').map((line, i) => ({ f, i: i + 1, line })))
      .filter(({ line }) => !/^\s*(\*|\/\/|\/\*|#)/.test(line) && /'goose'|\bgoose:\S|installGoose|uninstallGoose|runDoctor\(/.test(line));
    assert.deepEqual(offenders.map((o) => `${o.f}:${o.i}: ${o.line.trim()}`), []);
  });

  it("the launcher's fallback answers and the fast path's reply shapes are the adapters' own", () => {
    for (const a of HOOK_ADAPTERS) {
      for (const e of a.events) {
        const reply = a.reply(e);
        if (reply === undefined) assert.ok(!NEUTRAL_FALLBACK.includes(`${a.platform}:${e})`) && !NEUTRAL_FALLBACK.includes(`${a.platform}:${e} `), `${a.platform} ${e}`);
        else assert.match(NEUTRAL_FALLBACK, new RegExp(`${a.platform}:${e}[ )].*printf '${reply.replace(/[{}"]/g, '\\$&')}'`));
      }
      if (a.replyStart) assert.ok(FAST_ATTEMPT.includes(`${a.platform}:'${a.replyStart}'*) printf %s "$reply"; exit 0 ;;\n    ${a.platform}:*) ;;`), a.platform);
    }
  });
});
