import { escapeControls } from '../model/terminal';

/**
 * One line to stdout, waiting when its buffer is full: a slow reader (`| less`, a pipe on macOS,
 * where pipes are asynchronous) holds the command back instead of growing our memory without bound.
 */
export async function writeLine(line: string, stream: NodeJS.WritableStream = output): Promise<void> {
  // the line may carry recorded content: escaped for the terminal, as main's out() does
  if (!stream.write(`${escapeControls(line, { layout: true })}\n`)) await new Promise<void>((resolve) => stream.once('drain', resolve));
}

/** Where writeLine writes by default: stdout, or a pager's input while one runs (src/cli/pager.ts). */
let output: NodeJS.WritableStream = process.stdout;

export function setOutput(stream: NodeJS.WritableStream): void {
  output = stream;
}
