import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/paths';

/**
 * One direction of flow: a stage imports only stages below it (and src/model). The ranks are the
 * design's layering (docs/ARCHITECTURE.md); stages of equal rank do not import each other.
 */
// forward sits below config: each destination type's module owns its config keys and checks, and the
// config composes them (it loads no sender: those are made in the forward worker).
// importer: reading the agents' session stores (sources) into the log (ingest, store), once or
// following them; above both, because it joins them; below the collector and the CLI, which run it.
const RANK: Record<string, number> = {
  model: 0, config: 1.7, store: 1, redact: 1, taxonomy: 1, sources: 2, pricing: 2, ingest: 2, dashboard: 2.5, forward: 1.5,
  receiver: 3, hooks: 3, stream: 1, setup: 3, importer: 3, collector: 4, cli: 5, bin: 6,
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const src = join(repoRoot(), 'src');
const stageOf = (file: string) => relative(src, file).split(sep)[0]!;

describe('stage boundaries', () => {
  const files = sources(src);

  it('every folder under src/ is a known stage', () => {
    for (const f of files) assert.ok(stageOf(f) in RANK, `unknown stage for ${f}`);
  });

  it('no stage imports a stage above or beside it', () => {
    const violations: string[] = [];
    for (const f of files) {
      const from = stageOf(f);
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import\(|require\()\s*'(\.{1,2}\/[^']+)'/g)) {
        const to = stageOf(resolve(dirname(f), m[1]!));
        if (to !== from && !(RANK[to]! < RANK[from]!)) violations.push(`${relative(src, f)} → ${to}`);
      }
    }
    assert.deepEqual(violations, []);
  });

  it('the receiver knows nothing of the dashboard: the collector registers the dashboard\'s plugin beside it', () => {
    const offenders = files.filter((f) => stageOf(f) === 'receiver' && /(?:from|import\(|require\()\s*'\.\.\/dashboard\//.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders.map((f) => relative(src, f)), []);
  });

  it('a source never imports another agent\'s source (plain GenAI conventions and the stage\'s shared files excepted)', () => {
    const sourcesDir = join(src, 'sources');
    const agentOf = (file: string) => {
      const parts = relative(sourcesDir, file).split(sep);
      return parts.length > 1 ? parts[0]! : undefined;
    };
    const shared = new Set([undefined, 'otel-genai']);
    const violations: string[] = [];
    for (const f of files.filter((f) => f.startsWith(sourcesDir + sep))) {
      const from = agentOf(f);
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import\(|require\()\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = resolve(dirname(f), m[1]!);
        if (!target.startsWith(sourcesDir + sep)) continue;
        const to = agentOf(target + '.ts');
        if (to !== from && !shared.has(to) && from !== undefined) violations.push(`${relative(src, f)} → ${to}`);
      }
    }
    assert.deepEqual(violations, []);
  });

  it('only the collector (which builds the one app) and the receiver load fastify; protobufjs only the receiver and the forwarder (to encode OTLP logs)', () => {
    // A type-only import is erased at compile time: it loads nothing (the hook route and the dashboard type their plugins).
    const loads = (f: string, mod: string) => new RegExp(`^import (?!type )[^;]*from '${mod}'`, 'm').test(readFileSync(f, 'utf8'));
    const offenders = files.filter((f) => (!['collector', 'receiver'].includes(stageOf(f)) && loads(f, 'fastify')) || (!['receiver', 'forward'].includes(stageOf(f)) && loads(f, 'protobufjs')));
    assert.deepEqual(offenders.map((f) => relative(src, f)), []);
  });

  it('the OTLP receiver knows an EventSink, never the store or the dashboard (the collector composes them)', () => {
    const violations: string[] = [];
    for (const f of files.filter((f) => stageOf(f) === 'receiver')) {
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import\(|require\()\s*'(\.{1,2}\/[^']+)'/g)) {
        const to = stageOf(resolve(dirname(f), m[1]!));
        if (to === 'store' || to === 'dashboard') violations.push(`${relative(src, f)} → ${to}`);
      }
    }
    assert.deepEqual(violations, []);
  });

  it('only the ingest stage assembles events into rows (redact → row): one pipeline for every source', () => {
    const benchDir = join(repoRoot(), 'bench');
    const offenders = [...files, ...sources(benchDir)].filter((f) => {
      if (f.startsWith(join(src, 'ingest') + sep)) return false;
      const text = readFileSync(f, 'utf8');
      return /\bsanitizeRecord\b/.test(text) && !f.startsWith(join(src, 'redact') + sep) || /import \{[^}]*\btoRow\b[^}]*\}/.test(text) && !f.startsWith(join(src, 'store') + sep);
    });
    assert.deepEqual(offenders.map((f) => relative(repoRoot(), f)), []);
  });
});
