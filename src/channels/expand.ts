// Growing a plan when partitions are added, width fixed. The arithmetic (which
// counts keep keys, the share that moves, the key-moving reassignment) and the
// fold kernel are the shared src/expansion module, also used by Samza expansion.
// Slots there are the plan's base partitions; a slot's channel is the channel the
// base layout gave that partition.
import { AssignorError, requireInt } from '../errors.js';
import type { EngineOptions } from '../engine/kernels.js';
import { analyzeExpansion, foldPartitions, reassignWithKeyMovement, requireKeyPreserving, type ExpansionAnalysis } from '../expansion/index.js';
import { fromChannelOf, MAX_PLAN_PARTITIONS, type ChannelPlan } from './plan.js';
import { toInput, validateInput } from './validate.js';
import type { PlanLike } from './json.js';

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

/** Expands a plan (ChannelPlan or plan JSON) to `newPartitions` partitions. */
export function expandPlan(plan: ChannelPlan | PlanLike, newPartitions: number, options: ExpandOptions = {}): Expansion {
  const input = toInput(plan);
  if (input.partitions === undefined) {
    throw new AssignorError('E_PLAN', 'the plan does not say how many partitions it covers ("partitions"); add it or run channels plan to make one', 'partitions');
  }
  const n = input.partitions;
  const base = input.basePartitions ?? n;
  const target = requireInt(newPartitions, 1, MAX_PLAN_PARTITIONS, 'new partition count', 'partitions');
  if (target < n) throw new AssignorError('E_SHRINK', `the topic has ${n} partitions; Kafka cannot remove partitions, so ${target} is not a valid new count`, 'partitions');
  const w = input.width;

  const report = validateInput(input, n, options);
  if (!report.sound) throw new AssignorError('E_UNSOUND_PLAN', `cannot expand an unsound plan: ${report.summary}; fix it first (channels validate)`, 'channels');

  // channelOf at n from the lists (sound: exactly one channel per partition).
  const current = new Int32Array(n);
  for (let c = 0; c < w; c++) for (let i = input.start[c]!; i < input.start[c + 1]!; i++) current[input.entryPartition[i]!] = c;

  // The plan must really be folded on its base, or "keys keep their channel" would be false.
  const fold = foldPartitions(new Int32Array(n), iota(n), Int32Array.of(base), options);
  for (let p = base; p < n; p++) {
    if (current[p] !== current[fold[p]!]) {
      throw new AssignorError(
        'E_PLAN',
        `the plan says basePartitions ${base}, but partition ${p} is on channel ${current[p]} while partition ${fold[p]} (= ${p} mod ${base}) is on channel ${current[fold[p]!]}`,
        'basePartitions',
      );
    }
  }

  const analysis = analyzeExpansion(base, target);
  const next = new Int32Array(target);
  let newBase = base;
  if (analysis.keepsEveryKey) {
    const slots = foldPartitions(new Int32Array(target), iota(target), Int32Array.of(base), options);
    for (let q = 0; q < target; q++) next[q] = current[slots[q]!]!;
  } else {
    const { slotOf } = reassignWithKeyMovement(base, target);
    for (let q = 0; q < target; q++) next[q] = current[slotOf[q]!]!;
    const share = channelMoveShare(current, base, next, target, analysis.gcd, w);
    if (!options.allowKeyMovement) {
      try {
        requireKeyPreserving(base, target, 'the channel plan');
      } catch (e) {
        if (e instanceof AssignorError) {
          throw new AssignorError(e.code, `the plan has ${n} partitions laid out on base ${base}; ${e.message} (a rebalance would move ${pct(share)} of keys to another channel)`, 'partitions');
        }
        throw e;
      }
    }
    newBase = target;
  }

  const movedP: number[] = [];
  for (let p = 0; p < n; p++) if (next[p] !== current[p]) movedP.push(p);
  const moved = { partitions: Int32Array.from(movedP), from: Int32Array.from(movedP, (p) => current[p]!), to: Int32Array.from(movedP, (p) => next[p]!) };
  const keysChangingChannel = analysis.keepsEveryKey ? 0 : channelMoveShare(current, base, next, target, analysis.gcd, w);
  const summary = analysis.keepsEveryKey
    ? `${n} -> ${target} partitions, width ${w}: ${target} is a multiple of the base ${base}, so partition p joins the channel of p mod ${base}; no partition and no key changes channel`
    : `${n} -> ${target} partitions, width ${w}: rebalanced with key movement; ${pct(keysChangingChannel)} of keys change channel, ` +
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
 * Exact share of keys whose channel changes, for uniformly spread hashes h:
 * before, channel = old[h mod base]; after, channel = next[h mod target]. The
 * pairs (h mod base, h mod target) that occur are those congruent mod g, all
 * equally often (CRT), so count per residue class how many base slots share each channel.
 */
function channelMoveShare(old: Int32Array, base: number, next: Int32Array, target: number, g: number, w: number): number {
  const inClass = new Map<number, number>();
  for (let a = 0; a < base; a++) {
    const key = (a % g) * w + old[a]!;
    inClass.set(key, (inClass.get(key) ?? 0) + 1);
  }
  let stay = 0;
  for (let q = 0; q < target; q++) stay += inClass.get((q % g) * w + next[q]!) ?? 0;
  return 1 - stay / (target * (base / g));
}

function iota(n: number): Int32Array {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}

function pct(x: number): string {
  const p = 100 * x;
  return `${Number.isInteger(p) ? p : p.toFixed(2)}%`;
}
