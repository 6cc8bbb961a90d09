/**
 * One line to stdout, waiting when its buffer is full: a slow reader (`| less`, a pipe on macOS,
 * where pipes are asynchronous) holds the command back instead of growing our memory without bound.
 */
export async function writeLine(line: string, stream: NodeJS.WriteStream = process.stdout): Promise<void> {
  if (!stream.write(`${line}\n`)) await new Promise<void>((resolve) => stream.once('drain', resolve));
}
