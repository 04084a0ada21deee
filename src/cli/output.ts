// Buffered stdout writing that respects backpressure, so piping 50 million
// results into a slow reader keeps memory flat; EPIPE (reader went away) ends quietly.
import type { Writable } from 'node:stream';

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
