// Validation of a (usually hand-written) plan against the topic's real partition
// count: the defects the toolkit itself never checks (missing partitions, a
// partition on two channels, ids beyond the topic, idle channels).
//
// The partitions no channel lists are bounded by the topic (67 million for an
// 8-partition plan checked against --partitions 67108864), not by the input, so
// they are never gathered into a list on the CLI's path: findings keep the
// kernel's per-partition state and the outputs read it in one pass.
import { requireInt } from '../errors.js';
import { loadKernels, type EngineOptions } from '../engine/kernels.js';
import type { ChannelCheck } from '../engine/abi.js';
import { CHUNK, readPlan, writtenEntry, type PlanInput, type PlanLike } from './json.js';
import { MAX_PLAN_PARTITIONS, type ChannelPlan } from './plan.js';
import { clipDots, idsOf, joinedIds, type IdSource } from './ranges.js';

export const REPORT_FORMAT = 'assignor-channel-validation';
/** The report JSON's version when it writes a run of idle channels as [first, last] (else 1). */
export const REPORT_VERSION_RANGES = 2;

export interface ValidationReport {
  format: typeof REPORT_FORMAT;
  version: 1;
  /** True when every partition is consumed by exactly one channel and no id is out of range. */
  sound: boolean;
  partitions: number;
  width: number;
  /** Partitions no channel lists: their data would never be read. */
  missing: number[];
  /** Partitions listed by two or more channels: their data would be read twice. */
  duplicated: { partition: number; channels: number[] }[];
  /** Entries naming a partition the topic does not have; index is the position in the channel's list. */
  outOfRange: { channel: number; index: number; partition: number }[];
  /** Channels with no partition of the topic (warning only). */
  idleChannels: number[];
  /** A partition repeated within one channel, e.g. the `4, 4` padding: harmless, the toolkit collapses it. */
  repeated: { channel: number; partition: number; times: number }[];
  summary: string;
}

/**
 * A validation result whose `missing` list is read from the kernel's state on
 * demand (the CLI streams it); every other list is bounded by the input's size.
 * Idle channels are kept as runs [first, last]: a plan of 1,000 partitions may
 * have 67 million channels, written as a few runs.
 */
export interface Findings extends Omit<ValidationReport, 'missing' | 'idleChannels'> {
  missing: IdSource;
  missingCount: number;
  idleRuns: [number, number][];
  idleCount: number;
  /** The position of channel c in the plan's "channels" as written (a run of idle channels is one entry); absent: c. */
  entryOf?: (c: number) => number;
}

/**
 * Validates a plan: a ChannelPlan, a plan JSON object, `{channels: [...]}` or a
 * bare array of channel lists, against a topic of `partitions` partitions.
 * Throws E_RANGE (partitions) and E_PLAN (malformed plan JSON, naming the place).
 */
export function validatePlan(plan: ChannelPlan | PlanLike, partitions: number, options?: EngineOptions): ValidationReport {
  const n = requireInt(partitions, 1, MAX_PLAN_PARTITIONS, 'partition count', 'partitions');
  return validateInput(toInput(plan), n, options);
}

export function toInput(plan: ChannelPlan | PlanLike | unknown): PlanInput {
  if (isChannelPlan(plan)) {
    // Already flat: members grouped by channel are exactly the entries.
    const input: PlanInput = {
      width: plan.width,
      entryPartition: plan.members,
      start: plan.offsets,
      partitions: plan.partitions,
      basePartitions: plan.basePartitions,
      strategy: plan.strategy,
      topic: plan.topic,
    };
    if (plan.startIndex !== undefined) input.startIndex = plan.startIndex;
    return input;
  }
  return readPlan(plan);
}

function isChannelPlan(p: unknown): p is ChannelPlan {
  return typeof p === 'object' && p !== null && (p as ChannelPlan).channelOf instanceof Int32Array && (p as ChannelPlan).members instanceof Int32Array;
}

/** The full report, every list built (the API's result). */
export function validateInput(input: PlanInput, n: number, options?: EngineOptions): ValidationReport {
  const { missing, missingCount, idleRuns, idleCount, ...rest } = findings(input, n, options);
  const list: number[] = [];
  missing.runs(0, missing.size, (lo, hi) => {
    for (let p = lo; p <= hi; p++) list.push(p);
  });
  const idleChannels: number[] = [];
  for (const [lo, hi] of idleRuns) for (let c = lo; c <= hi; c++) idleChannels.push(c);
  return { format: rest.format, version: rest.version, sound: rest.sound, partitions: rest.partitions, width: rest.width, missing: list, ...restAfterMissing(rest, idleChannels) };
}

function restAfterMissing(r: Omit<Findings, 'missing' | 'missingCount' | 'idleRuns' | 'idleCount'>, idleChannels: number[]): Pick<ValidationReport, 'duplicated' | 'outOfRange' | 'idleChannels' | 'repeated' | 'summary'> {
  return { duplicated: r.duplicated, outOfRange: r.outOfRange, idleChannels, repeated: r.repeated, summary: r.summary };
}

/** Runs the kernel and builds the lists bounded by the input; `missing` stays a scan of the kernel state. */
export function findings(input: PlanInput, n: number, options?: EngineOptions): Findings {
  const check = loadKernels(options).channelValidate(input.start, input.entryPartition, n);
  const { width: w, entryPartition, start } = input;
  const duplicated: ValidationReport['duplicated'] = [];
  const outOfRange: ValidationReport['outOfRange'] = [];
  const repeated: ValidationReport['repeated'] = [];
  // The kernel counted; the slower lists are built only for the defects it found.
  if (check.duplicated > 0) {
    const byPartition = new Map<number, number[]>();
    for (let c = 0; c < w; c++) {
      for (let i = start[c]!; i < start[c + 1]!; i++) {
        const p = entryPartition[i]!;
        if (p >= 0 && p < n && check.state[p]! < 0) {
          const chans = byPartition.get(p) ?? [];
          if (chans[chans.length - 1] !== c) chans.push(c);
          byPartition.set(p, chans);
        }
      }
    }
    for (const [partition, channels] of [...byPartition].sort((a, b) => a[0] - b[0])) duplicated.push({ partition, channels });
  }
  if (check.outOfRange > 0) {
    for (let c = 0; c < w; c++) {
      for (let i = start[c]!; i < start[c + 1]!; i++) {
        const p = entryPartition[i]!;
        if (p < 0 || p >= n) outOfRange.push({ channel: c, index: i - start[c]!, partition: input.wideIds?.get(i) ?? p });
      }
    }
  }
  if (check.repeats > 0) {
    for (let c = 0; c < w; c++) {
      const times = new Map<number, number>();
      for (let i = start[c]!; i < start[c + 1]!; i++) {
        const p = entryPartition[i]!;
        if (p >= 0 && p < n) times.set(p, (times.get(p) ?? 0) + 1);
      }
      for (const [partition, t] of times) if (t > 1) repeated.push({ channel: c, partition, times: t });
    }
  }
  const { runs: idleRuns, count: idleCount } = idleRunsOf(check.perChannel, w);

  const missing = missingSource(check, n);
  const sound = check.missing === 0 && check.duplicated === 0 && check.outOfRange === 0;
  const entryOf = (c: number): number => writtenEntry(input, c);
  const firstOutOfRange = outOfRange.length === 0 ? '' : placeOf(outOfRange[0]!, entryOf);
  const summary =
    summarize({ sound, partitions: n, width: w, missingCount: check.missing, missing, duplicated, outOfRange, firstOutOfRange, idleRuns, idleCount }) +
    (input.partitions !== undefined && input.partitions < n ? `; the plan was made for ${input.partitions} partitions: grow it with channels expand` : '');
  return { format: REPORT_FORMAT, version: 1, sound, partitions: n, width: w, missing, missingCount: check.missing, duplicated, outOfRange, idleRuns, idleCount, repeated, summary, entryOf };
}

/** An out-of-range id and where the file has it: `7 at channels[2].partitions[1]`. */
export function placeOf(o: ValidationReport['outOfRange'][number], entryOf: (c: number) => number = (c) => c): string {
  return `${o.partition} at channels[${entryOf(o.channel)}].partitions[${o.index}]`;
}

/** The runs of channels with no partition of the topic, and how many channels they hold. */
function idleRunsOf(perChannel: ArrayLike<number>, w: number): { runs: [number, number][]; count: number } {
  const runs: [number, number][] = [];
  let count = 0;
  for (let c = 0; c < w; c++) {
    if (perChannel[c] !== 0) continue;
    const lo = c;
    while (c + 1 < w && perChannel[c + 1] === 0) c++;
    runs.push([lo, c]);
    count += c - lo + 1;
  }
  return { runs, count };
}

/** Runs [first, last] as an IdSource (for the range texts). */
export function runsSource(runs: readonly (readonly [number, number])[]): IdSource {
  return {
    size: runs.length,
    runs(from, to, visit) {
      for (let i = from; i < to; i++) visit(runs[i]![0], runs[i]![1]);
    },
  };
}

function missingSource(check: ChannelCheck, n: number): IdSource {
  const state = check.state;
  return {
    size: check.missing === 0 ? 0 : n,
    runs(from, to, visit) {
      let p = from;
      while (p < to) {
        if (state[p] !== 0) {
          p++;
          continue;
        }
        const lo = p;
        while (p < to && state[p] === 0) p++;
        visit(lo, p - 1);
      }
    },
  };
}

/** The findings summary reads from: the counts and lists, and the first out-of-range id's place as written. */
type SummaryFacts = Omit<Findings, 'format' | 'version' | 'summary' | 'repeated' | 'entryOf'> & { firstOutOfRange: string };

function summarize(f: SummaryFacts): string {
  const { sound, partitions: n, width: w, missingCount, missing, duplicated, outOfRange, firstOutOfRange, idleRuns: idle, idleCount } = f;
  const parts: string[] = [];
  if (missingCount > 0) parts.push(`${missingCount} partition(s) consumed by no channel (${clipDots(missing, 60)}): their data is never read`);
  if (duplicated.length > 0) {
    const d = duplicated[0]!;
    parts.push(`${duplicated.length} partition(s) consumed by more than one channel (e.g. partition ${d.partition} on channels ${d.channels.join(' and ')}): their data is read twice`);
  }
  if (outOfRange.length > 0) {
    parts.push(`${outOfRange.length} id(s) outside the topic's partitions 0-${n - 1} (e.g. ${firstOutOfRange})`);
  }
  if (idleCount > 0) parts.push(`${idleCount} idle channel(s) (${clipDots(runsSource(idle), 60)})`);
  const head = sound ? `each of the ${n} partitions is consumed by exactly one of ${w} channels` : `data would be lost or read twice (${n} partitions, ${w} channels)`;
  return parts.length === 0 ? head : `${head}; ${parts.join('; ')}`;
}

/** The report as JSON text: one top-level member per line, each value compact (big lists stay short). */
export function reportJsonText(r: ValidationReport): string {
  return [...reportJsonChunks(asFindings(r))].join('');
}

function asFindings(r: ValidationReport): Findings {
  const { idleChannels, ...rest } = r;
  const idleRuns: [number, number][] = [];
  idsOf(idleChannels).runs(0, idleChannels.length, (lo, hi) => {
    const last = idleRuns[idleRuns.length - 1];
    if (last !== undefined && last[1] + 1 === lo) last[1] = hi;
    else idleRuns.push([lo, hi]);
  });
  return { ...rest, missing: idsOf(r.missing), missingCount: r.missing.length, idleRuns, idleCount: idleChannels.length };
}

/** reportJsonText in pieces of about CHUNK characters, reading `missing` from the source. */
export function* reportJsonChunks(f: Findings): Generator<string> {
  const member = (k: string, v: unknown): string => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`;
  // A run of two or more idle channels is written [first, last], which a version-1 reader does not expect.
  const idle = f.idleRuns.map(([lo, hi]) => (lo === hi ? lo : [lo, hi]));
  const version = f.idleRuns.some(([lo, hi]) => hi > lo) ? REPORT_VERSION_RANGES : f.version;
  yield `{\n${[member('format', f.format), member('version', version), member('sound', f.sound), member('partitions', f.partitions), member('width', f.width)].join(',\n')},\n  "missing": [`;
  yield* joinedIds(f.missing, ',', CHUNK);
  yield '],\n';
  yield* arrayMember('duplicated', f.duplicated);
  yield* arrayMember('outOfRange', f.outOfRange);
  yield* arrayMember('idleChannels', idle);
  yield* arrayMember('repeated', f.repeated);
  yield `${member('summary', f.summary)}\n}\n`;
}

function* arrayMember(name: string, items: readonly unknown[]): Generator<string> {
  let buf = `  ${JSON.stringify(name)}: [`;
  for (let i = 0; i < items.length; i++) {
    buf += (i === 0 ? '' : ',') + JSON.stringify(items[i]);
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  yield `${buf}],\n`;
}
