#!/usr/bin/env node
import { main } from '../cli/main';

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`beacon: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 1;
  },
);
