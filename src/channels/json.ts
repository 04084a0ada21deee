// The plan JSON format (docs/channels.md): emitting a ChannelPlan, and reading
// plans back, including hand-written ones. Reading keeps the channel lists as
// written (flat typed arrays, duplicates kept) and names the place of any error.
import { AssignorError, describe } from '../errors.js';
import { channelPartitions, MAX_PLAN_PARTITIONS, MAX_WIDTH, STRATEGIES, type ChannelPlan, type PlanStrategy } from './plan.js';

export const PLAN_FORMAT = 'assignor-channel-plan';
export const PLAN_VERSION = 1;

/** The JSON shape of a plan (what `channels plan --emit json` prints). */
export interface PlanJson {
  format: typeof PLAN_FORMAT;
  version: typeof PLAN_VERSION;
  strategy: PlanStrategy;
  topic: string | null;
  partitions: number;
  basePartitions: number;
  width: number;
  startIndex?: number;
  channels: { channel: number; partitions: number[] }[];
  warnings: string[];
  [extra: string]: unknown;
}

export function planToJson(plan: ChannelPlan): PlanJson {
  const channels: PlanJson['channels'] = [];
  for (let c = 0; c < plan.width; c++) channels.push({ channel: c, partitions: Array.from(channelPartitions(plan, c)) });
  const out: PlanJson = {
    format: PLAN_FORMAT,
    version: PLAN_VERSION,
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
 * One line per channel so a 10,000-channel plan stays diffable and greppable;
 * still one valid JSON document.
 */
export function planJsonText(json: Record<string, unknown> & { channels: unknown[] }): string {
  const { channels, ...head } = json;
  const headText = JSON.stringify(head, null, 2);
  const lines = channels.map((c) => `    ${JSON.stringify(c)}`);
  const body = lines.length === 0 ? '[]' : `[\n${lines.join(',\n')}\n  ]`;
  // Put "channels" back as the last member of the object.
  return `${headText.slice(0, -2)},\n  "channels": ${body}\n}\n`;
}

/** A plan as read from JSON: channel lists exactly as written, flattened. */
export interface PlanInput {
  width: number;
  /** The channel lists end to end, as written (duplicates kept). */
  entryPartition: Int32Array;
  /** Channel c's entries are entryPartition[start[c] .. start[c + 1]). */
  start: Int32Array;
  partitions?: number;
  basePartitions?: number;
  strategy?: PlanStrategy;
  topic?: string | null;
  startIndex?: number;
  /** Channel lists given as SPL text (`"partition: 0, 1;"`) are reported with this path form. */
  stringChannels: boolean[];
}

/** What a hand-written plan may be: `{channels: [...]}`, or just the array of channels. */
export type PlanLike = unknown;

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * Reads a plan. Each channel is `{"partitions": [...]}` (optionally with
 * `"channel": i` equal to its position), a bare array `[0, 1]`, or SPL text
 * `"partition: 4, 4;"`. Partition ids must be integers; ids outside the topic
 * are findings for validate, not errors here.
 */
export function readPlan(value: PlanLike, where = ''): PlanInput {
  const at = (p: string): string => (where === '' ? p : `${where}.${p}`);
  const obj: Record<string, unknown> = Array.isArray(value) ? { channels: value } : isObject(value) ? value : bad(where || 'plan', `a plan must be an object with "channels", got ${describe(value)}`);
  if (obj.format !== undefined && obj.format !== PLAN_FORMAT) bad(at('format'), `unknown plan format ${describe(obj.format)}; expected ${JSON.stringify(PLAN_FORMAT)}`);
  if (obj.version !== undefined && obj.version !== PLAN_VERSION) bad(at('version'), `unsupported plan version ${describe(obj.version)}; this build reads version ${PLAN_VERSION}`);
  const channels = obj.channels;
  if (!Array.isArray(channels)) bad(at('channels'), `"channels" must be an array of channel partition lists, got ${describe(channels)}`);
  if (channels.length === 0) bad(at('channels'), 'a plan needs at least one channel');
  if (channels.length > MAX_WIDTH) bad(at('channels'), `a plan may have at most ${MAX_WIDTH} channels`);
  const width = channels.length;
  if (obj.width !== undefined && obj.width !== width) bad(at('width'), `width is ${describe(obj.width)} but ${width} channels are listed`);

  let total = 0;
  const lists: ArrayLike<number>[] = [];
  const stringChannels: boolean[] = [];
  for (let c = 0; c < width; c++) {
    const list = readChannel(channels[c], c, at(`channels[${c}]`));
    lists.push(list);
    stringChannels.push(typeof channels[c] === 'string');
    total += list.length;
  }
  const entryPartition = new Int32Array(total);
  const start = new Int32Array(width + 1);
  let k = 0;
  for (let c = 0; c < width; c++) {
    start[c] = k;
    const list = lists[c]!;
    entryPartition.set(list, k);
    k += list.length;
  }
  start[width] = k;

  const input: PlanInput = { width, entryPartition, start, stringChannels };
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
  if (obj.startIndex !== undefined) input.startIndex = count(obj.startIndex, at('startIndex'), 'startIndex', 0);
  return input;
}

function readChannel(ch: unknown, c: number, path: string): ArrayLike<number> {
  if (typeof ch === 'string') return readSplList(ch, path);
  let list: unknown = ch;
  let listPath = path;
  if (isObject(ch)) {
    if (ch.channel !== undefined && ch.channel !== c) bad(`${path}.channel`, `channel ${describe(ch.channel)} is listed at position ${c}; channels must be listed in order 0, 1, 2, ...`);
    list = ch.partitions;
    listPath = `${path}.partitions`;
    if (typeof list === 'string') return readSplList(list, listPath);
  }
  if (!Array.isArray(list)) bad(listPath, `a channel is a list of partition ids (or {"partitions": [...]}), got ${describe(list)}`);
  const out = new Int32Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) {
      bad(`${listPath}[${i}]`, `a partition id must be an integer, got ${describe(v)}`);
    }
    out[i] = v;
  }
  return out;
}

/** `partition: 0, 1;` or `0, 1` as in SPL. */
function readSplList(text: string, path: string): Int32Array {
  const body = text.trim().replace(/^partition\s*:/, '').replace(/;\s*$/, '').trim();
  if (body === '') return new Int32Array(0);
  const items = body.split(',');
  const out = new Int32Array(items.length);
  items.forEach((item, i) => {
    const t = item.trim();
    if (!/^[+-]?\d+$/.test(t) || Number(t) < INT32_MIN || Number(t) > INT32_MAX) bad(`${path}[${i}]`, `a partition id must be an integer, got ${JSON.stringify(t)} (item ${i + 1} of ${JSON.stringify(text)})`);
    out[i] = Number(t);
  });
  return out;
}

function count(v: unknown, path: string, what: string, min = 1): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > MAX_PLAN_PARTITIONS) {
    bad(path, `${what} must be an integer in [${min}, ${MAX_PLAN_PARTITIONS}], got ${describe(v)}`);
  }
  return v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bad(path: string, message: string): never {
  throw new AssignorError('E_PLAN', `${message} (at ${path})`, path);
}
