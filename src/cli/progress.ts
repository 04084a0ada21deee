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
// A command of several steps names each with phase(label, ...): the 2 s delay counts
// from the start of the command, not of the step. A step with no count of its own
// (a library call that reports nothing) shows its name and the elapsed time; if it is
// asynchronous (reads a file), `ticker: true` redraws that from a timer (unref'd).

import { isatty } from 'node:tty';
import { formatPercent } from '../basics.js';
import { AssignorError, describe } from '../errors.js';

/** A run shorter than this never shows a bar (ASSIGNOR_PROGRESS_DELAY_MS sets another delay). */
export const PROGRESS_DELAY_MS = 2000;
const REDRAW_MS = 200;
const BAR_WIDTH = 24;

/** What the bar writes to: process.stderr, or anything with `write` and `isTTY`. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** The terminal's width; the line is cut to fit, since `\r` only returns to the start of the last screen row. */
  readonly columns?: number;
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
  /** Redraw from a timer as well as from tick(), for asynchronous steps that cannot tick. */
  ticker?: boolean;
  /** How long a run lasts before the bar shows; default ASSIGNOR_PROGRESS_DELAY_MS, else PROGRESS_DELAY_MS. */
  delayMs?: number;
}

/**
 * The delay from ASSIGNOR_PROGRESS_DELAY_MS (whole milliseconds; 0 draws at the first tick: the
 * suite uses it to see every command's bar on small inputs), else PROGRESS_DELAY_MS. Anything else
 * in the variable is refused (exit 2), as a bad ASSIGNOR_ENGINE is.
 */
export function progressDelayMs(env: string | undefined = process.env.ASSIGNOR_PROGRESS_DELAY_MS): number {
  if (env === undefined || env === '') return PROGRESS_DELAY_MS;
  if (!/^\d{1,9}$/.test(env)) {
    throw new AssignorError('E_USAGE', `ASSIGNOR_PROGRESS_DELAY_MS must be a whole number of milliseconds, got ${describe(env)}`, 'ASSIGNOR_PROGRESS_DELAY_MS');
  }
  return Number(env);
}

/** What a phase counts; without a unit it shows its label and the elapsed time only. */
export interface PhaseOptions {
  total?: number;
  unit?: string;
}

export class Progress {
  /** options.stream; undefined means process.stderr, touched only when something is written. */
  private readonly given: ProgressStream | undefined;
  private readonly now: () => number;
  private unit: string | undefined;
  private readonly active: boolean;
  private readonly started: number;
  private total: number;
  private done = 0;
  private nextDraw: number;
  private drawn = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private phaseStarted: number;

  constructor(
    private label: string,
    options: ProgressOptions = {},
  ) {
    this.given = options.stream;
    this.now = options.now ?? Date.now;
    this.unit = options.unit ?? 'items';
    this.total = options.total ?? 0;
    // isatty(2) first: process.stderr's getter creates the stream (for a pipe, a net.Socket), ~4 ms
    // of CPU in a cold run that then never writes to stderr (bench/cli-cold.bench.ts). When fd 2 is a
    // terminal, process.stderr still decides (in a worker thread it is no terminal).
    const tty = this.given !== undefined ? this.given.isTTY === true : isatty(2) && process.stderr.isTTY === true;
    this.active = options.enabled !== false && tty && process.env.TERM !== 'dumb';
    this.started = this.active ? this.now() : 0;
    this.phaseStarted = this.started;
    // Read even when inactive, so a bad value is refused the same way on a terminal or not.
    const delay = options.delayMs ?? progressDelayMs();
    this.nextDraw = this.started + delay;
    if (this.active && options.ticker === true) {
      this.timer = setInterval(() => this.tick(this.done), REDRAW_MS);
      this.timer.unref();
    }
  }

  /**
   * The next step of the same command: a new label and count (from 0). The 2 s delay still counts
   * from the start. Draws at once when a bar is showing, so the new step's name appears before its work.
   */
  phase(label: string, options: PhaseOptions = {}): void {
    if (!this.active) return;
    this.label = label;
    this.unit = options.unit;
    this.total = options.total ?? 0;
    this.done = 0;
    this.phaseStarted = this.now();
    if (this.drawn) this.nextDraw = 0;
    this.tick(0);
  }

  private get stream(): ProgressStream {
    return this.given ?? process.stderr;
  }

  /** `done` units finished so far (and the total, when it became known late). */
  tick(done: number, total?: number): void {
    if (!this.active) return;
    this.done = done;
    if (total !== undefined) this.total = total;
    const now = this.now();
    if (now < this.nextDraw) return;
    this.nextDraw = now + REDRAW_MS;
    this.drawn = true;
    this.stream.write(`\r${this.line(done, now)}\x1b[K`);
  }

  /** Writes a line of its own to the stream (a note on stderr) without mixing it into the bar, which redraws at the next tick. */
  note(text: string): void {
    if (this.drawn) {
      this.stream.write('\r\x1b[K');
      this.drawn = false;
      if (this.nextDraw !== Number.POSITIVE_INFINITY) this.nextDraw = 0;
    }
    this.stream.write(text);
  }

  /** Erases the bar if one was drawn. Safe to call more than once. */
  end(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
    this.nextDraw = Number.POSITIVE_INFINITY;
  }

  /** The line, cut to the terminal's width: a line that wraps would leave a row behind at every redraw. */
  private line(done: number, now: number): string {
    const columns = this.stream.columns;
    const width = Math.max(20, (columns !== undefined && columns > 0 ? columns : 80) - 1); // a terminal of unknown size reports 0
    const [full, ...shorter] = this.lines(done, now);
    if (full!.length <= width) return full!;
    for (const l of shorter) if (l.length <= width) return l;
    const last = shorter[shorter.length - 1] ?? full!;
    return `${last.slice(0, width - 1)}…`;
  }

  /** The line in full, then shorter forms: without the rate, then without the bar (cut at the end if still too long). */
  private lines(done: number, now: number): string[] {
    const secs = (now - this.started) / 1000;
    if (this.unit === undefined) return [`${this.label}, ${secs.toFixed(0)} s`];
    // The rate is of the current step (a phase's count starts at 0 when it starts).
    const stepSecs = (now - this.phaseStarted) / 1000;
    const rate = stepSecs > 0 ? Math.round(done / stepSecs) : 0;
    const count = this.total > 0 ? `${fmt(done)}/${fmt(this.total)}` : fmt(done);
    let bar = '';
    if (this.total > 0) {
      const frac = Math.min(1, Math.max(0, done / this.total));
      const full = Math.round(frac * BAR_WIDTH);
      bar = `[${'#'.repeat(full)}${'.'.repeat(BAR_WIDTH - full)}] ${formatPercent(frac, { digits: 1 })} `;
    }
    const tail = `${count} ${this.unit}, ${secs.toFixed(0)} s`;
    return [`${this.label} ${bar}${count} ${this.unit}, ${fmt(rate)} ${this.unit}/s, ${secs.toFixed(0)} s`, `${this.label} ${bar}${tail}`, `${this.label} ${tail}`];
  }
}

/** A progress bar for one long step; see the top of this file. */
export function startProgress(label: string, options: ProgressOptions = {}): Progress {
  return new Progress(label, options);
}

function fmt(n: number): string {
  return groupDigits(n);
}

/**
 * A whole number with commas between groups of three digits, as toLocaleString('en-US') prints it
 * (1,234,567), without Intl: the first toLocaleString of a process loads ICU data (~60 ms cold).
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const s = String(Math.abs(n));
  let out = s.length % 3 === 0 ? '' : s.slice(0, s.length % 3);
  for (let i = s.length % 3; i < s.length; i += 3) out += (out === '' ? '' : ',') + s.slice(i, i + 3);
  return n < 0 ? `-${out}` : out;
}
