// Growing a plan when partitions are added, width fixed. The arithmetic (which
// counts keep keys, the share that moves, the key-moving reassignment) and the
// fold kernel are the shared src/expansion module, also used by Samza expansion.
// Slots there are the plan's base partitions; a slot's channel is the channel the
// base layout gave that partition.
import { formatPercent } from '../basics.js';
import { AssignorError, requireInt } from '../errors.js';
import type { EngineOptions } from '../engine/kernels.js';
import { analyzeExpansion, foldPartitions, reassignWithKeyMovement, requireKeyPreserving, type ExpansionAnalysis } from '../expansion/index.js';
import { fromChannelOf, MAX_PLAN_PARTITIONS, type ChannelPlan } from './plan.js';
import { findings, toInput } from './validate.js';
import type { PlanInput, PlanLike } from './json.js';
import { keysChangingChannel as moveShare } from './movement.js';

export interface ExpandOptions extends EngineOptions {
  /** Accept a count that is not a multiple of the base and rebalance (some keys change channel). */
  allowKeyMovement?: boolean;
}

export interface Expansion {
  plan: ChannelPlan;
  from: number;
  to: number;
  /** The shared analysis on the base partition count (share of keys changing base slot). */
  analysis: ExpansionAnalysis;
  /** True when no key changes channel. */
  keepsEveryKey: boolean;
  /** Exact share of keys (uniform hashes) whose channel changes. */
  keysChangingChannel: number;
  /** Existing partitions whose channel changes: partition, from channel, to channel (parallel arrays). */
  moved: { partitions: Int32Array; from: Int32Array; to: Int32Array };
  summary: string;
}

/**
 * Expands a plan (ChannelPlan or plan JSON) to `newPartitions` partitions.
 * Throws E_PLAN (malformed plan, or lists that contradict basePartitions),
 * E_RANGE (newPartitions), E_SHRINK, E_UNSOUND_PLAN and E_KEY_MOVEMENT.
 */
export function expandPlan(plan: ChannelPlan | PlanLike, newPartitions: number, options: ExpandOptions = {}): Expansion {
  return expandInput(toInput(plan), newPartitions, options);
}

/** expandPlan on a plan already read (the CLI reads the file itself). */
export function expandInput(input: PlanInput, newPartitions: number, options: ExpandOptions = {}): Expansion {
  if (input.partitions === undefined) {
    throw new AssignorError('E_PLAN', 'the plan does not say how many partitions it covers ("partitions"); add it or run channels plan to make one', 'partitions');
  }
  const n = input.partitions;
  const base = input.basePartitions ?? n;
  const target = requireInt(newPartitions, 1, MAX_PLAN_PARTITIONS, 'new partition count', 'partitions');
  if (target < n) throw new AssignorError('E_SHRINK', `the topic has ${n} partitions; Kafka cannot remove partitions, so ${target} is not a valid new count`, 'partitions');
  const w = input.width;

  const current = currentLayout(input, n, base, 'expand', options);

  const analysis = analyzeExpansion(base, target);
  const next = new Int32Array(target);
  let newBase = base;
  if (analysis.keepsEveryKey) {
    foldInto(next, current, base, options);
  } else {
    const { slotOf } = reassignWithKeyMovement(base, target);
    for (let q = 0; q < target; q++) next[q] = current[slotOf[q]!]!;
    const share = moveShare(current, base, next, target, analysis.gcd);
    if (!options.allowKeyMovement) {
      try {
        requireKeyPreserving(base, target, 'the channel plan');
      } catch (e) {
        if (e instanceof AssignorError) {
          throw new AssignorError(e.code, `the plan has ${n} partitions laid out on base ${base}; ${e.message} (a rebalance would move ${formatPercent(share)} of keys to another channel)`, 'partitions');
        }
        throw e;
      }
    }
    newBase = target;
  }

  const movedP: number[] = [];
  for (let p = 0; p < n; p++) if (next[p] !== current[p]) movedP.push(p);
  const moved = { partitions: Int32Array.from(movedP), from: Int32Array.from(movedP, (p) => current[p]!), to: Int32Array.from(movedP, (p) => next[p]!) };
  const keysChangingChannel = analysis.keepsEveryKey ? 0 : moveShare(current, base, next, target, analysis.gcd);
  const summary = analysis.keepsEveryKey
    ? `${n} -> ${target} partitions, width ${w}: ${target} is a multiple of the base ${base}, so partition p joins the channel of p mod ${base}; no partition and no key changes channel`
    : `${n} -> ${target} partitions, width ${w}: rebalanced with key movement; ${formatPercent(keysChangingChannel)} of keys change channel, ` +
      `${movedP.length} existing partition(s) change channel; the new base is ${target} (safe counts were ${analysis.nearestSafe.join(' or ')})`;
  const warnings = analysis.keepsEveryKey ? [] : [summary];

  const strategy = analysis.keepsEveryKey ? (input.strategy ?? 'custom') : 'custom';
  const out = fromChannelOf(
    { strategy, topic: input.topic ?? null, partitions: target, basePartitions: newBase, width: w, channelOf: next, warnings, startIndex: analysis.keepsEveryKey ? input.startIndex : undefined },
    options,
  );
  return { plan: out, from: n, to: target, analysis, keepsEveryKey: analysis.keepsEveryKey, keysChangingChannel, moved, summary };
}

/**
 * The plan's channel of each of its n partitions, after checking that the plan
 * is sound and really folded on `base` (or "keys keep their channel" would be false).
 * Throws E_UNSOUND_PLAN and E_PLAN.
 */
export function currentLayout(input: PlanInput, n: number, base: number, verb: string, options: EngineOptions): Int32Array {
  const report = findings(input, n, options);
  if (!report.sound) throw new AssignorError('E_UNSOUND_PLAN', `cannot ${verb} an unsound plan: ${report.summary}; fix it first (channels validate)`, 'channels');
  // channelOf at n from the lists (sound: exactly one channel per partition).
  const current = new Int32Array(n);
  for (let c = 0; c < input.width; c++) for (let i = input.start[c]!; i < input.start[c + 1]!; i++) current[input.entryPartition[i]!] = c;
  for (let p = base; p < n; p++) {
    if (current[p] !== current[p % base]) {
      throw new AssignorError(
        'E_PLAN',
        `the plan says basePartitions ${base}, but partition ${p} is on channel ${current[p]} while partition ${p % base} (= ${p} mod ${base}) is on channel ${current[p % base]}`,
        'basePartitions',
      );
    }
  }
  return current;
}

/**
 * next[q] = current[q mod base] through the fold kernel, in blocks of 2^20 so a
 * 67-million-partition target needs no index arrays of its full size.
 */
function foldInto(next: Int32Array, current: Int32Array, base: number, options: EngineOptions): void {
  const block = Math.min(next.length, 1 << 20);
  const streams = new Int32Array(block);
  const ids = new Int32Array(block);
  for (let from = 0; from < next.length; from += block) {
    const len = Math.min(block, next.length - from);
    for (let i = 0; i < len; i++) ids[i] = from + i;
    const slots = foldPartitions(streams.subarray(0, len), ids.subarray(0, len), Int32Array.of(base), options);
    for (let i = 0; i < len; i++) next[from + i] = current[slots[i]!]!;
  }
}
