// Channel plans: which partitions each of W parallel consumer channels assigns.
// A plan is held as typed arrays (channelOf per partition plus a grouping by
// channel); per-partition objects only appear when a plan is emitted.
import { javaStringHash } from '../basics.js';
import { AssignorError, describe, requireInt } from '../errors.js';
import { loadKernels, type EngineOptions } from '../engine/kernels.js';
import { STRATEGY_CONTIGUOUS, STRATEGY_ROTATE } from '../engine/abi.js';
import { clipDots, type IdSource } from './ranges.js';

export { formatRanges } from './ranges.js';

/** Largest partition count and width a plan accepts (2^26): keeps every index sum inside int32. */
export const MAX_PLAN_PARTITIONS = 1 << 26;
export const MAX_WIDTH = 1 << 26;

export const STRATEGIES = ['contiguous', 'round-robin', 'flink'] as const;
export type Strategy = (typeof STRATEGIES)[number];
/** `custom`: hand-written, or rebalanced with key movement; the channel lists are the definition. */
export type PlanStrategy = Strategy | 'custom';

export interface ChannelPlan {
  strategy: PlanStrategy;
  topic: string | null;
  /** Current partition count N of the topic. */
  partitions: number;
  /**
   * Partition count the channel layout was made for. Partition p is on the channel
   * of p mod basePartitions, so keys keep their channel across expansions by multiples.
   */
  basePartitions: number;
  width: number;
  /** flink only: the channel of partition 0. */
  startIndex?: number;
  /** channelOf[p], N entries. */
  channelOf: Int32Array;
  /** Channel c's partitions (ascending) are members[offsets[c] .. offsets[c + 1]). */
  offsets: Int32Array;
  members: Int32Array;
  warnings: string[];
}

export interface PlanOptions extends EngineOptions {
  /** Partition count of the topic. */
  partitions: number;
  width: number;
  strategy?: Strategy;
  /** Topic name; required by flink (its start index comes from the name). */
  topic?: string;
}

export interface TopicsPlanOptions extends EngineOptions {
  topics: readonly { topic: string; partitions: number }[];
  width: number;
  strategy?: Strategy;
}

/** Flink's start index: the channel that gets partition 0 of `topic` with `width` channels. */
export function flinkStartIndex(topic: string, width: number): number {
  return (Math.imul(javaStringHash(topic), 31) & 0x7fffffff) % width;
}

/** The channel of one partition without building a plan: what each channel can evaluate alone. */
export function channelOfPartition(strategy: Strategy, partition: number, partitions: number, width: number, topic?: string): number {
  requireInt(partitions, 1, MAX_PLAN_PARTITIONS, 'partition count', 'partitions');
  requireInt(width, 1, MAX_WIDTH, 'width', 'width');
  requireInt(partition, 0, partitions - 1, 'partition', 'partition');
  if (strategy === 'contiguous') {
    const q = Math.floor(partitions / width);
    const r = partitions % width;
    const bigEnd = r * (q + 1);
    return partition < bigEnd ? Math.floor(partition / (q + 1)) : r + Math.floor((partition - bigEnd) / q);
  }
  const start = strategy === 'flink' ? flinkStartIndex(requireTopic(topic), width) : 0;
  return (start + partition) % width;
}

function requireTopic(topic: string | undefined): string {
  if (typeof topic !== 'string' || topic === '') {
    throw new AssignorError('E_USAGE', 'the flink strategy needs the topic name: its start index is derived from it', 'topic');
  }
  return topic;
}

function checkStrategy(s: unknown): Strategy {
  if (s === undefined) return 'contiguous';
  if (typeof s === 'string' && (STRATEGIES as readonly string[]).includes(s)) return s as Strategy;
  throw new AssignorError('E_USAGE', `strategy must be one of ${STRATEGIES.join(', ')}, got ${describe(s)}`, 'strategy');
}

/** Plans one topic. */
export function planChannels(options: PlanOptions): ChannelPlan {
  const n = requireInt(options.partitions, 1, MAX_PLAN_PARTITIONS, 'partition count', 'partitions');
  const w = requireInt(options.width, 1, MAX_WIDTH, 'width', 'width');
  const strategy = checkStrategy(options.strategy);
  if (options.topic !== undefined && typeof options.topic !== 'string') {
    throw new AssignorError('E_USAGE', 'topic must be a string', 'topic');
  }
  const topic = options.topic ?? null;
  let start = 0;
  if (strategy === 'flink') start = flinkStartIndex(requireTopic(options.topic), w);
  const layout = loadKernels(options).channelLayout(strategy === 'contiguous' ? STRATEGY_CONTIGUOUS : STRATEGY_ROTATE, n, w, start);
  return fromChannelOf(
    { strategy, topic, partitions: n, basePartitions: n, width: w, startIndex: strategy === 'flink' ? start : undefined, ...layout },
    options,
  );
}

/** Plans several topics with the same width and strategy (one plan per topic). */
export function planTopics(options: TopicsPlanOptions): ChannelPlan[] {
  if (!Array.isArray(options.topics) || options.topics.length === 0) {
    throw new AssignorError('E_USAGE', 'topics must be a non-empty array of {topic, partitions}', 'topics');
  }
  return options.topics.map((t, i) => {
    try {
      return planChannels({ ...options, topic: t.topic, partitions: t.partitions });
    } catch (e) {
      if (e instanceof AssignorError) throw new AssignorError(e.code, e.message, `topics[${i}].${e.path ?? ''}`);
      throw e;
    }
  });
}

/**
 * The warning for channels without a partition. It blames the width only when the width is more
 * than the partitions; otherwise the layout left them idle (a custom plan, expanded as it was).
 */
function idleWarning(idle: number, width: number, partitions: number, offsets: Int32Array): string {
  const which = `${idle} of ${width} channels get no partition (${clipDots(idleChannelSource(offsets), 200)})`;
  const why = width > partitions ? `width ${width} is more than the ${partitions} partitions` : `the layout gives them none (channels rewidth balances a custom plan)`;
  return `${which}: ${why}; in the Kafka toolkit an operator with an empty partition list joins a consumer group instead, so leave these channels out`;
}

/** Completes a plan from its channelOf: grouping by channel and the idle-channel warning. */
export function fromChannelOf(
  p: Pick<ChannelPlan, 'strategy' | 'topic' | 'partitions' | 'basePartitions' | 'width' | 'channelOf'> & {
    startIndex?: number | undefined;
    warnings?: string[];
    /** The grouping when the caller already has it; otherwise the group kernel sorts channelOf. */
    offsets?: Int32Array;
    members?: Int32Array;
  },
  options?: EngineOptions,
): ChannelPlan {
  const { offsets, members } = p.offsets !== undefined && p.members !== undefined ? { offsets: p.offsets, members: p.members } : loadKernels(options).channelGroup(p.channelOf, p.width);
  const warnings = [...(p.warnings ?? [])];
  const idle = countIdle(offsets);
  if (idle > 0) warnings.push(idleWarning(idle, p.width, p.partitions, offsets));
  const plan: ChannelPlan = {
    strategy: p.strategy,
    topic: p.topic,
    partitions: p.partitions,
    basePartitions: p.basePartitions,
    width: p.width,
    channelOf: p.channelOf,
    offsets,
    members,
    warnings,
  };
  if (p.startIndex !== undefined) plan.startIndex = p.startIndex;
  return plan;
}

/** Partitions of channel c (a view, ascending). */
export function channelPartitions(plan: Pick<ChannelPlan, 'offsets' | 'members'>, c: number): Int32Array {
  return plan.members.subarray(plan.offsets[c]!, plan.offsets[c + 1]!);
}

/** Idle channels (no partition) as a range source over the grouping, without building a list. */
export function idleChannelSource(offsets: Int32Array): IdSource {
  return {
    size: offsets.length - 1,
    runs(from, to, visit) {
      let c = from;
      while (c < to) {
        if (offsets[c] !== offsets[c + 1]) {
          c++;
          continue;
        }
        const lo = c;
        while (c < to && offsets[c] === offsets[c + 1]) c++;
        visit(lo, c - 1);
      }
    },
  };
}

export function countIdle(offsets: Int32Array): number {
  let idle = 0;
  for (let c = 0; c + 1 < offsets.length; c++) if (offsets[c] === offsets[c + 1]) idle++;
  return idle;
}
