import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BEACON_BIN, tempDir } from './paths';
import { join } from 'node:path';

export interface RunningCollector {
  url: string;
  port: number;
  /** OTLP/gRPC's host:port, or its state (off, down) */
  grpc: string;
  log: string;
  proc: ChildProcess;
  /** pino lines the daemon printed */
  lines: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the compiled `beacon collector` on a free loopback port, as a user (or a service manager) would. */
export async function startCollector(options: { log?: string; args?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<RunningCollector> {
  const home = tempDir('beacon-home-');
  const log = options.log ?? join(home, 'events.db');
  // OTLP/gRPC off unless a test asks for it: parallel collectors must not all reach for 4317.
  const grpcOff = (options.args ?? []).includes('--grpc-port') ? [] : ['--grpc-port', '0'];
  const proc = spawn(process.execPath, [BEACON_BIN, 'collector', '--port', '0', ...grpcOff, '--log', log, ...(options.args ?? [])], {
    env: { ...process.env, HOME: home, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const rl = createInterface({ input: proc.stdout! });
  let grpc = 'off';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`collector did not start: ${stderr}`)), 15000);
    rl.on('line', (line) => {
      lines.push(line);
      try {
        const j = JSON.parse(line);
        if (j.msg === 'collector ready') {
          clearTimeout(timer);
          grpc = j.grpc ?? 'off';
          resolve(Number(new URL(j.address).port));
        }
      } catch {
        /* not JSON */
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`collector exited with ${code}: ${stderr}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    grpc,
    log,
    proc,
    lines,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** Runs the compiled `beacon` CLI to completion. */
export function runBeacon(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BEACON_BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function jsonl(stdout: string): any[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  return stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}
