import type { BeaconRecord, ContentField } from '../model/record';

/**
 * The record's primary content, which gets a content marker (hash and size of the original). Read
 * off the record itself, so no source has to say it: a record holds at most one of a prompt, a
 * final answer, a reasoning text, a diff (an edit's content) or a command line.
 */
export function primaryContentField(r: BeaconRecord): ContentField | undefined {
  if (r.prompt?.text) return 'prompt.text';
  if (r.response?.text) return 'response.text';
  if (r.reasoning?.text) return 'reasoning.text';
  if (r.file?.diff) return 'file.diff';
  if (r.command?.command) return 'command.command';
  return undefined;
}
