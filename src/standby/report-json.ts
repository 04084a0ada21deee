// The placement report as JSON, written straight from the placement's typed
// arrays into byte buffers: the same bytes as `${JSON.stringify(buildReport(pl, kafka), null, 2)}\n`
// without a report object per task or client, in pieces of about `chunk` bytes
// (a million-task report is some 650 MB, far longer than the longest string V8
// can build; as objects and one string it cost gigabytes and most of the run).
import { requireInt } from '../errors.js';
import { formatTaskId, type TaskId } from './task-id.js';
import { keysOf, levelOf, type TaskLevel } from './levels.js';
import type { StandbyPlacement } from './place.js';
import { balancedRange, kafkaTagPhase, whyNot } from './report.js';
import { askedFor, compareWithKafka, existingMasks, totalsOf } from './totals.js';
import { clusterColumns } from './input-columns.js';

/** JSON.stringify(value, null, 2) of a small value, re-indented to start at depth `pad`. */
function small(value: unknown, pad: string): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${pad}`);
}

/** A list of JSON strings as JSON.stringify(list, null, 2) prints it at depth `pad` (items one level deeper). */
function stringList(items: readonly string[], pad: string): string {
  if (items.length === 0) return '[]';
  return `[\n${pad}  ${items.join(`,\n${pad}  `)}\n${pad}]`;
}

/**
 * Own-key order of an object built by Object.fromEntries: array-index keys
 * ("0", "17", below 2^32 - 1) first in ascending order, then the others in
 * insertion order. Tag keys are user strings, so this matters.
 */
function objectKeyOrder(keys: string[]): string[] {
  const isIndex = (k: string): boolean => /^(0|[1-9]\d{0,9})$/.test(k) && Number(k) < 4294967295;
  const index = keys.filter(isIndex).sort((a, b) => Number(a) - Number(b));
  return index.length === 0 ? keys : [...index, ...keys.filter((k) => !isIndex(k))];
}

/** Text -> UTF-8 bytes (JSON text from JSON.stringify is always well-formed). */
const utf8 = new TextEncoder();

/**
 * The output buffer. Fragments used again and again (a client's entry opening,
 * a mask's lines) are kept once in an arena at the start of the same array and
 * copied with copyWithin: a million tasks pick clients at random, and one
 * array's bytes stay in cache where thousands of small array objects do not
 * (copyWithin was also the fastest copy measured, some 50 ns a call, so the
 * fragments are as long as possible and few per task). Output goes after the
 * arena. A full piece is handed out as a copy, or, when `reuse`, as a view
 * of the buffer: then there are two buffers (each with the arena), used in
 * turn, so a piece stays intact while the next one is built.
 */
class Bytes {
  buf: Uint8Array;
  pos: number;
  private arenaEnd = 0;
  private readonly start: number;
  private off = new Int32Array(256);
  private len = new Int32Array(256);
  private kept = 0;
  /** Fragments that did not fit in the arena (handle -1 - i). */
  private readonly spill: Uint8Array[] = [];
  private readonly bufs: Uint8Array[];
  private turn = 0;

  constructor(private readonly chunk: number, arena: number, private readonly reuse: boolean) {
    this.start = arena;
    this.pos = arena;
    this.buf = new Uint8Array(arena + chunk + 4096);
    this.bufs = reuse ? [this.buf, new Uint8Array(arena + chunk + 4096)] : [this.buf];
  }

  /** Keeps a fragment; returns its handle for put(). */
  keep(b: Uint8Array): number {
    if (this.arenaEnd + b.length > this.start) {
      this.spill.push(b);
      return -this.spill.length;
    }
    for (const buf of this.bufs) buf.set(b, this.arenaEnd);
    if (this.kept === this.off.length) {
      const off = new Int32Array(2 * this.kept), len = new Int32Array(2 * this.kept);
      off.set(this.off);
      len.set(this.len);
      this.off = off;
      this.len = len;
    }
    this.off[this.kept] = this.arenaEnd;
    this.len[this.kept] = b.length;
    this.arenaEnd += b.length;
    return this.kept++;
  }

  put(h: number): void {
    if (h < 0) {
      this.bytes(this.spill[-1 - h]!);
      return;
    }
    const o = this.off[h]!, n = this.len[h]!;
    this.ensure(n);
    this.buf.copyWithin(this.pos, o, o + n);
    this.pos += n;
  }

  /** Room for n more bytes (a long entry grows the buffer). */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(2 * this.buf.length, this.pos + n));
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
    this.bufs[this.turn] = grown;
  }

  bytes(b: Uint8Array): void {
    const n = b.length;
    this.ensure(n);
    this.buf.set(b, this.pos);
    this.pos += n;
  }

  text(s: string): void {
    this.ensure(3 * s.length);
    this.pos += utf8.encodeInto(s, this.buf.subarray(this.pos)).written;
  }

  /** `"<subtopology>_<partition>"` (task ids are 32-bit non-negative integers). */
  taskId(s: number, p: number): void {
    this.ensure(24);
    const buf = this.buf;
    let pos = this.pos;
    buf[pos++] = 34;
    pos = digits(buf, pos, s);
    buf[pos++] = 95;
    pos = digits(buf, pos, p);
    buf[pos++] = 34;
    this.pos = pos;
  }

  /**
   * Items of a client's task list, `        "<subtopology>_<partition>"` joined by `,\n`: the
   * list's entries i in [from, to) (see TaskList); `more`: an item follows the last one. In one loop with one bounds check: a million-task report has some
   * three million of them.
   */
  taskItems(list: TaskList, from: number, to: number, more: boolean): void {
    const { subs, parts, ix, stateless } = list;
    if (to <= from) return;
    this.ensure(34 * (to - from));
    const buf = this.buf;
    let pos = this.pos;
    for (let i = from; i < to; i++) {
      const k = ix === null ? i : ix[i]!;
      for (let j = 0; j < 8; j++) buf[pos++] = 32;
      buf[pos++] = 34;
      let s: number, p: number;
      if (k >= 0) {
        s = subs[k]!;
        p = parts[k]!;
      } else {
        // k -1: a stateless active, its id packed in `stateless` by entry i.
        const key = stateless!.get(i)!;
        s = Math.floor(key / 4294967296);
        p = key - s * 4294967296;
      }
      pos = digits(buf, pos, s);
      buf[pos++] = 95;
      pos = digits(buf, pos, p);
      buf[pos++] = 34;
      if (i + 1 < to || more) {
        buf[pos++] = 44;
        buf[pos++] = 10;
      }
    }
    this.pos = pos;
  }

  full(): boolean {
    return this.pos - this.start >= this.chunk;
  }

  take(): Uint8Array {
    if (!this.reuse) {
      const out = this.buf.slice(this.start, this.pos);
      this.pos = this.start;
      return out;
    }
    const out = this.buf.subarray(this.start, this.pos);
    this.turn ^= 1;
    this.buf = this.bufs[this.turn]!;
    this.pos = this.start;
    return out;
  }
}

/**
 * Tasks to list: entry i is task (subs[k], parts[k]) for k = ix[i] (ix null: k = i); k = -1 is a
 * stateless active whose id is packed in stateless.get(i).
 */
interface TaskList {
  subs: Int32Array;
  parts: Int32Array;
  ix: Int32Array | null;
  stateless?: Map<number, number>;
}

/** Levels as numbers, from the best to the worst: a task's level is its worst standby's, the largest number. */
const LEVEL_NAMES: readonly TaskLevel[] = ['absolute', 'partial', 'least', 'untagged', 'none'];
const LEVEL_NUMBER: Record<TaskLevel, number> = { absolute: 0, partial: 1, least: 2, untagged: 3, none: 4 };

/** Writes a 32-bit non-negative integer's digits at `pos` (room ensured); returns the position after them. */
function digits(buf: Uint8Array, pos: number, n: number): number {
  if (n < 10) {
    buf[pos] = 48 + n;
    return pos + 1;
  }
  const len = n < 100 ? 2 : n < 1000 ? 3 : n < 10000 ? 4 : n < 100000 ? 5 : n < 1000000 ? 6 : n < 10000000 ? 7 : n < 100000000 ? 8 : n < 1000000000 ? 9 : 10;
  let at = pos + len;
  for (let x = n; at > pos; x = (x / 10) | 0) buf[--at] = 48 + (x % 10);
  return pos + len;
}

/** The bytes of `a` then `b` (spreading them through an array cost ~0.1 s for 10,000 clients). */
function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

const enc = (s: string): Uint8Array => utf8.encode(s);

// Fixed fragments. A standby or existing entry (depth 4: fields at 10 spaces) is its client's
// opening (per client) + its mask's level and differsOn lines (per key mask) + ENTRY_END.
const ENTRY_END = enc('\n        }');
const COMMA_NL = enc(',\n');
const NL = enc('\n');
const TASK_OPEN = enc('    {\n      "task": ');
const ACTIVE_NULL = enc(',\n      "active": null,\n');
const EXISTING_EMPTY = enc('      "existing": [],\n');
const EXISTING_OPEN = enc('      "existing": [\n');
const STANDBYS_EMPTY = enc('      "standbys": [],\n');
const STANDBYS_OPEN = enc('      "standbys": [\n');
const LIST_CLOSE = enc('      ],\n');
const WHY = enc(',\n          "why": ');
const NO_EXISTING_STANDBYS_OPEN = enc('      "existing": [],\n      "standbys": [\n');
const LIST_END = enc('\n      ]');
/** Marks a task end not built yet. */
const NO_END = -(1 << 30);

/**
 * The fragments of the tasks' part, kept once in the output's arena (Bytes.keep), as handles.
 * Closings 0 .. 2^K - 1 end a task after a standby of that mask; closeList after a list whose last
 * entry is written; closeEmpty is "standbys": [].
 */
class Fragments {
  readonly b: Bytes;
  /** Per mask: its "level" and "differsOn" lines, and its level as a number (LEVEL_NUMBER). */
  readonly maskLines: Uint8Array[] = [];
  readonly maskLevelNumber: number[] = [];
  /** Per client: its entry's opening; its "active" line; that line with no existing standbys and new ones following. */
  readonly head: number[];
  readonly active: number[];
  readonly activeOpen: number[];
  /** Per mask m: an entry's lines and end, then ",\n" (2m) or "\n" (2m + 1). */
  readonly maskEnd: number[];
  readonly taskOpen: number;
  readonly activeNull: number;
  readonly existingEmpty: number;
  readonly existingOpen: number;
  readonly standbysOpen: number;
  readonly listClose: number;
  readonly noExistingStandbysOpen: number;
  readonly closeList: number;
  readonly closeEmpty: number;
  private readonly ends = new Map<number, Map<number, Int32Array>>();
  private lastAsked = -1;
  private lastUnplaced = -1;
  private endTable: Int32Array = new Int32Array(0);

  constructor(K: number, tagKeys: readonly string[], ids: readonly string[], chunk: number, reuse: boolean) {
    for (let m = 0; m < 1 << K; m++) {
      const level = levelOf(m, K);
      this.maskLevelNumber.push(LEVEL_NUMBER[level]);
      const differs = keysOf(m, tagKeys).map((k) => JSON.stringify(k));
      this.maskLines.push(enc(`          "level": ${JSON.stringify(level)},\n          "differsOn": ${stringList(differs, '          ')}`));
    }
    this.closeList = 1 << K;
    this.closeEmpty = this.closeList + 1;
    const entryHead = ids.map((id) => enc(`        {\n          "client": ${JSON.stringify(id)},\n`));
    const activeLine = ids.map((id) => enc(`,\n      "active": ${JSON.stringify(id)},\n`));
    // A standby or existing entry without a reason: its client's opening, then its mask's lines and end.
    const maskEnds: Uint8Array[] = [];
    for (let m = 0; m < 1 << K; m++) for (const end of [COMMA_NL, NL]) maskEnds.push(Uint8Array.from([...this.maskLines[m]!, ...ENTRY_END, ...end]));
    const fixed = [TASK_OPEN, ACTIVE_NULL, EXISTING_EMPTY, EXISTING_OPEN, STANDBYS_EMPTY, STANDBYS_OPEN, LIST_CLOSE, NO_EXISTING_STANDBYS_OPEN];
    let arena = 1 << 16; // room for the task ends
    for (const list of [entryHead, activeLine, activeLine, maskEnds, fixed]) for (const x of list) arena += x.length;
    arena += ids.length * NO_EXISTING_STANDBYS_OPEN.length;
    const b = (this.b = new Bytes(chunk, arena, reuse));
    this.head = entryHead.map((x) => b.keep(x));
    this.active = activeLine.map((x) => b.keep(x));
    // The common case in one copy: the active's line, no existing standbys, new ones follow.
    this.activeOpen = activeLine.map((x) => b.keep(concat(x, NO_EXISTING_STANDBYS_OPEN)));
    this.maskEnd = maskEnds.map((x) => b.keep(x));
    [this.taskOpen, this.activeNull, this.existingEmpty, this.existingOpen, , this.standbysOpen, this.listClose, this.noExistingStandbysOpen] = fixed.map((x) => b.keep(x));
  }

  /**
   * A task's end, in one copy: what closes its standby list (the last standby's mask lines and end
   * and the list's close, or the list's close alone, or an empty list), its level, askedFor and
   * unplaced, and the next task's opening. Few distinct ones: by (askedFor, unplaced), one table of
   * (closing, level, last). Two levels of keys, because askedFor and unplaced each reach 2^31.
   */
  taskEnd(closing: number, level: number, asked: number, unplaced: number, last: boolean): number {
    if (asked !== this.lastAsked || unplaced !== this.lastUnplaced) {
      let byAsked = this.ends.get(asked);
      if (byAsked === undefined) this.ends.set(asked, (byAsked = new Map()));
      let table = byAsked.get(unplaced);
      if (table === undefined) byAsked.set(unplaced, (table = new Int32Array((this.closeEmpty + 1) * 5 * 2).fill(NO_END)));
      this.endTable = table;
      this.lastAsked = asked;
      this.lastUnplaced = unplaced;
    }
    const key = (closing * 5 + level) * 2 + (last ? 1 : 0);
    let h = this.endTable[key]!;
    if (h === NO_END) {
      const head = closing < this.closeList ? [...this.maskLines[closing]!, ...ENTRY_END, ...NL, ...LIST_CLOSE] : closing === this.closeList ? [...LIST_CLOSE] : [...STANDBYS_EMPTY];
      const tailText = `      "level": "${LEVEL_NAMES[level]}",\n      "askedFor": ${asked},\n      "unplaced": ${unplaced}\n    }${last ? '\n' : ',\n    {\n      "task": '}`;
      h = this.b.keep(Uint8Array.from([...head, ...enc(tailText)]));
      this.endTable[key] = h;
    }
    return h;
  }
}

export interface ReportJsonOptions {
  /**
   * Hand out views of two internal buffers used in turn instead of a copy of each piece:
   * a piece then stays intact only until the generator is resumed twice more (the
   * piece after the next one is being built). For a writer that finishes writing
   * one piece while the next is built; saves a copy of the whole report.
   */
  reuse?: boolean;
}

/**
 * The report as UTF-8 JSON in pieces of about `chunk` bytes: the bytes of
 * `${JSON.stringify(buildReport(pl, kafka), null, 2)}\n`. `onTask(done)` is
 * called as tasks are written.
 */
export function reportJson(pl: StandbyPlacement, kafka?: StandbyPlacement, chunk = 1 << 20, onTask?: (done: number) => void, options: ReportJsonOptions = {}): Generator<Uint8Array> {
  // Checked here, before the generator starts, so a bad size fails at the call.
  return writeReport(pl, kafka, requireInt(chunk, 1, 1 << 30, 'the report chunk size', 'chunk'), onTask, options.reuse === true);
}

function* writeReport(pl: StandbyPlacement, kafka: StandbyPlacement | undefined, chunk: number, onTask: ((done: number) => void) | undefined, reuse: boolean): Generator<Uint8Array> {
  const ids = pl.cluster.clients.map((c) => c.id);
  const tasks = new TaskWriter(pl, kafka, new Fragments(pl.flat.problem.keys, pl.cluster.tagKeys, ids, chunk, reuse));
  const b = tasks.b;
  writeHead(b, pl, kafka);
  const copies = countCopies(pl);
  yield* writeWarnings(b, pl, copies);
  yield* tasks.write(copies, onTask);
  yield* writeClients(b, pl, ids);
  b.text('}\n');
  yield b.take();
}

/** The fields before the lists. */
function writeHead(b: Bytes, pl: StandbyPlacement, kafka: StandbyPlacement | undefined): void {
  b.text('{\n');
  b.text(`  "mode": ${JSON.stringify(pl.mode)},\n`);
  b.text(`  "assignor": ${JSON.stringify(pl.assignor)},\n`);
  b.text(`  "engine": ${JSON.stringify(pl.engine)},\n`);
  b.text(`  "numStandbys": ${JSON.stringify(pl.cluster.numStandbys)},\n`);
  b.text(`  "tagKeys": ${small(pl.cluster.tagKeys, '  ')},\n`);
  b.text(`  "totals": ${small(totalsOf(pl), '  ')},\n`);
  if (kafka !== undefined) b.text(`  "againstKafka": ${small(compareWithKafka(pl, kafka), '  ')},\n`);
}

/** Per task: new standbys placed, asked for, not placed; and the number of warnings. */
interface Copies {
  placed: Int32Array;
  asked: Int32Array;
  unplaced: Int32Array;
  warnings: number;
}

/** Warnings come before the tasks, so the unplaced counts are found in a first pass. */
function countCopies(pl: StandbyPlacement): Copies {
  const p = pl.flat.problem;
  const T = p.tasks, W = pl.width;
  const placed = new Int32Array(T);
  const unplaced = new Int32Array(T);
  const asked = new Int32Array(T);
  let warnings = pl.orderExact ? 0 : 1;
  for (let t = 0; t < T; t++) {
    let n = 0;
    for (let j = 0; j < W; j++) if (pl.slots[t * W + j]! >= 0) n++;
    placed[t] = n;
    asked[t] = askedFor(pl, t);
    const e = p.holderStart[t + 1]! - p.holderStart[t]!;
    unplaced[t] = Math.max(0, asked[t]! - e - n);
    if (unplaced[t]! > 0) warnings++;
  }
  return { placed, asked, unplaced, warnings };
}

function* writeWarnings(b: Bytes, pl: StandbyPlacement, copies: Copies): Generator<Uint8Array> {
  const { warnings, unplaced, asked } = copies;
  if (warnings === 0) {
    b.text('  "warnings": [],\n');
    return;
  }
  const p = pl.flat.problem;
  const subs = pl.flat.subtopologies, parts = pl.flat.partitions;
  b.text('  "warnings": [\n');
  let left = warnings;
  const warn = (text: string): void => b.text(`    ${JSON.stringify(text)}${--left > 0 ? ',\n' : '\n'}`);
  if (!pl.orderExact) warn('kafka mode: a bucket of the fallback HashMap became a tree; the fallback task order is approximate');
  for (let t = 0; t < p.tasks; t++) {
    if (unplaced[t] === 0) continue;
    const e = p.holderStart[t + 1]! - p.holderStart[t]!;
    const had = e > 0 ? `, ${e} already there` : '';
    warn(`task ${formatTaskId({ subtopology: subs[t]!, partition: parts[t]! })}: ${unplaced[t]} of ${asked[t]} standbys could not be placed (every other client already holds a copy${had})`);
    if (b.full()) yield b.take();
  }
  b.text('  ],\n');
}

/**
 * The "tasks" list, one task at a time from the placement's arrays. Level numbers (LEVEL_NUMBER):
 * a larger number is a lower level, and the task's is its worst copy's.
 */
class TaskWriter {
  readonly b: Bytes;
  private readonly p: StandbyPlacement['flat']['problem'];
  private readonly exMasks: Int32Array;
  private readonly range: ReturnType<typeof balancedRange> | undefined;
  private readonly groupSize: Int32Array;
  /**
   * The task's copies so far (active, existing, new): read only to say why a standby is not absolute.
   * A typed array and a count: emptying a JS array per task (length = 0) cost some 0.1 s a million tasks.
   */
  private holders = new Int32Array(0);
  private held = 0;
  /** The worst level number of the task's copies so far, -1 before the first. */
  private worst = -1;

  constructor(private readonly pl: StandbyPlacement, kafka: StandbyPlacement | undefined, private readonly f: Fragments) {
    this.b = f.b;
    const p = (this.p = pl.flat.problem);
    this.exMasks = existingMasks(pl);
    this.range = pl.mode !== 'kafka' && kafka !== undefined ? balancedRange(pl, kafka) : undefined;
    this.groupSize = new Int32Array(p.groups);
    for (let c = 0; c < p.clients; c++) this.groupSize[p.groupOf[c]!]!++;
  }

  *write(copies: Copies, onTask: ((done: number) => void) | undefined): Generator<Uint8Array> {
    const { b, p, f } = this;
    const T = p.tasks;
    if (T === 0) {
      b.text('  "tasks": [],\n');
      return;
    }
    b.text('  "tasks": [\n');
    let maxHolders = 0;
    for (let t = 0; t < T; t++) maxHolders = Math.max(maxHolders, p.holderStart[t + 1]! - p.holderStart[t]!);
    this.holders = new Int32Array(1 + maxHolders + this.pl.width);
    const { placed, asked, unplaced } = copies;
    const none = p.keys === 0 ? 3 : 4; // a task without copies: untagged, or none
    b.put(f.taskOpen); // each task's end opens the next one
    for (let t = 0; t < T; t++) {
      this.held = 0;
      this.worst = -1;
      b.taskId(this.pl.flat.subtopologies[t]!, this.pl.flat.partitions[t]!);
      this.opening(t, placed[t]! > 0);
      const closing = placed[t]! > 0 ? this.standbys(t, placed[t]!) : f.closeEmpty;
      b.put(f.taskEnd(closing, this.worst < 0 ? none : this.worst, asked[t]!, unplaced[t]!, t + 1 === T));
      if (b.full()) {
        onTask?.(t + 1);
        yield b.take();
      }
    }
    b.text('  ],\n');
  }

  private copy(c: number, levelNumber: number): void {
    this.holders[this.held++] = c;
    if (levelNumber > this.worst) this.worst = levelNumber;
  }

  /** The task's active line and its existing standbys; with `more`, the opening of its new ones. */
  private opening(t: number, more: boolean): void {
    const { b, p, f } = this;
    const a = p.active[t]!;
    if (a >= 0) this.holders[this.held++] = a; // the active counts as a copy, not in the level
    const h0 = p.holderStart[t]!, h1 = p.holderStart[t + 1]!;
    const opens = h0 === h1 && more; // no existing standbys, new ones follow
    if (opens && a >= 0) b.put(f.activeOpen[a]!);
    else {
      b.put(a >= 0 ? f.active[a]! : f.activeNull);
      if (opens) b.put(f.noExistingStandbysOpen);
    }
    if (opens) return; // "existing": [] and the opening of "standbys" are written
    if (h0 === h1) {
      b.put(f.existingEmpty);
      return;
    }
    b.put(f.existingOpen);
    for (let h = h0; h < h1; h++) {
      const c = p.holders[h]!;
      const m = this.exMasks[h]!;
      b.put(f.head[c]!);
      b.put(f.maskEnd[2 * m + (h + 1 === h1 ? 1 : 0)]!);
      this.copy(c, f.maskLevelNumber[m]!);
    }
    b.put(f.listClose);
    if (more) b.put(f.standbysOpen);
  }

  /** The task's `n` new standbys; returns its closing for taskEnd (the last entry's lines are written there when it has no reason). */
  private standbys(t: number, n: number): number {
    const { b, pl, f } = this;
    const W = pl.width;
    let closing = f.closeEmpty;
    let tagPhase = -1; // computed only when a reason needs it
    let left = n;
    for (let j = 0; j < W; j++) {
      const c = pl.slots[t * W + j]!;
      if (c < 0) continue;
      const m = pl.masks[t * W + j]!;
      const level = f.maskLevelNumber[m]!;
      b.put(f.head[c]!);
      if (level === 1 || level === 2) {
        // partial or least: the entry says why no better client was taken.
        if (tagPhase < 0) tagPhase = pl.assignor === 'ClientTagAwareStandbyTaskAssignor' ? kafkaTagPhase(pl, t) : 0;
        this.reason(t, j, c, m, j >= tagPhase);
        if (--left > 0) b.bytes(COMMA_NL);
        else {
          b.bytes(NL);
          closing = f.closeList;
        }
      } else if (--left > 0) b.put(f.maskEnd[2 * m]!);
      else closing = m; // the task's end writes this entry's lines
      this.copy(c, level);
    }
    return closing;
  }

  /** A standby entry's lines with its "why", after its client's opening. */
  private reason(t: number, j: number, c: number, m: number, kafkaFallback: boolean): void {
    const { b, pl, range } = this;
    b.bytes(this.f.maskLines[m]!);
    b.bytes(WHY);
    b.text(JSON.stringify(whyNot(pl, this.groupSize, Array.from(this.holders.subarray(0, this.held)), { c, mask: m, kafkaFallback, range: range && { ...range, t, slot: j } })));
    b.bytes(ENTRY_END);
  }
}

/** Each client's new standbys, in task order: newTasks[start[c], start[c + 1]) (CSR over the slots). */
function standbysByClient(pl: StandbyPlacement): { start: Int32Array; newTasks: Int32Array } {
  const C = pl.flat.problem.clients, W = pl.width;
  const start = new Int32Array(C + 1);
  for (let s = 0; s < pl.slots.length; s++) if (pl.slots[s]! >= 0) start[pl.slots[s]! + 1]!++;
  for (let c = 0; c < C; c++) start[c + 1]! += start[c]!;
  const newTasks = new Int32Array(start[C]!);
  const cursor = start.slice(0, C);
  for (let s = 0; s < pl.slots.length; s++) {
    const c = pl.slots[s]!;
    if (c >= 0) newTasks[cursor[c]!++] = (s / W) | 0;
  }
  return { start, newTasks };
}

function* writeClients(b: Bytes, pl: StandbyPlacement, ids: readonly string[]): Generator<Uint8Array> {
  const { cluster } = pl;
  const C = pl.flat.problem.clients;
  const { start, newTasks } = standbysByClient(pl);
  if (C === 0) {
    b.text('  "clients": []\n');
    return;
  }
  b.text('  "clients": [\n');
  const subs = pl.flat.subtopologies, parts = pl.flat.partitions;
  // A cluster from normalizeCluster's fast path keeps its task lists as columns: read them there,
  // rather than make a TaskId object per list entry.
  const cols = clusterColumns(cluster);
  /**
   * A list of task ids as a field value (items at 8 spaces): the client's own list (`list`, or
   * entries [e0, e1) of the columns), then its new standbys newTasks[from, to).
   */
  const taskIds = (list: readonly TaskId[] | undefined, e0: number, e1: number, from: number, to: number): void => {
    const n = (list === undefined ? e1 - e0 : list.length) + to - from;
    if (n === 0) {
      b.text('[]');
      return;
    }
    b.text('[\n');
    if (list !== undefined) {
      const ls = Int32Array.from(list, (t) => t.subtopology), lp = Int32Array.from(list, (t) => t.partition);
      b.taskItems({ subs: ls, parts: lp, ix: null }, 0, list.length, to > from);
    } else b.taskItems({ subs, parts, ix: cols!.entryTask, stateless: cols!.stateless }, e0, e1, to > from);
    b.taskItems({ subs, parts, ix: newTasks }, from, to, false);
    b.bytes(LIST_END);
  };
  for (let c = 0; c < C; c++) {
    const cl = cluster.clients[c]!;
    // Input client i's actives are entries [lists[2i], lists[2i+1]) of the columns, its standbys up to lists[2i+2].
    const e = cols === undefined ? 0 : 2 * cl.inputIndex;
    const a0 = cols === undefined ? 0 : cols.lists[e]!, a1 = cols === undefined ? 0 : cols.lists[e + 1]!, s1 = cols === undefined ? 0 : cols.lists[e + 2]!;
    const ownActive = cols === undefined ? cl.active.length : a1 - a0;
    const ownStandby = cols === undefined ? cl.standby.length : s1 - a1;
    const load = (ownActive + ownStandby + start[c + 1]! - start[c]!) / cl.capacity;
    b.text(`    {\n      "id": ${JSON.stringify(ids[c])},\n      "tags": ${tagsJson(cl.tags)},\n      "capacity": ${cl.capacity},\n      "active": `);
    taskIds(cols === undefined ? cl.active : undefined, a0, a1, 0, 0);
    b.text(',\n      "standby": ');
    taskIds(cols === undefined ? cl.standby : undefined, a1, s1, start[c]!, start[c + 1]!);
    b.text(`,\n      "load": ${JSON.stringify(load)}\n    }${c + 1 < C ? ',\n' : '\n'}`);
    if (b.full()) yield b.take();
  }
  b.text('  ]\n');
}

/** A client's tags as an object field value at depth 3, in the key order of the object buildReport makes. */
function tagsJson(tags: ReadonlyMap<string, string>): string {
  const names = objectKeyOrder([...tags.keys()]);
  return names.length === 0 ? '{}' : `{\n${names.map((k) => `        ${JSON.stringify(k)}: ${JSON.stringify(tags.get(k))}`).join(',\n')}\n      }`;
}
