// Compact text for sets of ids (`0-3,8`, `0-9999/3`), computed in one pass over
// the runs of a source without building the whole text: a channel of 67 million
// partitions, or the partitions missing from a 67-million-partition topic, are
// summarised in constant memory. Only the first `keep` characters are kept, plus
// the counts needed to clip the text exactly as if it had been built in full.

/**
 * Ids over positions 0..size, read as runs: `runs(from, to, visit)` calls
 * `visit(lo, hi)` for the runs of consecutive ids (lo, lo + 1, ..., hi) found at
 * positions [from, to), in order. Reading in windows lets a writer stream a huge
 * set in pieces; a run may be split at a window's edge.
 */
export interface IdSource {
  readonly size: number;
  runs(from: number, to: number, visit: (lo: number, hi: number) => void): void;
}

export function idsOf(ids: ArrayLike<number>): IdSource {
  return {
    size: ids.length,
    runs(from, to, visit) {
      let i = from;
      while (i < to) {
        const lo = ids[i]!;
        let hi = lo;
        for (i++; i < to && ids[i] === hi + 1; i++) hi++;
        visit(lo, hi);
      }
    },
  };
}

export interface RangeText {
  /** The first `keep` characters of the full text (all of it when it is shorter). */
  prefix: string;
  /** Length of the full text. */
  length: number;
  /** Commas in the full text (the run separators, and the comma of a two-id run). */
  commas: number;
}

/**
 * The text formatRanges gives: ascending runs as `a-b`, two-id runs as `a,b`,
 * single ids alone, comma-separated; a whole list of 4+ ids stepping evenly by
 * s > 1 is `first-last/s`. One pass: the run text is kept (up to `keep`
 * characters) while the even step is checked, and the shorter answer chosen at the end.
 */
export function rangeText(source: IdSource, keep: number): RangeText {
  const out = new TextTail(keep);
  let started = false;
  let lo = 0;
  let hi = 0;
  // Even step: every run a single id, all gaps equal and > 1 (so no two ids are consecutive).
  let count = 0;
  let first = 0;
  let step = 0;
  let even = true;
  const flush = (): void => {
    if (hi === lo) out.part(`${lo}`, 0);
    else if (hi === lo + 1) out.part(`${lo},${hi}`, 1);
    else out.part(`${lo}-${hi}`, 0);
    if (hi !== lo) even = false;
    else {
      if (count === 0) first = lo;
      else if (count === 1) step = lo - first;
      else if (lo - prevSingle !== step) even = false;
      prevSingle = lo;
    }
    count += hi - lo + 1;
  };
  let prevSingle = 0;
  source.runs(0, source.size, (a, b) => {
    if (started && a === hi + 1) {
      hi = b;
      return;
    }
    if (started) flush();
    lo = a;
    hi = b;
    started = true;
  });
  if (!started) return { prefix: '', length: 0, commas: 0 };
  flush();
  if (even && count >= 4 && step > 1) {
    const text = `${first}-${prevSingle}/${step}`;
    return { prefix: text.slice(0, keep), length: text.length, commas: 0 };
  }
  return out.result();
}

/** Accumulates comma-separated parts, keeping only a prefix of the text. */
class TextTail {
  private prefix = '';
  private length = 0;
  private commas = 0;

  constructor(private readonly keep: number) {}

  part(text: string, innerCommas: number): void {
    const piece = this.length === 0 ? text : `,${text}`;
    if (this.length > 0) this.commas++;
    this.commas += innerCommas;
    if (this.prefix.length < this.keep) this.prefix += piece.slice(0, this.keep - this.prefix.length);
    this.length += piece.length;
  }

  result(): RangeText {
    return { prefix: this.prefix, length: this.length, commas: this.commas };
  }
}

/** The full text (for small sets; a huge set gives a huge string). */
export function formatRanges(ids: ArrayLike<number>): string {
  return rangeText(idsOf(ids), Infinity).prefix;
}

/** The text cut to `max` characters as `...` (the report summaries). */
export function clipDots(source: IdSource, max: number): string {
  const t = rangeText(source, max + 1);
  return t.length > max ? `${t.prefix.slice(0, max - 3)}...` : t.prefix;
}

/**
 * The text cut at the last comma within `max` characters, followed by the count
 * of comma-separated pieces left out (the table cells).
 */
export function clipRuns(source: IdSource, max: number): string {
  const t = rangeText(source, max + 1);
  if (t.length <= max) return t.prefix;
  const cut = t.prefix.lastIndexOf(',', max);
  const shown = t.prefix.slice(0, cut > 0 ? cut : max);
  // Commas inside the shown part and the separator right after it are not in the rest.
  let before = 0;
  for (let i = 0; i <= shown.length && i < t.prefix.length; i++) if (t.prefix.charCodeAt(i) === 44) before++;
  return `${shown},... (+${t.commas - before + 1} more runs)`;
}

/** The ids of `source` joined by `sep`, in pieces of about `chunk` characters. */
export function* joinedIds(source: IdSource, sep: string, chunk: number): Generator<string> {
  const window = 1 << 16;
  let buf = '';
  let first = true;
  const add = (lo: number, hi: number): void => {
    for (let id = lo; id <= hi; id++) {
      buf += first ? `${id}` : `${sep}${id}`;
      first = false;
    }
  };
  for (let from = 0; from < source.size; from += window) {
    source.runs(from, Math.min(source.size, from + window), add);
    if (buf.length >= chunk) {
      yield buf;
      buf = '';
    }
  }
  if (buf !== '') yield buf;
}
