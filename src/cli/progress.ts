// A one-line progress bar on stderr for long runs, shared by every command.
//
//   const progress = startProgress('placing', { total: tasks, unit: 'tasks' });
//   for (...) { ...; progress.tick(done); }   // per batch, or per item: a tick costs one clock read
//   progress.end();                           // erases the line (also call it on errors: try/finally)
//
// It draws nothing unless stderr is a terminal (never in pipes, logs or CI) and
// the run has already lasted PROGRESS_DELAY_MS, so short runs stay silent, and
// it redraws at most 5 times a second. A command that prints to the terminal
// while it runs passes `enabled: !process.stdout.isTTY` so bar and output do not mix.
// Long synchronous work draws only from its tick() calls: the bar needs no timer.

/** A run shorter than this never shows a bar. */
export const PROGRESS_DELAY_MS = 2000;
const REDRAW_MS = 200;
const BAR_WIDTH = 24;

/** What the bar writes to: process.stderr, or anything with `write` and `isTTY`. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export interface ProgressOptions {
  /** The amount of work, in `unit`s; without it the bar shows the count and rate only. */
  total?: number;
  /** What is counted: 'keys', 'partitions', 'tasks', 'bytes'... (default 'items'). */
  unit?: string;
  /** False turns the bar off (`--no-progress`, or output going to the same terminal). */
  enabled?: boolean;
  /** Default process.stderr. */
  stream?: ProgressStream;
  /** The clock in milliseconds; default Date.now. */
  now?: () => number;
}

export class Progress {
  private readonly stream: ProgressStream;
  private readonly now: () => number;
  private readonly unit: string;
  private readonly active: boolean;
  private readonly started: number;
  private total: number;
  private nextDraw: number;
  private drawn = false;

  constructor(
    private readonly label: string,
    options: ProgressOptions = {},
  ) {
    this.stream = options.stream ?? process.stderr;
    this.now = options.now ?? Date.now;
    this.unit = options.unit ?? 'items';
    this.total = options.total ?? 0;
    this.active = options.enabled !== false && this.stream.isTTY === true && process.env.TERM !== 'dumb';
    this.started = this.active ? this.now() : 0;
    this.nextDraw = this.started + PROGRESS_DELAY_MS;
  }

  /** `done` units finished so far (and the total, when it became known late). */
  tick(done: number, total?: number): void {
    if (!this.active) return;
    if (total !== undefined) this.total = total;
    const now = this.now();
    if (now < this.nextDraw) return;
    this.nextDraw = now + REDRAW_MS;
    this.drawn = true;
    this.stream.write(`\r${this.line(done, now)}\x1b[K`);
  }

  /** Erases the bar if one was drawn. Safe to call more than once. */
  end(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
    this.nextDraw = Number.POSITIVE_INFINITY;
  }

  private line(done: number, now: number): string {
    const secs = (now - this.started) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    const count = this.total > 0 ? `${fmt(done)}/${fmt(this.total)}` : fmt(done);
    let bar = '';
    if (this.total > 0) {
      const frac = Math.min(1, Math.max(0, done / this.total));
      const full = Math.round(frac * BAR_WIDTH);
      bar = `[${'#'.repeat(full)}${'.'.repeat(BAR_WIDTH - full)}] ${(frac * 100).toFixed(1)}% `;
    }
    return `${this.label} ${bar}${count} ${this.unit}, ${fmt(rate)} ${this.unit}/s, ${secs.toFixed(0)} s`;
  }
}

/** A progress bar for one long step; see the top of this file. */
export function startProgress(label: string, options: ProgressOptions = {}): Progress {
  return new Progress(label, options);
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
