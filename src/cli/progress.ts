// A one-line progress bar on stderr, redrawn at most 5 times a second. Only
// used when stderr is a terminal, so logs and pipes never see it.
import type { WriteStream } from 'node:tty';

export class Progress {
  private last = 0;
  private readonly started = Date.now();
  private bytesBefore = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream | WriteStream,
    private readonly totalBytes: number,
  ) {}

  /** `lines` done so far; `chunkBytes` consumed from the latest chunk. */
  update(lines: number, chunkBytes: number): void {
    this.bytesBefore += chunkBytes;
    const now = Date.now();
    if (now - this.last < 200) return;
    this.last = now;
    const secs = (now - this.started) / 1000;
    const rate = secs > 0 ? Math.round(lines / secs) : 0;
    let bar = '';
    if (this.totalBytes > 0) {
      const frac = Math.min(1, this.bytesBefore / this.totalBytes);
      const width = 24;
      const full = Math.round(frac * width);
      bar = `[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${(frac * 100).toFixed(1)}% `;
    }
    this.stream.write(`\r${bar}${lines.toLocaleString('en-US')} keys, ${rate.toLocaleString('en-US')} keys/s `);
  }

  done(lines: number): void {
    const secs = (Date.now() - this.started) / 1000;
    this.stream.write(`\r${lines.toLocaleString('en-US')} keys in ${secs.toFixed(1)} s${' '.repeat(30)}\n`);
  }
}
