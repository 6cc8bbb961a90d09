import { BeaconError } from '../model/errors';
import type { BeaconRecord } from '../model/record';
import { EVENT_LIMIT, truncateString } from './limits';

/** The Go hook logger's three steps to fit an event into 64 KiB, then an error. */
export function capRecord(record: BeaconRecord): string {
  let json = JSON.stringify(record);
  if (fits(json)) return json;

  delete record.raw;
  if (typeof record.message === 'string') record.message = truncateString(record.message, 1024).value;
  record.field_truncated = true;
  json = JSON.stringify(record);
  if (fits(json)) return json;

  if (record.file) delete record.file.diff;
  if (record.command) delete record.command.output;
  if (record.gen_ai) {
    delete (record.gen_ai as Record<string, unknown>).input;
    delete record.gen_ai.output;
    if (record.gen_ai.tool?.call) {
      delete record.gen_ai.tool.call.arguments;
      delete record.gen_ai.tool.call.result;
    }
  }
  delete record.reasoning;
  if (record.content) {
    record.content.included = false;
    record.content.truncated = true;
  }
  json = JSON.stringify(record);
  if (fits(json)) return json;

  const keep = ['timestamp', 'vendor', 'product', 'schema_version', 'event', 'severity', 'endpoint', 'user', 'harness', 'origin', 'run', 'session', 'trace', 'error', 'tool', 'file', 'command', 'mcp', 'approval', 'policy', 'content', 'destination', 'health', 'model', 'repository', 'branch', 'message', 'field_truncated'];
  const slim: Record<string, unknown> = {};
  for (const k of keep) if ((record as unknown as Record<string, unknown>)[k] !== undefined) slim[k] = (record as unknown as Record<string, unknown>)[k];
  const g = record.gen_ai;
  if (g) {
    slim.gen_ai = {
      operation: g.operation,
      usage: g.usage,
      response: g.response,
      provider: g.provider,
      tool: g.tool ? { name: g.tool.name, type: g.tool.type, call: g.tool.call ? { id: g.tool.call.id } : undefined } : undefined,
    };
  }
  json = JSON.stringify(slim);
  if (fits(json)) {
    for (const k of Object.keys(record)) delete (record as unknown as Record<string, unknown>)[k];
    Object.assign(record, slim);
    return json;
  }
  throw new BeaconError('bad_data', `event ${record.event.action} exceeds ${EVENT_LIMIT} bytes even after dropping its content`);
}

function fits(json: string): boolean {
  return json.length <= EVENT_LIMIT / 3 || Buffer.byteLength(json, 'utf8') <= EVENT_LIMIT;
}

