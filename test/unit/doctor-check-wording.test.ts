import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { agentChecks, agentSummary } from '../../src/setup/agent-doctor';
import { hookEventChecks, hooksSince, type AgentEventStats } from '../../src/setup/agent-hook-events';
import { AGENT_SPECS } from '../../src/setup/agents/registry';
import type { AgentSpec } from '../../src/setup/agents/spec';
import type { Check } from '../../src/setup/doctor';
import { tempDir } from '../helpers/paths';

/**
 * Issue 33: doctor's wording — every agent's checks, in each state of its log, listed and held to the
 * rules that can be stated: no double negative, no agent named in another agent's checks, and the
 * same severity for the same state whichever agent it is.
 */
const DAY = 86_400_000_000_000n;
const now = BigInt(Date.now()) * 1_000_000n;
const none: AgentEventStats = { last: null, n: 0n, testLast: null, testN: 0n, hookLast: null, hookN: 0n, hookTestN: 0n, failN: 0n, failLast: null, otlpLast: null };
const STATES: Record<string, AgentEventStats> = {
  'nothing arrived': none,
  'only test events': { ...none, testN: 2n, testLast: now - DAY, hookTestN: 1n },
  "last month's events, none since the setup": { ...none, last: now - 30n * DAY, n: 40n, otlpLast: now - 30n * DAY, hookLast: now - 30n * DAY, hookN: 20n },
  'both paths record': { ...none, last: now, n: 40n, otlpLast: now, hookLast: now - 1000n, hookN: 20n },
  'OTLP only': { ...none, last: now, n: 20n, otlpLast: now },
  'hooks only': { ...none, last: now, n: 20n, hookLast: now, hookN: 20n },
  'hook failures': { ...none, last: now, n: 40n, otlpLast: now, hookLast: now, hookN: 20n, failN: 3n, failLast: now },
};

function checksIn(spec: AgentSpec, stats: AgentEventStats): Check[] {
  const home = tempDir('wording-');
  const file = join(home, 'settings');
  writeFileSync(file, '{}');
  // set up a day ago: "recent" events arrived after it, last month's before it
  const setupS = Number(now / 1_000_000_000n) - 86_400;
  utimesSync(file, setupS, setupS);
  const env = { HOME: home, PATH: '/nonexistent' };
  const target = { protocol: 'http' as const, base: 'http://127.0.0.1:4318', port: 4318 };
  const checks = agentChecks(spec, { env, cwd: home, target, log: join(home, 'events.db') }, { values: () => undefined, files: [file], errors: [] }, stats);
  const hooksReason = `no session since ${new Date(setupS * 1000).toISOString()}, when ${file} last changed`;
  if (spec.hooks) checks.push(...hookEventChecks(spec, stats, now, [hooksReason], hooksSince(setupS * 1000, now)));
  // the checks' own words: the temporary home's random name (`wording-XrPiRd`) could spell an agent's ("Pi")
  const mine = (t: string) => t.split(home).join('~');
  return checks.map((c) => ({ ...c, message: mine(c.message), ...(c.fix !== undefined ? { fix: mine(c.fix) } : {}) }));
}

const others = AGENT_SPECS.filter((a) => !a.ownSetup);
const texts = (c: Check) => [c.message, c.fix ?? ''];

describe("every agent's doctor checks, in each state of the log", () => {
  it('no double negative ("not … not", "no … not", "never … not")', () => {
    for (const spec of others) {
      for (const [state, stats] of Object.entries(STATES)) {
        for (const c of checksIn(spec, stats)) {
          for (const t of texts(c)) {
            for (const clause of t.split(/[.;:,()]| — /)) assert.doesNotMatch(clause, /\b(not|no|never|without)\b.*\b(not|n't|never)\b/i, `${spec.id} ${state}: ${c.id}: ${t}`);
          }
        }
      }
    }
  });

  it("no agent's check names another agent (goose's words stay in goose's checks)", () => {
    for (const spec of others) {
      const foreign = AGENT_SPECS.filter((a) => a !== spec && !spec.id.includes(a.id) && !a.id.includes(spec.id));
      for (const stats of Object.values(STATES)) {
        for (const c of checksIn(spec, stats)) {
          for (const t of texts(c)) for (const a of foreign) assert.ok(!t.includes(a.title) && !new RegExp(`\\b${a.id}\\b`).test(t), `${spec.id}: ${c.id} names ${a.id}: ${t}`);
        }
      }
    }
  });

  it('the same state has the same severity, whichever agent', () => {
    for (const [state, stats] of Object.entries(STATES)) {
      const seen = new Map<string, { status: string; agent: string }>();
      for (const spec of others) {
        for (const c of checksIn(spec, stats)) {
          const kind = c.id.slice(spec.id.length);
          if (!['-events', '-collection', '-hook-events', '-hook-failures', '-content'].includes(kind)) continue;
          const first = seen.get(kind);
          if (first) assert.equal(c.status, first.status, `${state}: ${spec.id}${kind} is ${c.status}, ${first.agent}${kind} ${first.status}`);
          else seen.set(kind, { status: c.status, agent: spec.id });
        }
      }
      assert.ok(seen.has('-events'), state);
    }
  });

  it("events arrive: last month's events and none since the setup is a warning, not ok", () => {
    for (const spec of others) {
      const events = checksIn(spec, STATES["last month's events, none since the setup"]!).find((c) => c.id === `${spec.id}-events`)!;
      assert.equal(events.status, 'warn', `${spec.id}: ${events.message}`);
      assert.match(events.message, /^no .* event since the setup \(.* last changed .*\): the last one arrived /);
      assert.equal(checksIn(spec, STATES['both paths record']!).find((c) => c.id === `${spec.id}-events`)!.status, 'ok');
    }
  });

  it("hook events arrive: last month's hook events and none since the hooks' setup is a warning, not ok", () => {
    for (const spec of others.filter((a) => a.hooks)) {
      const hookEvents = checksIn(spec, STATES["last month's events, none since the setup"]!).find((c) => c.id === `${spec.id}-hook-events`)!;
      assert.equal(hookEvents.status, 'warn', `${spec.id}: ${hookEvents.message}`);
      assert.match(hookEvents.message, new RegExp(`^no ${spec.id} hook event since the setup: the last one arrived \\d{4}-.*; no session since `));
      assert.equal(checksIn(spec, STATES['hooks only']!).find((c) => c.id === `${spec.id}-hook-events`)!.status, 'ok');
    }
  });

  it('collection and hook failures are checked for each agent with hooks, in its own words', () => {
    for (const spec of others.filter((a) => a.hooks)) {
      const partial = checksIn(spec, STATES['OTLP only']!).find((c) => c.id === `${spec.id}-collection`);
      assert.equal(partial?.status, 'warn', spec.id);
      assert.ok(partial.message.includes(spec.title), partial.message);
      const failed = checksIn(spec, STATES['hook failures']!).find((c) => c.id === `${spec.id}-hook-failures`);
      assert.equal(failed?.status, 'warn', spec.id);
      assert.match(failed.message, new RegExp(`^Beacon's ${spec.title} hooks failed 3 times in the last 24 h`));
    }
  });
});

describe('plain beacon doctor: an agent found and never set up', () => {
  it('is the same warning for every agent, worded without a double negative (not a FAIL for some: their traps judged a setup that is not there)', () => {
    for (const spec of others) {
      const home = tempDir('found-');
      const env = { HOME: home, PATH: '/nonexistent' };
      for (const d of spec.configDirs({ env, cwd: home })) mkdirSync(d, { recursive: true });
      const targets = { http: { protocol: 'http' as const, base: 'http://127.0.0.1:4318', port: 4318 }, grpc: { protocol: 'grpc' as const, base: 'http://127.0.0.1:4317', port: 4317 } };
      const line = agentSummary(spec, { env, cwd: home, targets, log: join(home, 'events.db') });
      assert.ok(line, spec.id);
      assert.equal(line.status, 'warn', `${spec.id}: ${line.message}`);
      assert.doesNotMatch(line.message, /\bno\b[^:;]*\bnone\b/, line.message);
    }
  });
});

/** Prints every text, for a reviewer: node --test dist/test/unit/doctor-check-wording.test.js with WORDING=1. */
if (process.env.WORDING) for (const spec of others) for (const [state, stats] of Object.entries(STATES)) for (const c of checksIn(spec, stats)) console.log(`${state} | ${c.id} [${c.status}] ${c.message}${c.fix ? ` | fix: ${c.fix}` : ''}`);
