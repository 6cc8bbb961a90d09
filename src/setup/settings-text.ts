import { BeaconError } from '../model/errors';
import { readInTree, type TreeOptions } from '../model/tree-files';

/** An agent's settings file larger than this is not one Beacon edits. */
export const MAX_SETTINGS_BYTES = 8 << 20;
export const BOM = '\uFEFF';

/** A settings file's text as Beacon edits it: strictly UTF-8, its BOM apart (and written back). */
export function readSettingsText(file: string, tree: TreeOptions): { bytes?: Buffer; bom: boolean; text: string } {
  // Read through the checked tree: a symlink planted on the way, or a directory others may write, is refused here, before any write.
  const bytes = readInTree(file, MAX_SETTINGS_BYTES, tree);
  // Decoded strictly: a lenient decode turns a byte that is not UTF-8 into U+FFFD, and writing that
  // back changes a byte Beacon does not own (then uninstall finds a file it cannot restore).
  let all = '';
  try {
    all = bytes === undefined ? '' : new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new BeaconError('bad_data', `${file} is not UTF-8 text: Beacon edits only UTF-8 settings files. Nothing was changed.`);
  }
  const bom = all.startsWith(BOM);
  return { bytes, bom, text: bom ? all.slice(1) : all };
}
