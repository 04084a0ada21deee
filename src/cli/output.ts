// Buffered stdout writing that respects backpressure, so piping 50 million
// results into a slow reader keeps memory flat; EPIPE (reader went away) ends quietly.
import { writeFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { AssignorError } from '../errors.js';

/** The CLI's one error for a file it could not write (E_OUTPUT, at the option that named it). */
export function cannotWrite(file: string, e: unknown, option: string): AssignorError {
  return new AssignorError('E_OUTPUT', `cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, option);
}

/** Writes a page named by `--html` (never stdout: stdout carries the JSON). */
export function writeHtmlFile(file: string, html: string): void {
  try {
    writeFileSync(file, html);
  } catch (e) {
    throw cannotWrite(file, e, '--html');
  }
}

export class Output {
  private closed = false;

  constructor(private readonly stream: Writable) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') {
        this.closed = true;
        process.exit(0);
      }
      throw e;
    });
  }

  /** Writes text or bytes; a buffer passed here must not be changed afterwards (the stream may still hold it). */
  async write(text: string | Uint8Array): Promise<void> {
    if (this.closed || text.length === 0) return;
    if (!this.stream.write(text)) await new Promise<void>((resolve) => this.stream.once('drain', resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      if ((this.stream as NodeJS.WriteStream).writableLength === 0) resolve();
      else this.stream.once('drain', resolve);
    });
  }
}
