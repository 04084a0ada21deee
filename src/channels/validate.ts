// Validation of a (usually hand-written) plan against the topic's real partition
// count: the defects the toolkit itself never checks (missing partitions, a
// partition on two channels, ids beyond the topic, idle channels).
import { requireInt } from '../errors.js';
import { getKernels, type EngineOptions } from '../engine/kernels.js';
import { readPlan, type PlanInput, type PlanLike } from './json.js';
import { formatRanges, MAX_PLAN_PARTITIONS, type ChannelPlan } from './plan.js';

export const REPORT_FORMAT = 'assignor-channel-validation';

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
 * Validates a plan: a ChannelPlan, a plan JSON object, `{channels: [...]}` or a
 * bare array of channel lists, against a topic of `partitions` partitions.
 */
export function validatePlan(plan: ChannelPlan | PlanLike, partitions: number, options?: EngineOptions): ValidationReport {
  const n = requireInt(partitions, 1, MAX_PLAN_PARTITIONS, 'partition count', 'partitions');
  return validateInput(toInput(plan), n, options);
}

export function toInput(plan: ChannelPlan | PlanLike): PlanInput {
  if (isChannelPlan(plan)) {
    // Already flat: members grouped by channel are exactly the entries.
    return {
      width: plan.width,
      entryPartition: plan.members,
      start: plan.offsets,
      partitions: plan.partitions,
      basePartitions: plan.basePartitions,
      strategy: plan.strategy,
      topic: plan.topic,
      stringChannels: [],
    };
  }
  return readPlan(plan);
}

function isChannelPlan(p: unknown): p is ChannelPlan {
  return typeof p === 'object' && p !== null && (p as ChannelPlan).channelOf instanceof Int32Array && (p as ChannelPlan).members instanceof Int32Array;
}

export function validateInput(input: PlanInput, n: number, options?: EngineOptions): ValidationReport {
  const { width: w, entryPartition, start } = input;
  const check = getKernels(options).channelValidate(start, entryPartition, n);
  const missing: number[] = [];
  const duplicated: ValidationReport['duplicated'] = [];
  const outOfRange: ValidationReport['outOfRange'] = [];
  const repeated: ValidationReport['repeated'] = [];
  const idleChannels: number[] = [];
  // The kernel counted; the slower lists are built only for the defects it found.
  if (check.missing > 0) for (let p = 0; p < n; p++) if (check.state[p] === 0) missing.push(p);
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
        if (p < 0 || p >= n) outOfRange.push({ channel: c, index: i - start[c]!, partition: p });
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
  for (let c = 0; c < w; c++) if (check.perChannel[c] === 0) idleChannels.push(c);

  const sound = check.missing === 0 && check.duplicated === 0 && check.outOfRange === 0;
  return {
    format: REPORT_FORMAT,
    version: 1,
    sound,
    partitions: n,
    width: w,
    missing,
    duplicated,
    outOfRange,
    idleChannels,
    repeated,
    summary:
      summarize(sound, n, w, missing, duplicated, outOfRange, idleChannels) +
      (input.partitions !== undefined && input.partitions < n ? `; the plan was made for ${input.partitions} partitions: grow it with channels expand` : ''),
  };
}

function summarize(
  sound: boolean,
  n: number,
  w: number,
  missing: number[],
  duplicated: ValidationReport['duplicated'],
  outOfRange: ValidationReport['outOfRange'],
  idle: number[],
): string {
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`${missing.length} partition(s) consumed by no channel (${clip(formatRanges(missing))}): their data is never read`);
  if (duplicated.length > 0) {
    const d = duplicated[0]!;
    parts.push(`${duplicated.length} partition(s) consumed by more than one channel (e.g. partition ${d.partition} on channels ${d.channels.join(' and ')}): their data is read twice`);
  }
  if (outOfRange.length > 0) {
    const o = outOfRange[0]!;
    parts.push(`${outOfRange.length} id(s) outside the topic's partitions 0-${n - 1} (e.g. ${o.partition} at channels[${o.channel}].partitions[${o.index}])`);
  }
  if (idle.length > 0) parts.push(`${idle.length} idle channel(s) (${clip(formatRanges(idle))})`);
  const head = sound ? `each of the ${n} partitions is consumed by exactly one of ${w} channels` : `data would be lost or read twice (${n} partitions, ${w} channels)`;
  return parts.length === 0 ? head : `${head}; ${parts.join('; ')}`;
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** The report as JSON text: one top-level member per line, each value compact (big lists stay short). */
export function reportJsonText(r: ValidationReport): string {
  const members = Object.entries(r).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  return `{\n${members.join(',\n')}\n}\n`;
}
