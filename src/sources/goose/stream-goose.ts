import type { StreamAdapter } from '../stream-adapter';
import { GooseStreamParser } from './stream-json';
import { streamRecord } from './stream-record';

/** `goose run --output-format stream-json`: the specification's stream adapter, as it states it. */
export const gooseStream: StreamAdapter = {
  platform: 'goose',
  mode: { program: 'goose', subcommand: { name: 'run' }, flags: [{ name: '--output-format', value: 'stream-json' }] },
  example: 'goose run -q --output-format stream-json --text "fix the tests" | beacon stream goose --tee',
  createParser: (o) => new GooseStreamParser(o),
  record: (ev, ctx) => streamRecord(ev, ctx.sessionId, ctx.runId, ctx.workingDirectory),
};
