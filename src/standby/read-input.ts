// cluster.json read straight from its bytes, for `assignor standby`. The plain
// shape the benchmark and most callers write (no "properties", strings without
// escapes, integers written as digits) is scanned in one pass into the cluster
// that normalizeCluster builds, as columns (input-columns.ts): JSON.parse's two
// million task-id strings, then a second pass over them, cost most of the input
// side of a cold run at a million tasks.
// Anything else, and anything wrong, takes the general way (JSON.parse, then
// normalizeCluster), so every error is theirs, word for word: the scanner never
// reports an error, it only gives up.
import { Buffer, constants as bufferConstants } from 'node:buffer';
import { AssignorError } from '../errors.js';
import { processKey, type ProcessKey } from './process-id.js';
import { PACKED_SUBTOPOLOGY_LIMIT } from './task-id.js';
import { parseStreamsProperties, validateRackAwareness } from './properties.js';
import { MAX_CAPACITY, type Cluster } from './input.js';
import { clusterOfColumns } from './input-columns.js';
import { INT32_MAX } from '../basics.js';

/** Thrown inside the scanner when the input is not the plain shape, or is wrong; caught by scanCluster. */
class GiveUp {}
const GIVE_UP = new GiveUp();
function giveUp(): never {
  throw GIVE_UP;
}

const QUOTE = 34, COMMA = 44, COLON = 58, UNDERSCORE = 95, BACKSLASH = 92;
const OPEN_ARRAY = 91, CLOSE_ARRAY = 93, OPEN_OBJECT = 123, CLOSE_OBJECT = 125;

/**
 * Task ids interned by (subtopology, partition), numbered in order of first appearance, and
 * put in TaskId order at the end without comparisons (sorted()). Partitions are dense
 * in practice, so each subtopology has an array indexed by partition while the arrays stay within
 * a budget of one entry per input byte (memory in proportion to the input, however sparse the
 * ids); a task beyond them goes to an open-addressing table. A hash table alone spent most of the
 * scan missing the cache, one probe per id.
 */
class Tasks {
  count = 0;
  /** Per task number: subtopology, partition, 1 + input index of the client running it as active (0: none), and the serial of the last list naming it. */
  subs: Int32Array = new Int32Array(1024);
  parts: Int32Array = new Int32Array(1024);
  owner: Int32Array = new Int32Array(1024);
  stamp: Int32Array = new Int32Array(1024);
  serial = 0;
  /** Subtopology -> task number + 1 by partition (0: none yet); a subtopology's array no longer grows once one of its tasks went to the table. */
  private readonly dense = new Map<number, Int32Array>();
  private readonly frozen = new Set<number>();
  private budget: number;
  private lastS = -1;
  private last: Int32Array = new Int32Array(0);
  /** Slots of 4 ints: subtopology, partition, task number + 1 (0: empty), unused (alignment). */
  private table = new Int32Array(4 * 1024);
  private mask = 1023;
  private hashed = 0;

  constructor(budget: number) {
    this.budget = budget;
  }

  /** The number of task (s, p), interning it if it is new. */
  intern(s: number, p: number): number {
    let d = this.last;
    if (s !== this.lastS) {
      d = this.dense.get(s) ?? new Int32Array(0);
      this.last = d;
      this.lastS = s;
    }
    if (p < d.length) {
      const k = d[p]!;
      if (k !== 0) return k - 1;
      d[p] = this.count + 1;
      return this.add(s, p);
    }
    if (!this.frozen.has(s)) {
      let size = Math.max(1024, d.length);
      while (size <= p) size *= 2;
      if (size - d.length <= this.budget) {
        this.budget -= size - d.length;
        const grown = new Int32Array(size);
        grown.set(d);
        this.dense.set(s, grown);
        this.last = grown;
        grown[p] = this.count + 1;
        return this.add(s, p);
      }
      this.frozen.add(s);
    }
    return this.hash(s, p);
  }

  private add(s: number, p: number): number {
    const k = this.count++;
    if (k === this.owner.length) {
      const grow = (a: Int32Array): Int32Array => {
        const b = new Int32Array(2 * k);
        b.set(a);
        return b;
      };
      this.subs = grow(this.subs);
      this.parts = grow(this.parts);
      this.owner = grow(this.owner);
      this.stamp = grow(this.stamp);
    }
    this.subs[k] = s;
    this.parts[k] = p;
    return k;
  }

  /** Task numbers in TaskId order: the dense arrays read in order, unless some task went to the table. */
  sorted(): Int32Array {
    const order = new Int32Array(this.count);
    if (this.hashed === 0) {
      let n = 0;
      for (const s of [...this.dense.keys()].sort((a, b) => a - b)) {
        const d = this.dense.get(s)!;
        for (let p = 0; p < d.length; p++) if (d[p] !== 0) order[n++] = d[p]! - 1;
      }
      return order;
    }
    for (let k = 0; k < this.count; k++) order[k] = k;
    const subs = this.subs, parts = this.parts;
    return order.sort((a, b) => subs[a]! - subs[b]! || parts[a]! - parts[b]!);
  }

  private hash(s: number, p: number): number {
    const table = this.table;
    const mask = this.mask;
    let at = (Tasks.slot(s, p) & mask) << 2;
    for (;;) {
      const k = table[at + 2]!;
      if (k === 0) break;
      if (table[at] === s && table[at + 1] === p) return k - 1;
      at = (at + 4) & (4 * mask + 3);
    }
    table[at] = s;
    table[at + 1] = p;
    table[at + 2] = this.count + 1;
    if (2 * ++this.hashed > mask) this.grow();
    return this.add(s, p);
  }

  private grow(): void {
    const old = this.table;
    const mask = 2 * this.mask + 1;
    const table = new Int32Array(4 * (mask + 1));
    for (let from = 0; from < old.length; from += 4) {
      if (old[from + 2] === 0) continue;
      let at = (Tasks.slot(old[from]!, old[from + 1]!) & mask) << 2;
      while (table[at + 2] !== 0) at = (at + 4) & (4 * mask + 3);
      table[at] = old[from]!;
      table[at + 1] = old[from + 1]!;
      table[at + 2] = old[from + 2]!;
    }
    this.table = table;
    this.mask = mask;
  }

  private static slot(s: number, p: number): number {
    let h = Math.imul(s, 0x9e3779b1) ^ p;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return h ^ (h >>> 16);
  }
}

/** Field bits, so a repeated field (where JSON.parse keeps the last) gives up. */
const TOP = { clients: 1, tasks: 2, numStandbys: 4, tagKeys: 8 } as Record<string, number>;
const CLIENT = { id: 1, tags: 2, capacity: 4, active: 8, standby: 16 } as Record<string, number>;

/** Array-index property names come first in an object's own-key order; the scanner keeps input order, so it gives up on them. */
const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

class Scanner {
  pos: number;
  readonly tasks: Tasks;
  /** Every task list read, one after another, as task numbers; a list is a range of it. */
  lists = new Int32Array(1024);
  listsEnd = 0;

  constructor(
    readonly buf: Buffer,
    start: number,
  ) {
    this.pos = start;
    this.tasks = new Tasks(buf.length);
  }

  /** Skips JSON whitespace; the next byte, or -1 at the end. */
  next(): number {
    const buf = this.buf;
    let i = this.pos;
    for (; i < buf.length; i++) {
      const c = buf[i]!;
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    }
    this.pos = i;
    return i < buf.length ? buf[i]! : -1;
  }

  expect(byte: number): void {
    if (this.next() !== byte) giveUp();
    this.pos++;
  }

  /** After an element: true when another follows (a comma), false at `close`. */
  more(close: number): boolean {
    const c = this.next();
    this.pos++;
    if (c === COMMA) return true;
    if (c !== close) giveUp();
    return false;
  }

  /** True when the array or object just opened is empty (and consumes its close). */
  empty(close: number): boolean {
    if (this.next() !== close) return false;
    this.pos++;
    return true;
  }

  /** A string without escapes or control characters, decoded as the whole file would be (UTF-8). */
  string(): string {
    if (this.next() !== QUOTE) giveUp();
    const buf = this.buf;
    const from = this.pos + 1;
    let high = 0;
    let i = from;
    for (;; i++) {
      if (i >= buf.length) giveUp();
      const c = buf[i]!;
      if (c === QUOTE) break;
      if (c === BACKSLASH || c < 32) giveUp();
      high |= c;
    }
    this.pos = i + 1;
    return buf.toString(high < 128 ? 'latin1' : 'utf8', from, i);
  }

  /** An integer in [0, max] written as plain digits (no sign, fraction or exponent: those give up). */
  int(max: number): number {
    const buf = this.buf;
    let i = this.pos;
    if (this.next() === 48) {
      this.pos++;
      return 0;
    }
    i = this.pos;
    let v = 0;
    const from = i;
    for (; i < buf.length && i - from < 11; i++) {
      const c = buf[i]!;
      if (c < 48 || c > 57) break;
      v = v * 10 + (c - 48);
    }
    if (i === from || v > max) giveUp();
    this.pos = i;
    return v;
  }

  key(fields: Record<string, number>, seen: number): number {
    const name = this.string();
    const bit = Object.hasOwn(fields, name) ? fields[name]! : 0;
    if (bit === 0 || (seen & bit) !== 0) giveUp();
    this.expect(COLON);
    return bit;
  }

  /**
   * A list of task ids (scanTaskId's grammar: 1-10 digits, `_`, 1-10 digits, each at most
   * 2^31 - 1), as interned task numbers; a task named twice gives up.
   */
  taskList(): List {
    this.expect(OPEN_ARRAY);
    const from = this.listsEnd;
    if (this.empty(CLOSE_ARRAY)) return { from, to: from };
    const buf = this.buf;
    const tasks = this.tasks;
    const serial = ++tasks.serial;
    const n = buf.length;
    let i = this.pos;
    for (;;) {
      let c = buf[i]!;
      while (c === 32 || c === 10 || c === 13 || c === 9) c = ++i < n ? buf[i]! : -1;
      if (c !== QUOTE) giveUp();
      // At most 10 digits each side, so 2 * 21 bytes from here stay inside a well-formed list's text.
      let s = 0, p = 0;
      const s0 = ++i;
      for (; i < n; i++) {
        c = buf[i]!;
        if (c < 48 || c > 57) break;
        s = s * 10 + (c - 48);
      }
      if (c !== UNDERSCORE || i === s0 || i - s0 > 10) giveUp();
      const p0 = ++i;
      for (; i < n; i++) {
        c = buf[i]!;
        if (c < 48 || c > 57) break;
        p = p * 10 + (c - 48);
      }
      if (c !== QUOTE || i === p0 || i - p0 > 10 || s > INT32_MAX || p > INT32_MAX) giveUp();
      const k = tasks.intern(s, p);
      if (tasks.stamp[k] === serial) giveUp();
      tasks.stamp[k] = serial;
      if (this.listsEnd === this.lists.length) {
        const grown = new Int32Array(2 * this.lists.length);
        grown.set(this.lists);
        this.lists = grown;
      }
      this.lists[this.listsEnd++] = k;
      c = ++i < n ? buf[i]! : -1;
      while (c === 32 || c === 10 || c === 13 || c === 9) c = ++i < n ? buf[i]! : -1;
      i++;
      if (c === COMMA) continue;
      if (c !== CLOSE_ARRAY) giveUp();
      this.pos = i;
      return { from, to: this.listsEnd };
    }
  }

  stringList(): string[] {
    this.expect(OPEN_ARRAY);
    const out: string[] = [];
    if (this.empty(CLOSE_ARRAY)) return out;
    do out.push(this.string());
    while (this.more(CLOSE_ARRAY));
    return out;
  }

  /** A tags object: string values, no repeated key, no array-index key. */
  tags(): Map<string, string> {
    this.expect(OPEN_OBJECT);
    const tags = new Map<string, string>();
    if (this.empty(CLOSE_OBJECT)) return tags;
    do {
      const k = this.string();
      this.expect(COLON);
      if (tags.has(k) || ARRAY_INDEX.test(k)) giveUp();
      tags.set(k, this.string());
    } while (this.more(CLOSE_OBJECT));
    return tags;
  }
}

/** A task list: Scanner.lists[from, to). */
interface List {
  from: number;
  to: number;
}

interface RawClient {
  id: string;
  tags: Map<string, string>;
  capacity: number;
  active: List;
  standby: List;
}

/**
 * The Cluster normalizeCluster would build from this JSON text, or undefined when the input is not
 * the plain shape or is wrong in any way (then JSON.parse and normalizeCluster give the answer or
 * the error). `bytes`: the file as read, a UTF-8 BOM allowed.
 */
export function scanCluster(bytes: Uint8Array): Cluster | undefined {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const start = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  // Beyond this, JSON.parse cannot take the text: the general way says so.
  if (buf.length - start > bufferConstants.MAX_STRING_LENGTH) return undefined;
  try {
    return scan(new Scanner(buf, start));
  } catch (e) {
    if (e === GIVE_UP || e instanceof AssignorError) return undefined;
    throw e;
  }
}

function scan(sc: Scanner): Cluster {
  const top = readTop(sc);
  const keys = checkClients(sc, top.raw, top.tagKeys);
  const { taskIndex, subs, parts } = statefulTasks(sc, top.taskNums);
  const { starts, entryTask, stateless } = entryColumns(sc, top.raw, taskIndex);
  const own = top.raw.map((c, i) => ({ id: c.id, key: keys[i]!, tags: c.tags, capacity: c.capacity }));
  return clusterOfColumns(own, { subs, parts, lists: starts, entryTask, stateless }, top.numStandbys, top.tagKeys);
}

interface Top {
  numStandbys: number;
  tagKeys: string[];
  raw: RawClient[];
  taskNums: List | undefined;
}

/** The top-level object's fields, in any order, each at most once; then the end of the text. */
function readTop(sc: Scanner): Top {
  const defaults = parseStreamsProperties(new Map(), { checkConfiguredTags: false });
  let numStandbys = defaults.numStandbyReplicas;
  let tagKeys = defaults.rackAwareAssignmentTags;
  let raw: RawClient[] | undefined;
  let taskNums: List | undefined;
  sc.expect(OPEN_OBJECT);
  let seen = 0;
  if (!sc.empty(CLOSE_OBJECT)) {
    do {
      const field = sc.key(TOP, seen);
      seen |= field;
      if (field === TOP.clients) raw = clients(sc);
      else if (field === TOP.tasks) taskNums = sc.taskList();
      else if (field === TOP.numStandbys) numStandbys = sc.int(INT32_MAX);
      else tagKeys = sc.stringList();
    } while (sc.more(CLOSE_OBJECT));
  }
  if (sc.next() !== -1) giveUp();
  if (raw === undefined || tagKeys.length > 5 || new Set(tagKeys).size !== tagKeys.length) giveUp();
  return { numStandbys, tagKeys, raw, taskNums };
}

/** normalizeCluster's checks on the clients, in terms of task numbers; their ProcessKeys in input order. */
function checkClients(sc: Scanner, raw: RawClient[], tagKeys: string[]): ProcessKey[] {
  const lists = sc.lists;
  const owner = sc.tasks.owner;
  const byId = new Set<string>();
  return raw.map((c, i) => {
    const key = processKey(c.id);
    if (c.id === '' || byId.has(key.canonical)) giveUp();
    byId.add(key.canonical);
    validateRackAwareness(c.tags, tagKeys, false); // its errors give up too
    for (let x = c.active.from; x < c.active.to; x++) {
      if (owner[lists[x]!] !== 0) giveUp();
      owner[lists[x]!] = i + 1;
    }
    for (let x = c.standby.from; x < c.standby.to; x++) if (owner[lists[x]!] === i + 1) giveUp();
    return key;
  });
}

/** The stateful tasks (all, without "tasks") in TaskId order, and each task number's index among them (-1: stateless). */
function statefulTasks(sc: Scanner, taskNums: List | undefined): { taskIndex: Int32Array; subs: Int32Array; parts: Int32Array } {
  const tt = sc.tasks;
  const lists = sc.lists;
  const order = tt.sorted();
  const stateful = new Uint8Array(tt.count);
  if (taskNums === undefined) stateful.fill(1);
  else for (let x = taskNums.from; x < taskNums.to; x++) stateful[lists[x]!] = 1;
  const taskIndex = new Int32Array(tt.count);
  let T = 0;
  for (const k of order) taskIndex[k] = stateful[k] ? T++ : -1;
  const subs = new Int32Array(T), parts = new Int32Array(T);
  for (const k of order) {
    if (taskIndex[k]! < 0) continue;
    subs[taskIndex[k]!] = tt.subs[k]!;
    parts[taskIndex[k]!] = tt.parts[k]!;
  }
  return { taskIndex, subs, parts };
}

/** Entries client by client, actives then standbys (the columns' layout), whatever the field order in the file. */
function entryColumns(sc: Scanner, raw: RawClient[], taskIndex: Int32Array): { starts: Int32Array; entryTask: Int32Array; stateless: Map<number, number> } {
  const tt = sc.tasks;
  const lists = sc.lists;
  const N = raw.length;
  const starts = new Int32Array(2 * N + 1);
  let total = 0;
  raw.forEach((c, i) => {
    starts[2 * i] = total;
    total += c.active.to - c.active.from;
    starts[2 * i + 1] = total;
    total += c.standby.to - c.standby.from;
  });
  starts[2 * N] = total;
  const entryTask = new Int32Array(total);
  // Stateless actives (not in `tasks`): entry -> task id packed as the columns keep them.
  const stateless = new Map<number, number>();
  let e = 0;
  for (const c of raw) {
    for (const l of [c.active, c.standby]) {
      for (let x = l.from; x < l.to; x++, e++) {
        const k = lists[x]!;
        entryTask[e] = taskIndex[k]!;
        if (entryTask[e]! >= 0) continue;
        if (l === c.standby) giveUp(); // a standby of a task outside `tasks`
        // The packed id is exact below PACKED_SUBTOPOLOGY_LIMIT (normalizeCluster's column path takes no more either).
        if (tt.subs[k]! >= PACKED_SUBTOPOLOGY_LIMIT) giveUp();
        stateless.set(e, tt.subs[k]! * 4294967296 + tt.parts[k]!);
      }
    }
  }
  return { starts, entryTask, stateless };
}

const NO_TASKS: List = { from: 0, to: 0 };

function clients(sc: Scanner): RawClient[] {
  sc.expect(OPEN_ARRAY);
  const out: RawClient[] = [];
  if (sc.empty(CLOSE_ARRAY)) return out;
  do {
    sc.expect(OPEN_OBJECT);
    const c: RawClient = { id: '', tags: new Map(), capacity: 1, active: NO_TASKS, standby: NO_TASKS };
    let seen = 0;
    if (!sc.empty(CLOSE_OBJECT)) {
      do {
        const field = sc.key(CLIENT, seen);
        seen |= field;
        if (field === CLIENT.id) c.id = sc.string();
        else if (field === CLIENT.tags) c.tags = sc.tags();
        else if (field === CLIENT.capacity) {
          c.capacity = sc.int(MAX_CAPACITY);
          if (c.capacity < 1) giveUp();
        } else if (field === CLIENT.active) c.active = sc.taskList();
        else c.standby = sc.taskList();
      } while (sc.more(CLOSE_OBJECT));
    }
    if ((seen & CLIENT.id) === 0) giveUp();
    out.push(c);
  } while (sc.more(CLOSE_ARRAY));
  return out;
}
