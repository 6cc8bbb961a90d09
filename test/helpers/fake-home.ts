import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BEACON_BIN, tempDir } from './paths';

/** A fresh home for setup tests: no goose config, no OTEL_* or BEACON_* leaking in from the runner. */
export interface Home {
  home: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function fakeHome(extra: NodeJS.ProcessEnv = {}, prefix = 'fake-home-'): Home {
  const home = tempDir(prefix);
  const cwd = join(home, 'project');
  mkdirSync(cwd);
  const env: NodeJS.ProcessEnv = {
    ...process.env, HOME: home, XDG_CONFIG_HOME: '', GOOSE_PATH_ROOT: '', OTEL_SDK_DISABLED: '', OTEL_TRACES_EXPORTER: '', OTEL_EXPORTER_OTLP_PROTOCOL: '',
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '', OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', BEACON_ENDPOINT_LOG: '', BEACON_SERVICE_NO_ACTIVATE: '1', ...extra,
  };
  return { home, env, cwd };
}

/** `beacon …` in that home, from its project directory. */
export function beaconIn(h: Home, args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BEACON_BIN, ...args], { env: { ...h.env, ...env }, cwd: h.cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
