import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONFIG_KEYS, CONFIG_KEY_NAMES, envName, flagHelp, shownDefault } from '../../src/config/config-keys';
import { readConfigFile, readEnv } from '../../src/config/config';
import { BEACON_VERSION } from '../../src/model/endpoint';
import { runBeacon } from '../helpers/daemon';
import { repoRoot, tempDir } from '../helpers/paths';

const readme = readFileSync(join(repoRoot(), 'README.md'), 'utf8');

/** The README's config table: key → [environment, type, default, meaning]. */
function readmeTable(): Map<string, [string, string, string, string]> {
  const rows = new Map<string, [string, string, string, string]>();
  for (const m of readme.matchAll(/^\s*\| `(\w+)` \| `(BEACON_\w+)` \| (\w+) \| ([^|]+) \| (.+) \|$/gm)) rows.set(m[1]!, [m[2]!, m[3]!, m[4]!.trim(), m[5]!]);
  return rows;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? sources(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []));
}

describe('config schema', () => {
  it('the README table is the key definitions: one row per key, its environment variable, type, default and meaning', () => {
    const table = readmeTable();
    assert.deepEqual([...table.keys()], CONFIG_KEY_NAMES, 'one row per key, in the definitions\' order, no stale rows');
    for (const key of CONFIG_KEY_NAMES) {
      const d = CONFIG_KEYS[key];
      assert.deepEqual(table.get(key), [d.env, d.type, d.default === undefined ? '(off)' : `\`${d.default}\``, d.doc], key);
    }
  });

  it("a flag's help shows its key's default, so it cannot drift (collector --max-body-bytes: 20 MiB)", () => {
    for (const key of CONFIG_KEY_NAMES) {
      const d = CONFIG_KEYS[key];
      if (d.flag && d.default !== undefined && d.type !== 'boolean') assert.match(flagHelp(key), new RegExp(`default ${shownDefault(key).replace(/[.~/]/g, '\\$&')}`), key);
    }
    assert.equal(shownDefault('maxBodyBytes'), '20 MiB');
    const help = runBeacon(['collector', '--help']).stdout;
    assert.match(help, /--max-body-bytes N\s+the largest request body after decompression \(default 20 MiB\)/);
    assert.match(help, /--port N\s+the port \(default 4318,/);
  });

  it('every BEACON_* variable the code reads is documented in the README', () => {
    const vars = new Set<string>();
    for (const f of sources(join(repoRoot(), 'src'))) for (const m of readFileSync(f, 'utf8').matchAll(/env(?:\.|\[')(BEACON_[A-Z_]+)/g)) vars.add(m[1]!);
    for (const key of CONFIG_KEY_NAMES) vars.add(envName(key));
    for (const v of vars) assert.ok(readme.includes(`\`${v}`), `README documents ${v}`);
  });

  it('unknown keys are named in a warning with the key meant; the command still runs', () => {
    const dir = tempDir('cfg-');
    const file = join(dir, 'config.json');
    const log = join(dir, 'events.db');
    writeFileSync(file, JSON.stringify({ retentionMaxAgeDay: 3, colector: { port: 1 } }));
    const r = runBeacon(['prune', '--config', file, '--log', log]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /unknown key "retentionMaxAgeDay" ignored \(did you mean "retentionMaxAgeDays"\?\)/);
    assert.match(r.stderr, /unknown key "colector" ignored \(did you mean "collector"\?\)/);
    writeFileSync(file, JSON.stringify({ collector: { prot: 4318 } }));
    assert.match(runBeacon(['prune', '--config', file, '--log', log]).stderr, /"collector\.prot" ignored \(did you mean "port"\?\)/);
  });

  it('types and ranges are checked in the file and the environment (exit 1, the key named); flags exit 2', () => {
    const dir = tempDir('cfg-');
    const file = join(dir, 'config.json');
    const log = join(dir, 'events.db');
    for (const [content, message] of [
      [{ port: '4318' }, /"port" must be a number/],
      [{ port: 70000 }, /"port" must be at most 65535/],
      [{ collector: { retentionIntervalMs: 0 } }, /"retentionIntervalMs" must be at least 1/],
      [{ logLevel: 'verbose' }, /"logLevel" must be one of fatal, error, warn, info, debug, trace, silent/],
      [{ exportArchives: 1.5 }, /whole number/],
    ] as [object, RegExp][]) {
      writeFileSync(file, JSON.stringify(content));
      const r = runBeacon(['prune', '--config', file, '--log', log]);
      assert.equal(r.status, 1, JSON.stringify(content));
      assert.match(r.stderr, message);
    }
    const env = runBeacon(['collector', '--port', '0', '--log', log], { BEACON_LOG_LEVEL: 'verbose' });
    assert.equal(env.status, 1);
    assert.match(env.stderr, /BEACON_LOG_LEVEL must be one of .*info.*got "verbose"/);
    assert.doesNotMatch(env.stderr, /pino|levels/i);
    assert.equal(runBeacon(['prune', '--log', log], { BEACON_RETENTION_MAX_AGE_DAYS: 'ninety' }).status, 1);
  });

  it('a renamed key is still read under its old name, with a warning (maxSpansPerExport → maxItemsPerExport)', () => {
    const file = join(tempDir('cfg-'), 'config.json');
    const warnings: string[] = [];
    writeFileSync(file, JSON.stringify({ maxSpansPerExport: 500 }));
    assert.equal(readConfigFile(file, {}, (m) => warnings.push(m)).maxItemsPerExport, 500);
    writeFileSync(file, JSON.stringify({ collector: { maxSpansPerExport: 600 } }));
    assert.equal(readConfigFile(file, {}, (m) => warnings.push(m)).maxItemsPerExport, 600);
    assert.equal(warnings.length, 2);
    for (const w of warnings) assert.match(w, /"maxSpansPerExport" is now "maxItemsPerExport"/);
    assert.equal(readEnv({ BEACON_MAX_SPANS_PER_EXPORT: '700' }).maxItemsPerExport, 700);
    assert.equal(readEnv({ BEACON_MAX_SPANS_PER_EXPORT: '700', BEACON_MAX_ITEMS_PER_EXPORT: '800' }).maxItemsPerExport, 800);
  });

  it('every key can be set from its environment variable', () => {
    const log = join(tempDir('cfg-'), 'events.db');
    runBeacon(['events', '--log', log]);
    const r = runBeacon(['prune', '--log', log], { BEACON_RETENTION_MAX_AGE_DAYS: '0', BEACON_RETENTION_MAX_BYTES: '0' });
    assert.match(r.stdout, /no age limit.*no size limit|nothing to prune/);
    const c = runBeacon(['collector', '--log', log], { BEACON_COLLECTOR_PORT: '99999' });
    assert.equal(c.status, 1);
    assert.match(c.stderr, /BEACON_COLLECTOR_PORT must be at most 65535/);
  });
});

describe('the version', () => {
  it('that /health, forwarded records and event envelopes report is package.json\'s', () => {
    assert.equal(BEACON_VERSION, JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')).version);
  });
});
