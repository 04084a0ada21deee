// The plan JSON format (docs/channels.md): emitting a ChannelPlan, and reading
// plans back, including hand-written ones. Reading keeps the channel lists as
// written (flat typed arrays, duplicates kept) and names the place of any error.
import { INT32_MAX, INT32_MIN } from '../basics.js';
import { AssignorError, describe } from '../errors.js';
import { channelPartitions, MAX_PLAN_PARTITIONS, MAX_WIDTH, STRATEGIES, type ChannelPlan, type PlanStrategy } from './plan.js';
import { idsOf, joinedIds } from './ranges.js';


export const PLAN_FORMAT = 'assignor-channel-plan';
/**
 * The version a plan is written with: 1, or 2 when it holds a run of idle
 * channels written as one entry (`lastChannel`), which a version-1 reader would
 * count as one channel. Both are read.
 */
export const PLAN_VERSION = 1;
/** The version of a plan that writes runs of idle channels as ranges. */
export const PLAN_VERSION_RANGES = 2;

/** The JSON shape of a plan (what `channels plan --emit json` prints). */
export interface PlanJson {
  format: typeof PLAN_FORMAT;
  version: typeof PLAN_VERSION | typeof PLAN_VERSION_RANGES;
  strategy: PlanStrategy;
  topic: string | null;
  partitions: number;
  basePartitions: number;
  width: number;
  startIndex?: number;
  /** One entry per channel, except that a run of two or more idle channels is one entry with `lastChannel`. */
  channels: { channel: number; lastChannel?: number; partitions: number[] }[];
  warnings: string[];
  [extra: string]: unknown;
}

export function planToJson(plan: ChannelPlan): PlanJson {
  const channels: PlanJson['channels'] = [];
  for (const [c, last] of channelEntries(plan)) {
    channels.push(last === c ? { channel: c, partitions: Array.from(channelPartitions(plan, c)) } : { channel: c, lastChannel: last, partitions: [] });
  }
  const out: PlanJson = {
    format: PLAN_FORMAT,
    version: hasIdleRun(plan) ? PLAN_VERSION_RANGES : PLAN_VERSION,
    strategy: plan.strategy,
    topic: plan.topic,
    partitions: plan.partitions,
    basePartitions: plan.basePartitions,
    width: plan.width,
    channels,
    warnings: plan.warnings,
  };
  if (plan.startIndex !== undefined) out.startIndex = plan.startIndex;
  return out;
}

/**
 * The entries of the plan JSON as [first, last] channels: one per channel,
 * except a run of two or more idle channels, which is one entry. So the JSON is
 * bounded by the partitions (at most 2N + 1 entries), not by the width.
 */
function* channelEntries(plan: ChannelPlan): Generator<[number, number]> {
  const { offsets, width } = plan;
  for (let c = 0; c < width; c++) {
    let last = c;
    if (offsets[c] === offsets[c + 1]) while (last + 1 < width && offsets[last + 1] === offsets[last + 2]) last++;
    yield [c, last];
    c = last;
  }
}

/** True when some run of two or more channels has no partition (written as one entry, version 2). */
function hasIdleRun(plan: ChannelPlan): boolean {
  const { offsets, width } = plan;
  for (let c = 0; c + 1 < width; c++) if (offsets[c] === offsets[c + 2]) return true;
  return false;
}

/** Every member of the plan JSON but "channels", in the order planJsonText prints them. */
function planHead(plan: ChannelPlan): Omit<PlanJson, 'channels'> {
  const head: Omit<PlanJson, 'channels'> = {
    format: PLAN_FORMAT,
    version: hasIdleRun(plan) ? PLAN_VERSION_RANGES : PLAN_VERSION,
    strategy: plan.strategy,
    topic: plan.topic,
    partitions: plan.partitions,
    basePartitions: plan.basePartitions,
    width: plan.width,
    warnings: plan.warnings,
  };
  if (plan.startIndex !== undefined) head.startIndex = plan.startIndex;
  return head;
}

/**
 * One line per channel so a 10,000-channel plan stays diffable and greppable;
 * still one valid JSON document.
 */
export function planJsonText(json: Record<string, unknown> & { channels: readonly unknown[] }): string {
  const { channels, ...head } = json;
  return [...planJsonChunks(head, channels.map((ch) => JSON.stringify(ch)))].join('');
}

/**
 * The same text in pieces, for output larger than one string can hold: `head`
 * holds every member but "channels", which comes last; each entry of `lines` is
 * one line of "channels", a string or, for a long list, pieces of one.
 */
export function* planJsonChunks(head: Record<string, unknown>, lines: Iterable<string | Iterable<string>>, large?: LargeArray): Generator<string> {
  const headText = JSON.stringify(head, null, 2);
  // Put "channels" back as the last member of the object.
  yield* withLargeArray(`${headText.slice(0, -2)},\n  "channels": `, large);
  let buf = '';
  let first = true;
  for (const l of lines) {
    buf += first ? '[\n    ' : ',\n    ';
    first = false;
    if (typeof l === 'string') buf += l;
    else {
      yield buf;
      buf = '';
      yield* l;
    }
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  yield first ? '[]\n}\n' : `${buf}\n  ]\n}\n`;
}

/**
 * An array inside the head that may be too long for one string (the partitions
 * an expansion or a width change moves): the head holds `marker` (a string) in
 * its place, and the items are printed there as JSON.stringify(head, null, 2) would.
 */
export interface LargeArray {
  marker: string;
  count: number;
  item(i: number): unknown;
}

function* withLargeArray(text: string, large: LargeArray | undefined): Generator<string> {
  const at = large === undefined ? -1 : text.indexOf(JSON.stringify(large.marker));
  if (large === undefined || at < 0) {
    yield text;
    return;
  }
  yield text.slice(0, at);
  const indent = text.slice(text.lastIndexOf('\n', at) + 1).match(/^ */)![0];
  if (large.count === 0) yield '[]';
  else {
    let buf = '[\n';
    for (let i = 0; i < large.count; i++) {
      buf += `${indent}  ${JSON.stringify(large.item(i), null, 2).replaceAll('\n', `\n${indent}  `)}${i + 1 < large.count ? ',\n' : `\n${indent}]`}`;
      if (buf.length >= CHUNK) {
        yield buf;
        buf = '';
      }
    }
    yield buf;
  }
  yield text.slice(at + JSON.stringify(large.marker).length);
}

/** Characters gathered before a piece is handed to the writer. */
export const CHUNK = 1 << 16;

/** The plan JSON of a ChannelPlan in pieces (the same text as planJsonText(planToJson(plan))). */
export function planChunks(plan: ChannelPlan, extra: Record<string, unknown> = {}, large?: LargeArray): Generator<string> {
  return planJsonChunks({ ...planHead(plan), ...extra }, planLines(plan), large);
}

function* planLines(plan: ChannelPlan): Generator<string | Iterable<string>> {
  const { offsets, members } = plan;
  for (const [c, last] of channelEntries(plan)) {
    if (last !== c) yield `{"channel":${c},"lastChannel":${last},"partitions":[]}`;
    // One partition per channel is the common line of wide plans: no list object.
    else if (offsets[c + 1]! - offsets[c]! === 1) yield `{"channel":${c},"partitions":[${members[offsets[c]!]}]}`;
    else yield channelLine(c, channelPartitions(plan, c));
  }
}

/** `{"channel":c,"partitions":[...]}`, in pieces when the list is long. */
function channelLine(c: number, own: Int32Array): string | Iterable<string> {
  if (own.length <= 4096) return `{"channel":${c},"partitions":[${own.join(',')}]}`;
  return (function* () {
    yield `{"channel":${c},"partitions":[`;
    yield* joinedIds(idsOf(own), ',', CHUNK);
    yield ']}';
  })();
}

/** A channel as a hand-written plan may give it: a list, SPL text, or an object with the list. */
export type ChannelJson =
  | readonly number[]
  | string
  | { readonly channel?: number; readonly partitions: readonly number[] | string }
  | { readonly channel: number; readonly lastChannel: number; readonly partitions: readonly [] };

/** A plan as JSON: what `channels plan` prints, or a hand-written plan (only `channels` is required). */
export interface PlanJsonInput {
  readonly format?: typeof PLAN_FORMAT;
  readonly version?: typeof PLAN_VERSION | typeof PLAN_VERSION_RANGES;
  readonly strategy?: PlanStrategy;
  readonly topic?: string | null;
  readonly partitions?: number;
  readonly basePartitions?: number;
  readonly width?: number;
  readonly startIndex?: number;
  readonly warnings?: readonly string[];
  /** One entry per channel, or per run of idle channels (`{channel, lastChannel, partitions: []}`). */
  readonly channels: readonly ChannelJson[];
  /** What `channels expand` / `channels rewidth` print beside the plan; read as plans, these are ignored. */
  readonly expansion?: object;
  readonly rewidth?: object;
}

/** What validatePlan and expandPlan read besides a ChannelPlan: plan JSON, or just the array of channels. */
export type PlanLike = PlanJsonInput | readonly ChannelJson[];

/** A plan as read from JSON: channel lists exactly as written, flattened. */
export interface PlanInput {
  width: number;
  /**
   * The channel lists end to end, as written (duplicates kept). An id outside
   * int32 is stored as -1 here (it is out of range either way) and its value is in `wideIds`.
   */
  entryPartition: Int32Array;
  /** Channel c's entries are entryPartition[start[c] .. start[c + 1]). */
  start: Int32Array;
  /** Entry index -> the id as written, for ids outside int32 (reported as out of range). */
  wideIds?: Map<number, number>;
  /**
   * The runs of idle channels written as one entry (`lastChannel`), as [first, last] pairs in
   * order: a channel's position in "channels" as written is its number less the channels these
   * runs fold away before it (writtenEntry). Absent when the plan has no such run.
   */
  idleRuns?: Int32Array;
  partitions?: number;
  basePartitions?: number;
  strategy?: PlanStrategy;
  topic?: string | null;
  startIndex?: number;
}

/**
 * Reads a plan (any JSON value: it is checked here). Each channel is
 * `{"partitions": [...]}` (optionally with `"channel": i` equal to its
 * position), a bare array `[0, 1]`, or SPL text `"partition: 4, 4;"`. Partition
 * ids must be integers; ids outside the topic (even outside int32) are findings
 * for validate, not errors here. Nothing here recurses into the input, so a
 * value nested 10,000 deep is an error that names its place, not a stack overflow.
 */
export function readPlan(value: unknown, where = ''): PlanInput {
  const at = (p: string): string => (where === '' ? p : `${where}.${p}`);
  const obj: Record<string, unknown> = Array.isArray(value) ? { channels: value } : isObject(value) ? withoutNulls(value) : bad(where || 'plan', `a plan must be an object with "channels", got ${describe(value)}`);
  if (obj.format !== undefined && obj.format !== PLAN_FORMAT) bad(at('format'), `unknown plan format ${describe(obj.format)}; expected ${JSON.stringify(PLAN_FORMAT)}`);
  if (obj.version !== undefined && obj.version !== PLAN_VERSION && obj.version !== PLAN_VERSION_RANGES) {
    bad(at('version'), `unsupported plan version ${describe(obj.version)}; this build reads versions ${PLAN_VERSION} and ${PLAN_VERSION_RANGES}`);
  }
  const channels = obj.channels;
  if (!Array.isArray(channels)) bad(at('channels'), `"channels" must be an array of channel partition lists, got ${describe(channels)}`);
  if (channels.length === 0) bad(at('channels'), 'a plan needs at least one channel');
  const { width, ids } = measure(channels, at);
  if (obj.width !== undefined && obj.width !== width) bad(at('width'), `width is ${describe(obj.width)} but ${width} channels are listed`);

  // The ids go straight into one array, sized from the lists' lengths first (SPL text may grow it):
  // an Int32Array per channel and a second copy cost a cold CLI run ~15 ms at 10,000 channels.
  let entryPartition = new Int32Array(ids);
  const start = new Int32Array(width + 1);
  let wideIds: Map<number, number> | undefined;
  const runs: number[] = [];
  let k = 0;
  let c = 0;
  for (let e = 0; e < channels.length; e++) {
    const last = idleRunEnd(channels[e]);
    if (last !== undefined) {
      // A run of idle channels: each starts where the previous ends.
      start.fill(k, c, last + 1);
      runs.push(c, last);
      c = last + 1;
      continue;
    }
    start[c] = k;
    const path = at(`channels[${e}]`);
    const { list, listPath } = channelList(channels[e], c, path);
    if (k + list.length > entryPartition.length) {
      const bigger = new Int32Array(Math.max(2 * entryPartition.length, k + list.length));
      bigger.set(entryPartition.subarray(0, k));
      entryPartition = bigger;
    }
    for (let i = 0; i < list.length; i++, k++) {
      const v: unknown = list[i];
      if (typeof v !== 'number' || !Number.isInteger(v)) bad(`${listPath}[${i}]`, `a partition id must be an integer, got ${describe(v)}`);
      if (v >= INT32_MIN && v <= INT32_MAX) entryPartition[k] = v;
      else {
        entryPartition[k] = -1;
        (wideIds ??= new Map()).set(k, v);
      }
    }
    c++;
  }
  if (k < entryPartition.length) entryPartition = entryPartition.slice(0, k);
  start[width] = k;

  const input: PlanInput = { width, entryPartition, start };
  if (wideIds !== undefined) input.wideIds = wideIds;
  if (runs.length > 0) input.idleRuns = Int32Array.from(runs);
  if (obj.partitions !== undefined) input.partitions = count(obj.partitions, at('partitions'), 'partitions');
  if (obj.basePartitions !== undefined) input.basePartitions = count(obj.basePartitions, at('basePartitions'), 'basePartitions');
  if (input.basePartitions !== undefined) {
    if (input.partitions === undefined) bad(at('basePartitions'), 'basePartitions needs partitions');
    if (input.basePartitions > input.partitions || input.partitions % input.basePartitions !== 0) {
      bad(at('basePartitions'), `basePartitions ${input.basePartitions} must divide partitions ${input.partitions}`);
    }
  }
  if (obj.strategy !== undefined) {
    const s = obj.strategy;
    if (typeof s !== 'string' || !([...STRATEGIES, 'custom'] as string[]).includes(s)) {
      bad(at('strategy'), `strategy must be one of ${[...STRATEGIES, 'custom'].join(', ')}, got ${describe(s)}`);
    }
    input.strategy = s as PlanStrategy;
  }
  if (obj.topic !== undefined && obj.topic !== null && typeof obj.topic !== 'string') bad(at('topic'), `topic must be a string or null, got ${describe(obj.topic)}`);
  if (obj.topic !== undefined) input.topic = obj.topic as string | null;
  if (obj.startIndex !== undefined) {
    input.startIndex = count(obj.startIndex, at('startIndex'), 'startIndex', 0);
    if (input.startIndex >= width) bad(at('startIndex'), `startIndex is the channel of partition 0, so it must be below the width ${width}, got ${input.startIndex}`);
  }
  return input;
}

/**
 * The width the entries stand for (a run of idle channels, `{"channel": a,
 * "lastChannel": b, "partitions": []}`, stands for b - a + 1) and how many ids
 * they list as arrays (SPL text is counted when it is read). Checks the runs.
 */
function measure(channels: readonly unknown[], at: (p: string) => string): { width: number; ids: number } {
  let width = 0;
  let ids = 0;
  for (let e = 0; e < channels.length; e++) {
    const ch = channels[e];
    const list = isObject(ch) ? ch.partitions : ch;
    if (Array.isArray(list)) ids += list.length;
    if (isObject(ch) && present(ch.lastChannel)) {
      const path = at(`channels[${e}]`);
      if (ch.channel !== width) bad(`${path}.channel`, `a run of idle channels needs "channel", the first of the run, here ${width}; got ${describe(ch.channel)}`);
      const last = ch.lastChannel;
      if (typeof last !== 'number' || !Number.isInteger(last) || last < width || last >= MAX_WIDTH) {
        bad(`${path}.lastChannel`, `lastChannel must be an integer from ${width} (its "channel") to ${MAX_WIDTH - 1}, got ${describe(last)}`);
      }
      if (!Array.isArray(list) || list.length > 0) bad(`${path}.partitions`, `a run of channels (with "lastChannel") has no partition: "partitions" must be [], got ${describe(list)}`);
      width = last + 1;
    } else width++;
    if (width > MAX_WIDTH) bad(at('channels'), `a plan may have at most ${MAX_WIDTH} channels`);
  }
  return { width, ids };
}

/** The last channel of an entry that is a run of idle channels (checked by measure), else undefined. */
function idleRunEnd(ch: unknown): number | undefined {
  return isObject(ch) && present(ch.lastChannel) ? (ch.lastChannel as number) : undefined;
}

/** A channel's ids as written (checked by the caller), and the path that names them in errors. */
function channelList(ch: unknown, c: number, path: string): { list: ArrayLike<unknown>; listPath: string } {
  if (typeof ch === 'string') return { list: readSplList(ch, path), listPath: path };
  let list: unknown = ch;
  let listPath = path;
  if (isObject(ch)) {
    if (present(ch.channel) && ch.channel !== c) bad(`${path}.channel`, `channel ${describe(ch.channel)} is listed at position ${c}; channels must be listed in order 0, 1, 2, ...`);
    list = ch.partitions;
    listPath = `${path}.partitions`;
    if (typeof list === 'string') return { list: readSplList(list, listPath), listPath };
  }
  if (!Array.isArray(list)) bad(listPath, `a channel is a list of partition ids (or {"partitions": [...]}), got ${describe(list)}`);
  return { list, listPath };
}

/** `partition: 0, 1;` or `0, 1` as in SPL. */
function readSplList(text: string, path: string): ArrayLike<number> {
  const body = text.trim().replace(/^partition\s*:/, '').replace(/;\s*$/, '').trim();
  if (body === '') return new Int32Array(0);
  const items = body.split(',');
  const out: number[] = [];
  let wide = false;
  items.forEach((item, i) => {
    const t = item.trim();
    if (!/^[+-]?\d+$/.test(t)) bad(`${path}[${i}]`, `a partition id must be an integer, got ${describe(t)} (item ${i + 1} of ${describe(text)})`);
    const v = Number(t);
    if (!Number.isFinite(v)) bad(`${path}[${i}]`, `partition id ${describe(t)} is too large to represent (item ${i + 1} of ${describe(text)})`);
    if (v < INT32_MIN || v > INT32_MAX) wide = true;
    out.push(v === 0 ? 0 : v);
  });
  return wide ? out : Int32Array.from(out);
}

/**
 * Where channel c is written in the plan's "channels": its number, less the channels the runs of
 * idle channels before it fold into one entry each (`{"channel": 1, "lastChannel": 5}` is one entry
 * for five channels). Findings and refusals name this position, as the file has it.
 */
export function writtenEntry(input: Pick<PlanInput, 'idleRuns'>, c: number): number {
  const runs = input.idleRuns;
  if (runs === undefined) return c;
  let entry = c;
  for (let i = 0; i < runs.length && runs[i]! < c; i += 2) entry -= Math.min(c, runs[i + 1]!) - runs[i]!;
  return entry;
}

function count(v: unknown, path: string, what: string, min = 1): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > MAX_PLAN_PARTITIONS) {
    bad(path, `${what} must be an integer in [${min}, ${MAX_PLAN_PARTITIONS}], got ${describe(v)}`);
  }
  return v;
}

/** An optional field is present when it is neither left out nor null (docs/formats.md: null is absent). */
function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** The plan's members without those that are null: every optional member reads null as absent. */
function withoutNulls(o: Record<string, unknown>): Record<string, unknown> {
  // No prototype: a member named __proto__ stays a member (it would set the prototype of {}).
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(o)) if (o[k] !== null) out[k] = o[k];
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bad(path: string, message: string): never {
  throw new AssignorError('E_PLAN', `${message} (at ${path})`, path);
}
