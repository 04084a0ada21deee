// SPL a Streams developer can paste, in the shapes of the use-case document:
//  - the @parallel form, computing each channel's list from getChannel() (the
//    document's 1-to-1 and 2-to-1 forms, generalised to every layout: k-to-1,
//    contiguous blocks of any remainder, round-robin, flink, folded plans, and an
//    indexed list literal for custom plans);
//  - manual invocation, one consumer per channel with its literal list;
//  - k-ary composites with $partition1..k (SinglePartitionConsumer,
//    TwoPartitionConsumer, ...), invoked either way;
//  - submission-time width: $width and $nPartitions from getSubmissionTimeValue,
//    with a guard operator that fails the job when the partition count differs;
//  - consistent regions (one per channel), the JobControlPlane and groupId.
// Every getChannel() form is compiled and evaluated for every channel (spl-eval.ts)
// before it is printed; a form that cannot be given is replaced by a comment
// saying why. Output comes in pieces so a 67-million-partition list streams.
import { INT32_MAX, javaStringHash } from '../basics.js';
import { AssignorError, describe } from '../errors.js';
import { CHUNK } from './json.js';
import { channelPartitions, flinkStartIndex, planChannels, type ChannelPlan, type Strategy } from './plan.js';
import { idsOf, joinedIds } from './ranges.js';
import { compileSpl, type SplEnv } from './spl-eval.js';

/** Most partition expressions one channel's list (or one composite) may take in a generated form. */
export const MAX_FORM_ARITY = 1024;
/** Most numbers an indexed-list form may write in total (items x channels). */
export const MAX_LIST_TERMS = 1_000_000;
/** Most item evaluations the submission-time form's check spends across widths. */
const SUBMISSION_CHECK_BUDGET = 4_000_000;

export type ConsistentTrigger = 'operatorDriven' | 'periodic';

export interface SplOptions {
  /**
   * Pad the lists to the longest by repeating the channel's first partition when
   * they differ in length (the document's `4, 4`). Equal lists stay as they are
   * (1-to-1 stays `0`), except a one-partition topic, which gets the document's
   * `0, 0` (its 2-to-1 form evaluated with `$nPartitions: 1`).
   */
  fixedArity?: boolean;
  /** Pad every list to exactly this many entries (at least the longest list). */
  arity?: number;
  /** propertiesFile parameter of each consumer. */
  propertiesFile?: string;
  /** The document's style: a k-ary composite (`$partition1..k`) invoked by a main composite. */
  composite?: boolean;
  /** Width and partition count from getSubmissionTimeValue, with a guard (implies `composite`). */
  submissionTime?: boolean;
  /** submissionTime: the smallest width the file must serve (default: the plan's width). */
  minWidth?: number;
  /** Emit @consistent (one region per channel) and the JobControlPlane. */
  consistentRegion?: ConsistentTrigger;
  /** operatorDriven: tuples per consistent state (the document uses 1000). */
  triggerCount?: number;
  /** periodic: seconds between consistent states (the document shows 60.0). */
  period?: number;
  /** groupId parameter of each consumer (committed offsets only: with a partition list it assigns, it does not join a group). */
  groupId?: string;
}

/** A getChannel() form: one expression per list entry, or the reason there is none. */
export type Form = { items: string[]; note?: string } | { omitted: string };

export function emitSpl(plan: ChannelPlan, options: SplOptions = {}): string {
  return [...splChunks(plan, options)].join('');
}

/** emitSpl in pieces of about CHUNK characters. Throws E_USAGE when a requested form cannot be made (with the reason). */
export function* splChunks(plan: ChannelPlan, options: SplOptions = {}): Generator<string> {
  const o = resolve(plan, options);
  const head = headLines(plan, o);
  if (options.submissionTime) {
    yield* submissionFile(plan, o, head);
    return;
  }
  const form = parallelForm(plan, o.arity);
  if (o.composite) yield* compositeFile(plan, o, head, form);
  else yield* fragments(plan, o, head, form);
}

interface Resolved {
  props: string;
  topic: string;
  /** Entries per list: the longest list, or the requested fixed arity. */
  arity: number;
  /** Pad manual lists to `arity`. */
  pad: boolean;
  composite: boolean;
  consistent?: ConsistentTrigger;
  triggerCount: number;
  period: number;
  groupId?: string;
  minWidth: number;
}

function resolve(plan: ChannelPlan, options: SplOptions): Resolved {
  let longest = 0;
  for (let c = 0; c < plan.width; c++) longest = Math.max(longest, plan.offsets[c + 1]! - plan.offsets[c]!);
  let arity = longest;
  // The document's 2-to-1 form gives `0, 0` for one partition; every other even layout needs no padding.
  if (options.fixedArity && plan.partitions === 1) arity = Math.max(longest, 2);
  if (options.arity !== undefined) {
    // Padding beyond the longest list only serves composites, which take at most MAX_FORM_ARITY parameters.
    const most = Math.max(longest, MAX_FORM_ARITY);
    if (!Number.isInteger(options.arity) || options.arity < longest || options.arity < 1 || options.arity > most) {
      throw new AssignorError('E_USAGE', `arity must be an integer from ${Math.max(1, longest)} (the longest channel list) to ${most}, got ${describe(options.arity)}`, 'arity');
    }
    arity = options.arity;
  }
  const composite = !!options.composite || !!options.submissionTime;
  if (composite && arity > MAX_FORM_ARITY) {
    throw new AssignorError(
      'E_USAGE',
      `a composite takes one parameter per list entry, and a channel here lists ${arity} partitions, more than the ${MAX_FORM_ARITY} a generated composite may take; use the SPL without composites, or more channels`,
      'composite',
    );
  }
  const triggerCount = options.triggerCount ?? 1000;
  if (!Number.isInteger(triggerCount) || triggerCount < 1 || triggerCount > INT32_MAX) throw new AssignorError('E_USAGE', `triggerCount must be a positive int32, got ${describe(triggerCount)}`, 'triggerCount');
  const period = options.period ?? 60;
  if (!Number.isFinite(period) || period <= 0) throw new AssignorError('E_USAGE', `period must be a positive number of seconds, got ${describe(period)}`, 'period');
  const minWidth = options.minWidth ?? plan.width;
  if (!Number.isInteger(minWidth) || minWidth < 1 || minWidth > plan.width) {
    throw new AssignorError('E_USAGE', `minWidth must be an integer in [1, ${plan.width}] (the plan's width), got ${describe(minWidth)}`, 'minWidth');
  }
  for (const k of ['propertiesFile', 'groupId'] as const) {
    if (options[k] !== undefined && typeof options[k] !== 'string') throw new AssignorError('E_USAGE', `${k} must be a string, got ${describe(options[k])}`, k);
  }
  if (options.consistentRegion !== undefined && options.consistentRegion !== 'operatorDriven' && options.consistentRegion !== 'periodic') {
    throw new AssignorError('E_USAGE', `consistentRegion must be operatorDriven or periodic, got ${describe(options.consistentRegion)}`, 'consistentRegion');
  }
  const r: Resolved = {
    props: options.propertiesFile ?? 'etc/consumer.properties',
    topic: plan.topic ?? 'myTopic',
    arity,
    pad: options.fixedArity === true || options.arity !== undefined || composite,
    composite,
    triggerCount,
    period,
    minWidth,
  };
  if (options.consistentRegion !== undefined) r.consistent = options.consistentRegion;
  if (options.groupId !== undefined) r.groupId = options.groupId;
  return r;
}

function headLines(plan: ChannelPlan, o: Resolved): string[] {
  const lines = [
    `// assignor channels: ${plan.partitions} partitions of ${plan.topic === null ? 'the topic (name it with --topic; "myTopic" below)' : JSON.stringify(plan.topic)}, width ${plan.width}, strategy ${plan.strategy}${plan.basePartitions !== plan.partitions ? `, folded on base ${plan.basePartitions}` : ''}`,
  ];
  for (const w of plan.warnings) lines.push(`// warning: ${w}`);
  if (o.consistent !== undefined) {
    lines.push(
      o.consistent === 'operatorDriven'
        ? `// Consistent regions, operator driven: one region per channel, each driven by its own consumer every ${o.triggerCount} tuples (a region can have only one operator-driven source).`
        : `// Consistent regions, periodic (every ${fmtPeriod(o.period)} s): one region per channel. (A single region over all channels is also possible: put @consistent on the composite that contains the parallel region.)`,
    );
  }
  if (o.groupId !== undefined) lines.push(`// groupId ${JSON.stringify(o.groupId)}: with a partition list the consumers assign their partitions; the group only keeps the committed offsets.`);
  return lines;
}

function fmtPeriod(p: number): string {
  return Number.isInteger(p) ? p.toFixed(1) : String(p);
}

function consistentLine(o: Resolved, indent: string): string[] {
  if (o.consistent === undefined) return [];
  return [o.consistent === 'operatorDriven' ? `${indent}@consistent (trigger = operatorDriven)` : `${indent}@consistent (trigger = periodic, period = ${fmtPeriod(o.period)})`];
}

/** Parameters of a KafkaConsumer after `partition:`. */
function consumerTail(o: Resolved, indent: string): string {
  let s = '';
  if (o.groupId !== undefined) s += `${indent}groupId: ${JSON.stringify(o.groupId)};\n`;
  if (o.consistent === 'operatorDriven') s += `${indent}triggerCount: ${o.triggerCount};\n`;
  return `${s}${indent}outputMessageAttributeName: "json";\n`;
}

// ---------------------------------------------------------------------------
// Plain SPL: operator invocations to paste into a graph clause.

function* fragments(plan: ChannelPlan, o: Resolved, head: string[], form: Form): Generator<string> {
  const lines = [...head];
  if (o.consistent !== undefined) lines.push('// A consistent region needs the JobControlPlane once in the application graph:', '() as JCP = JobControlPlane() {}');
  if ('items' in form) {
    lines.push('// Two alternatives follow: the @parallel form and the manual invocations. Use one, not both.');
    lines.push('');
    lines.push(`// @parallel form: each channel computes its own ${form.items.length} partition(s) from getChannel().`);
    if (form.note !== undefined) lines.push(`// ${form.note}`);
    lines.push(...consistentLine(o, ''));
    lines.push(`@parallel (width = ${plan.width})`);
    lines.push(`stream<rstring json> Messages = KafkaConsumer() {`);
    lines.push('    param', `        propertiesFile: ${JSON.stringify(o.props)};`, `        topic: ${JSON.stringify(o.topic)};`, `        partition: ${form.items.join(', ')};`);
    lines.push(`${consumerTail(o, '        ')}    config placement: partitionExlocation("A");`, '}');
  } else {
    lines.push(`// No form for a parallel region: ${form.omitted}.`);
  }
  lines.push('');
  lines.push('// Manual invocation: one KafkaConsumer per channel; together they read every partition exactly once.');
  yield `${lines.join('\n')}\n`;
  const open = (c: number): string =>
    `${consistentLine(o, '').map((l) => `${l}\n`).join('')}stream<rstring json> Channel${c} = KafkaConsumer() {\n    param\n        propertiesFile: ${JSON.stringify(o.props)};\n        topic: ${JSON.stringify(o.topic)};\n        partition: `;
  const close = `;\n${consumerTail(o, '        ')}    config placement: partitionExlocation("A");\n}\n`;
  yield* perChannel(plan, o, '', (c, own) => [open(c), listPieces(own, o), close]);
}

/**
 * One block per channel, `block(c, partitions)` giving its pieces; a run of idle
 * channels gets one comment instead (67 million idle channels are one line).
 */
function* perChannel(plan: ChannelPlan, o: Resolved, indent: string, block: (c: number, own: Int32Array) => (string | Iterable<string>)[]): Generator<string> {
  let buf = '';
  for (let c = 0; c < plan.width; c++) {
    const own = channelPartitions(plan, c);
    if (own.length === 0) {
      let last = c;
      while (last + 1 < plan.width && plan.offsets[last + 1] === plan.offsets[last + 2]) last++;
      buf +=
        last === c
          ? `${indent}// channel ${c}: no partition. Do not invoke a consumer for it: without a partition list it would join a consumer group.\n`
          : `${indent}// channels ${c}-${last}: no partition. Do not invoke consumers for them: without a partition list they would join a consumer group.\n`;
      c = last;
      continue;
    }
    for (const piece of block(c, own)) {
      if (typeof piece === 'string') buf += piece;
      else {
        yield buf;
        buf = '';
        yield* piece;
      }
    }
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  if (buf !== '') yield buf;
}

/** A manual list, padded to the arity when asked, as one string or in pieces when long. */
function listPieces(own: Int32Array, o: Resolved): string | Iterable<string> {
  const pad = o.pad ? o.arity - own.length : 0;
  if (own.length + pad <= 4096) {
    let s = own.join(', ');
    for (let i = 0; i < pad; i++) s += `, ${own[0]}`;
    return s;
  }
  return (function* () {
    yield* joinedIds(idsOf(own), ', ', CHUNK);
    yield* padding(own[0]!, pad);
  })();
}

function* padding(p: number, count: number): Generator<string> {
  const piece = `, ${p}`.repeat(Math.min(count, 8192));
  for (let done = 0; done < count; done += 8192) yield count - done >= 8192 ? piece : `, ${p}`.repeat(count - done);
}

// ---------------------------------------------------------------------------
// The document's composites.

/** Name and parameter names of the k-ary consumer composite. */
function compositeOf(k: number): { name: string; params: string[] } {
  if (k === 1) return { name: 'SinglePartitionConsumer', params: ['partition'] };
  const params = Array.from({ length: k }, (_, i) => `partition${i + 1}`);
  return { name: k === 2 ? 'TwoPartitionConsumer' : `PartitionConsumer${k}`, params };
}

function consumerComposite(o: Resolved): string {
  const { name, params } = compositeOf(o.arity);
  return [
    `public composite ${name} {`,
    'param',
    '    expression <rstring> $topic;',
    ...params.map((p) => `    expression <int32> $${p};`),
    'graph',
    '    stream <rstring json> Messages = KafkaConsumer() {',
    '        param',
    `            propertiesFile: ${JSON.stringify(o.props)};`,
    '            topic: $topic;',
    `            partition: ${params.map((p) => `$${p}`).join(', ')};`,
    `${consumerTail(o, '            ')}    }`,
    '',
    '    // ... any other processing including the Sink for the stream',
    '    () as X = Custom (Messages) {',
    '    }',
    '}',
    '',
  ].join('\n');
}

function invocation(o: Resolved, name: string, values: string[], parallelWidth: string | null): string {
  const { name: composite, params } = compositeOf(o.arity);
  return [
    ...consistentLine(o, '    '),
    ...(parallelWidth === null ? [] : [`    @parallel (width = ${parallelWidth})`]),
    `    () as ${name} = ${composite}() {`,
    '        param',
    `            topic: ${JSON.stringify(o.topic)};`,
    ...params.map((p, i) => `            ${p}: ${values[i]};`),
    '        config placement: partitionExlocation("A");',
    '    }',
    '',
  ].join('\n');
}

function* compositeFile(plan: ChannelPlan, o: Resolved, head: string[], form: Form): Generator<string> {
  const main = `Assigned${plan.partitions}Partitions`;
  const jcp = o.consistent !== undefined ? ['    () as JCP = JobControlPlane() {}', ''] : [];
  const lines = [...head];
  if ('items' in form) {
    lines.push(`// Two main composites follow: ${main} (the @parallel form) and ${main}Manual (one invocation per channel). Compile one of them.`);
    lines.push('');
    lines.push(`// @parallel form: each channel computes its own ${form.items.length} partition(s) from getChannel().`);
    if (form.note !== undefined) lines.push(`// ${form.note}`);
    lines.push(`public composite ${main} {`, 'graph', ...jcp, invocation(o, 'PartitionChannel', form.items, String(plan.width)) + '}', '');
  } else {
    lines.push(`// No form for a parallel region: ${form.omitted}.`, '');
  }
  lines.push(`// Manual invocation: one ${compositeOf(o.arity).name} per channel; together they read every partition exactly once.`);
  lines.push(`public composite ${main}Manual {`, 'graph', ...jcp);
  yield `${lines.join('\n')}\n`;
  yield* perChannel(plan, o, '    ', (c, own) => [invocation(o, `Channel${c}`, Array.from({ length: o.arity }, (_, i) => String(i < own.length ? own[i]! : own[0]!)), null)]);
  yield `}\n\n${consumerComposite(o)}`;
}

// ---------------------------------------------------------------------------
// Forms with the plan's literal width.

/**
 * The getChannel() expressions of the plan's lists (`arity` entries each,
 * padded with the first), or the reason there are none. Checked by evaluation.
 */
export function parallelForm(plan: ChannelPlan, arity = 0): Form {
  const b = plan.basePartitions;
  const w = plan.width;
  const idle = firstIdle(plan);
  if (idle >= 0) {
    return {
      omitted:
        w > plan.partitions
          ? `width ${w} is more than the ${plan.partitions} partitions, and every channel of a parallel region runs a consumer; one with no partition would join a consumer group instead. Use a width of at most ${plan.partitions}`
          : `channel ${idle} has no partition, and every channel of a parallel region runs a consumer; one with no partition would join a consumer group instead`,
    };
  }
  const folds = plan.partitions / b;
  let k = 0;
  for (let c = 0; c < w; c++) k = Math.max(k, plan.offsets[c + 1]! - plan.offsets[c]!);
  const entries = Math.max(k, arity);
  if (entries > MAX_FORM_ARITY) {
    return { omitted: `each channel would list ${entries} partition expressions, more than the ${MAX_FORM_ARITY} this form allows; use the manual invocation` };
  }
  let base: string[];
  let note: string | undefined;
  const s = rotationStart(plan);
  if (plan.strategy === 'contiguous') {
    base = contiguousItems(b, w);
  } else if ((plan.strategy === 'round-robin' || plan.strategy === 'flink') && s !== null) {
    base = rotateItems(b, w, s);
  } else {
    const kb = k / folds;
    if (kb * w > MAX_LIST_TERMS) return { omitted: `the plan is custom, and its indexed-list form would write ${kb * w} numbers, more than ${MAX_LIST_TERMS}; use the manual invocation` };
    base = listItems(plan, kb);
    note = 'A custom plan has no arithmetic rule: each entry indexes a list literal with getChannel().';
  }
  const items: string[] = [];
  for (let j = 0; j < folds; j++) for (const it of base) items.push(j === 0 ? it : `${it} + ${j * b}`);
  while (items.length < arity) items.push(items[0]!);
  const wrong = checkForm(plan, items, { width: w, nPartitions: plan.partitions });
  if (wrong !== null) return { omitted: `the expressions did not reproduce the plan when evaluated (${wrong}); this is a bug, please report it` };
  if (!evenLists(plan)) note = `${note === undefined ? '' : `${note} `}Short channels repeat a partition (e.g. \`4, 4\`); the operator collapses the repeat.`;
  else if (items.length > k) note = `${note === undefined ? '' : `${note} `}Lists are padded to ${items.length} entries by repeating the first partition; the operator collapses the repeat.`;
  return note === undefined ? { items } : { items, note };
}

function evenLists(plan: ChannelPlan): boolean {
  const k = plan.offsets[1]! - plan.offsets[0]!;
  for (let c = 1; c < plan.width; c++) if (plan.offsets[c + 1]! - plan.offsets[c]! !== k) return false;
  return true;
}

function firstIdle(plan: ChannelPlan): number {
  for (let c = 0; c < plan.width; c++) if (plan.offsets[c] === plan.offsets[c + 1]) return c;
  return -1;
}

/** The channel of partition 0 for rotating strategies (flink's start index), or null when the plan lacks it. */
function rotationStart(plan: ChannelPlan): number | null {
  if (plan.strategy === 'round-robin') return 0;
  if (plan.strategy !== 'flink') return null;
  return plan.startIndex ?? (plan.channelOf.length > 0 ? plan.channelOf[0]! : null);
}

const CH = 'getChannel()';

/**
 * Contiguous blocks of B partitions on W channels: q = B / W, r = B % W, the
 * first r channels one larger. When r is 0 or W - 1 the document's shapes
 * (1-to-1, 2-to-1 with the guard that gives `4, 4`); otherwise the start of a
 * block is c * q + (c < r ? c : r) and the last entry repeats the first on the
 * short channels.
 */
function contiguousItems(b: number, w: number): string[] {
  const q = Math.floor(b / w);
  const r = b % w;
  const k = Math.ceil(b / w);
  const items: string[] = [];
  if (r === 0 || r === w - 1) {
    const first = k === 1 ? CH : `${CH} * ${k}`;
    for (let i = 0; i < k; i++) {
      if (i === 0) items.push(first);
      else if (r === 0) items.push(`${first} + ${i}`);
      else items.push(`${first} + ((${first} + ${i}) > ${b - 1} ? 0 : ${i})`);
    }
    return items;
  }
  const first = `${q === 1 ? CH : `${CH} * ${q}`} + (${CH} < ${r} ? ${CH} : ${r})`;
  for (let i = 0; i < k; i++) {
    if (i === 0) items.push(first);
    else if (i < q) items.push(`${first} + ${i}`);
    else items.push(`${first} + (${CH} < ${r} ? ${i} : 0)`);
  }
  return items;
}

/** Round-robin and flink: channel c owns f, f + W, f + 2W, ... with f = (c + W - s) % W. */
function rotateItems(b: number, w: number, s: number): string[] {
  const k = Math.ceil(b / w);
  const first = s === 0 ? CH : `((${CH} + ${w - s}) % ${w})`;
  const items: string[] = [];
  for (let i = 0; i < k; i++) {
    const step = i * w;
    if (i === 0) items.push(first);
    else if (b % w === 0 || i < k - 1) items.push(`${first} + ${step}`);
    else items.push(`${first} + ((${first} + ${step}) > ${b - 1} ? 0 : ${step})`);
  }
  return items;
}

/** Any layout: entry i of channel c is [p_0_i, p_1_i, ...][getChannel()], short lists repeating their first. */
function listItems(plan: ChannelPlan, kb: number): string[] {
  const b = plan.basePartitions;
  const baseLists: number[][] = Array.from({ length: plan.width }, () => []);
  for (let p = 0; p < b; p++) baseLists[plan.channelOf[p]!]!.push(p);
  const items: string[] = [];
  for (let i = 0; i < kb; i++) items.push(`[${baseLists.map((l) => (i < l.length ? l[i]! : l[0]!)).join(', ')}][${CH}]`);
  return items;
}

/**
 * Evaluates `items` for every channel and compares the distinct values with the
 * plan's lists; null when they match, else what differed.
 */
function checkForm(plan: ChannelPlan, items: string[], env: Omit<SplEnv, 'channel'>): string | null {
  let compiled: ((e: SplEnv) => number)[];
  try {
    compiled = items.map((t) => compileSpl(t));
  } catch (e) {
    return (e as Error).message;
  }
  const buf = new Float64Array(items.length);
  const e: SplEnv = { channel: 0, ...env };
  for (let c = 0; c < env.width; c++) {
    e.channel = c;
    try {
      for (let i = 0; i < compiled.length; i++) buf[i] = compiled[i]!(e);
    } catch (err) {
      return `channel ${c}: ${(err as Error).message}`;
    }
    const own = channelPartitions(plan, c);
    if (!sameSet(buf, own)) return `channel ${c} would read ${formatSet(buf)} instead of ${formatSet(own)}`;
  }
  return null;
}

/** True when the distinct values of `got` are exactly the ascending, distinct `want`. */
function sameSet(got: Float64Array, want: ArrayLike<number>): boolean {
  let sorted = true;
  for (let i = 1; i < got.length; i++) if (got[i]! < got[i - 1]!) sorted = false;
  const g = sorted ? got : got.slice().sort();
  let j = 0;
  for (let i = 0; i < g.length; i++) {
    if (i > 0 && g[i] === g[i - 1]) continue;
    if (j >= want.length || g[i] !== want[j]) return false;
    j++;
  }
  return j === want.length;
}

function formatSet(v: ArrayLike<number>): string {
  const a = Array.from(v).slice(0, 12);
  return `${a.join(', ')}${v.length > 12 ? ', ...' : ''}`;
}

// ---------------------------------------------------------------------------
// Submission-time width.

export interface SubmissionForm {
  items: string[];
  /** Widths the file serves: each channel lists at most items / folds partitions of the base. */
  lowWidth: number;
  highWidth: number;
  /** Widths at which every channel's evaluation was compared with the plan for that width. */
  checkedWidths: number[];
}

/**
 * Expressions in $width and $nPartitions (the fold base literally when the plan
 * is folded) for every width from lowWidth to highWidth; or the reason there are none.
 */
export function submissionForm(plan: ChannelPlan, minWidth = plan.width, arity = 0): SubmissionForm | { omitted: string } {
  if (plan.strategy === 'custom') return { omitted: 'a custom plan has lists for its own width only; make one per width with channels plan, or use a strategy' };
  const strategy: Strategy = plan.strategy;
  if (strategy === 'flink' && plan.topic === null) return { omitted: "the flink start index depends on the width and comes from the topic's name, which the plan does not give" };
  const form = parallelForm(plan, arity);
  if ('omitted' in form) return form;
  const b = plan.basePartitions;
  const folds = plan.partitions / b;
  const kb = Math.ceil(b / minWidth);
  const entries = Math.max(kb * folds, arity);
  if (entries > MAX_FORM_ARITY) return { omitted: `at width ${minWidth} each channel would list ${kb * folds} partition expressions, more than the ${MAX_FORM_ARITY} this form allows` };
  const lowWidth = Math.ceil(b / kb);
  const highWidth = b;
  const nb = b === plan.partitions ? '$nPartitions' : String(b);
  let base: string[];
  if (strategy === 'contiguous') {
    const q = `(${nb} / $width)`;
    const r = `(${nb} % $width)`;
    const first = `${CH} * ${q} + (${CH} < ${r} ? ${CH} : ${r})`;
    base = Array.from({ length: kb }, (_, i) => (i === 0 ? first : `${first} + (${i} < ${q} + (${CH} < ${r} ? 1 : 0) ? ${i} : 0)`));
  } else {
    const h = strategy === 'flink' ? Math.imul(javaStringHash(plan.topic!), 31) & 0x7fffffff : 0;
    const f = strategy === 'flink' ? `((${CH} + $width - ${h} % $width) % $width)` : CH;
    base = Array.from({ length: kb }, (_, i) => (i === 0 ? f : `${f} + ((${f} + ${i} * $width) > ${nb} - 1 ? 0 : ${i} * $width)`));
  }
  const items: string[] = [];
  for (let j = 0; j < folds; j++) for (const it of base) items.push(j === 0 ? it : `${it} + ${j * b}`);
  while (items.length < arity) items.push(items[0]!);

  // Check every width when it is cheap, else the plan's, both ends and an even spread.
  const all = highWidth - lowWidth + 1;
  const cost = (wd: number): number => plan.partitions + wd * items.length;
  const total = all * plan.partitions + (items.length * (lowWidth + highWidth) * all) / 2;
  const widths: number[] = [];
  if (total <= SUBMISSION_CHECK_BUDGET) for (let wd = lowWidth; wd <= highWidth; wd++) widths.push(wd);
  else {
    const pick = new Set<number>([plan.width, lowWidth, highWidth]);
    let spent = [...pick].reduce((a, wd) => a + cost(wd), 0);
    for (let step = 1; step < 64; step++) {
      const wd = lowWidth + Math.round((step * (all - 1)) / 64);
      if (pick.has(wd) || spent + cost(wd) > SUBMISSION_CHECK_BUDGET) continue;
      pick.add(wd);
      spent += cost(wd);
    }
    widths.push(...[...pick].sort((x, y) => x - y));
  }
  for (const wd of widths) {
    const at = wd === plan.width ? plan : layoutAt(plan, strategy, wd);
    const wrong = checkForm(at, items, { width: wd, nPartitions: plan.partitions });
    if (wrong !== null) return { omitted: `the expressions did not reproduce the plan at width ${wd} when evaluated (${wrong}); this is a bug, please report it` };
  }
  return { items, lowWidth, highWidth, checkedWidths: widths };
}

/** The plan's strategy at width `w` on the same base, folded to the same partition count. */
function layoutAt(plan: ChannelPlan, strategy: Strategy, w: number): ChannelPlan {
  const b = plan.basePartitions;
  const base = planChannels({ partitions: b, width: w, strategy, ...(plan.topic !== null ? { topic: plan.topic } : {}) });
  if (b === plan.partitions) return base;
  const folds = plan.partitions / b;
  const channelOf = new Int32Array(plan.partitions);
  for (let p = 0; p < plan.partitions; p++) channelOf[p] = base.channelOf[p % b]!;
  const offsets = base.offsets.map((x) => x * folds);
  const members = new Int32Array(plan.partitions);
  for (let c = 0; c < w; c++) {
    const own = channelPartitions(base, c);
    let k = offsets[c]!;
    for (let j = 0; j < folds; j++) for (let i = 0; i < own.length; i++) members[k++] = own[i]! + j * b;
  }
  return { ...base, partitions: plan.partitions, channelOf, offsets, members };
}

function* submissionFile(plan: ChannelPlan, o: Resolved, head: string[]): Generator<string> {
  const form = submissionForm(plan, o.minWidth, o.arity);
  if ('omitted' in form) throw new AssignorError('E_USAGE', `no submission-time form for this plan: ${form.omitted}`, 'submission-time');
  // The composite takes one parameter per entry, and a narrower width needs more entries.
  o = { ...o, arity: form.items.length };
  const n = plan.partitions;
  const main = `Assigned${n}Partitions`;
  const { lowWidth: lo, highWidth: hi } = form;
  const all = hi - lo + 1;
  const checked = form.checkedWidths.length === all ? `every width from ${lo} to ${hi}` : `widths ${form.checkedWidths.join(', ')} of ${lo}-${hi} (the check is capped)`;
  const lines = [
    ...head,
    `// Submission-time form: one file for any width from ${lo} to ${hi}: submit with -P width=W (and -P nPartitions=${n}).`,
    `// The partition expressions were evaluated for every channel at ${checked}.`,
    `// PlanGuard fails the job (abort()) when nPartitions is not ${n}, the count this plan was made for, or the width is outside ${lo}-${hi}.`,
    '',
    `public composite ${main} {`,
    'param',
    `    expression <int32> $nPartitions: (int32) getSubmissionTimeValue("nPartitions", "${n}");`,
    `    expression <int32> $width: (int32) getSubmissionTimeValue("width", "${plan.width}");`,
    'graph',
    ...(o.consistent !== undefined ? ['    () as JCP = JobControlPlane() {}', ''] : []),
    `    // Adding partitions changes which channel reads which key; a different count needs a new plan (assignor channels expand).`,
    '    () as PlanGuard = Custom() {',
    '        logic',
    '            onProcess: {',
    `                if ($nPartitions != ${n}) {`,
    `                    appLog(Log.error, "nPartitions is " + (rstring) $nPartitions + " but this job was generated for ${n} partitions: regenerate it with assignor channels");`,
    '                    abort();',
    '                }',
    `                if ($width < ${lo} || $width > ${hi}) {`,
    `                    appLog(Log.error, "width is " + (rstring) $width + " but this job serves widths ${lo} to ${hi}: regenerate it with assignor channels");`,
    '                    abort();',
    '                }',
    '            }',
    '    }',
    '',
    invocation(o, 'PartitionChannel', form.items, '$width') + '}',
    '',
    consumerComposite(o),
  ];
  yield lines.join('\n');
}
