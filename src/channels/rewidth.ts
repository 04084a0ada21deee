// Changing the width of a parallel region, the risk the use-case document warns
// about ("Changing width on UDP region might break application"): which
// partitions change channel, what share of keys follows them, and which other
// widths would move nothing, or the least.
//
// The partition count stays, so a key stays in its partition (murmur2(key) mod
// N) and changes channel exactly when its partition does; the share of keys is
// the expand arithmetic with base = target (src/channels/movement.ts).
import { formatPercent } from '../basics.js';
import { AssignorError, requireInt } from '../errors.js';
import type { EngineOptions } from '../engine/kernels.js';
import { currentLayout } from './expand.js';
import type { PlanInput, PlanLike } from './json.js';
import { keysChangingChannel } from './movement.js';
import { fromChannelOf, MAX_PLAN_PARTITIONS, MAX_WIDTH, planChannels, type ChannelPlan, type PlanStrategy } from './plan.js';
import { toInput } from './validate.js';

/** Partitions looked at while searching for better widths (each candidate costs one base layout). */
const PROPOSAL_BUDGET = 1 << 24;

export interface WidthProposal {
  width: number;
  /** Partitions (of all N) whose channel would change. */
  partitionsChangingChannel: number;
  /** Share of keys whose channel would change (uniform hashes). */
  keysChangingChannel: number;
}

export interface Rewidth {
  /** The plan at the new width: the same strategy on the same base (custom plans: the fewest moves for a balanced layout). */
  plan: ChannelPlan;
  from: number;
  to: number;
  /** Partitions whose channel changes: partition, from channel, to channel (parallel arrays). */
  moved: { partitions: Int32Array; from: Int32Array; to: Int32Array };
  keysChangingChannel: number;
  /** Other widths that move nothing, or the fewest partitions, best first (at most 5). */
  proposals: WidthProposal[];
  /** The widths compared to find the proposals: all of 1..base, or the nearest ones the budget allowed. */
  checked: { count: number; all: boolean; lowest: number; highest: number };
  summary: string;
}

/**
 * The plan at another width. Throws E_PLAN (malformed plan; a flink plan without
 * its topic), E_RANGE (width), E_UNSOUND_PLAN.
 */
export interface RewidthOptions extends EngineOptions {
  /** The topic's partition count, for a hand-written plan that does not say it ("partitions"). */
  partitions?: number;
}

export function rewidthPlan(plan: ChannelPlan | PlanLike, width: number, options: RewidthOptions = {}): Rewidth {
  return rewidthInput(toInput(plan), width, options);
}

export function rewidthInput(input: PlanInput, width: number, options: RewidthOptions = {}): Rewidth {
  const w2 = requireInt(width, 1, MAX_WIDTH, 'new width', 'width');
  if (options.partitions !== undefined) requireInt(options.partitions, 1, MAX_PLAN_PARTITIONS, 'partition count', 'partitions');
  if (input.partitions !== undefined && options.partitions !== undefined && input.partitions !== options.partitions) {
    throw new AssignorError('E_PLAN', `the plan covers ${input.partitions} partitions, not ${options.partitions}: grow it with channels expand first`, 'partitions');
  }
  const n = input.partitions ?? options.partitions;
  if (n === undefined) {
    throw new AssignorError('E_PLAN', 'the plan does not say how many partitions it covers ("partitions"); add it, or give the count (--partitions)', 'partitions');
  }
  const base = input.basePartitions ?? n;
  const strategy: PlanStrategy = input.strategy ?? 'custom';
  const topic = input.topic ?? null;
  if (strategy === 'flink' && topic === null) {
    throw new AssignorError('E_PLAN', "a flink plan's start index for another width comes from the topic name, and this plan has no topic", 'topic');
  }
  const current = currentLayout(input, n, base, 'rewidth', options);
  const w = input.width;
  // Channel of each base partition at width wd. The plan's own width is no exception: a custom
  // plan comes back balanced with the fewest moves (a balanced one comes back as it is), a plan of
  // a strategy comes back as that strategy lays it out, as at any other width.
  const layout = (wd: number): Int32Array =>
    strategy === 'custom' ? stickyLayout(current, base, wd) : planChannels({ partitions: base, width: wd, strategy, ...(topic !== null ? { topic } : {}), ...options }).channelOf;

  const nextBase = layout(w2);
  const folds = n / base;
  const next = new Int32Array(n);
  for (let j = 0; j < folds; j++) next.set(nextBase, j * base);
  const movedP: number[] = [];
  for (let p = 0; p < n; p++) if (next[p] !== current[p]) movedP.push(p);
  const moved = { partitions: Int32Array.from(movedP), from: Int32Array.from(movedP, (p) => current[p]!), to: Int32Array.from(movedP, (p) => next[p]!) };
  const share = keysChangingChannel(current, base, nextBase, base, base);

  // Other widths, nearest first, while the budget lasts.
  const candidates: WidthProposal[] = [];
  let spent = 0;
  let lowest = w;
  let highest = w;
  for (let d = 1; d < base + w; d++) {
    for (const wd of [w - d, w + d]) {
      if (wd < 1 || wd > base || spent + base > PROPOSAL_BUDGET) continue;
      spent += base;
      const alt = layout(wd);
      let m = 0;
      for (let p = 0; p < base; p++) if (alt[p] !== current[p]) m++;
      candidates.push({ width: wd, partitionsChangingChannel: m * folds, keysChangingChannel: m / base });
      lowest = Math.min(lowest, wd);
      highest = Math.max(highest, wd);
    }
    if (spent + base > PROPOSAL_BUDGET) break;
  }
  const all = candidates.length === base - (w <= base ? 1 : 0);
  candidates.sort((a, b) => a.partitionsChangingChannel - b.partitionsChangingChannel || Math.abs(a.width - w) - Math.abs(b.width - w) || a.width - b.width);
  const still = candidates.filter((c) => c.partitionsChangingChannel === 0);
  const proposals = (still.length > 0 ? still : candidates).slice(0, 5);

  const plan = fromChannelOf({ strategy, topic, partitions: n, basePartitions: base, width: w2, channelOf: next, ...(strategy === 'flink' ? { startIndex: next[0]! } : {}) }, options);
  const checkedText = all ? `all widths 1-${base}` : `the ${candidates.length} widths nearest ${w} (${lowest}-${highest})`;
  const best =
    proposals.length === 0
      ? 'there is no other width to compare'
      : still.length > 0
        ? `widths that move no partition: ${still.slice(0, 10).map((c) => c.width).join(', ')}`
        : `no other width keeps every partition on its channel; the fewest moves: ${proposals.slice(0, 3).map((c) => `width ${c.width} (${c.partitionsChangingChannel} partitions, ${formatPercent(c.keysChangingChannel)} of keys)`).join(', ')}`;
  const summary =
    `width ${w} -> ${w2}, ${n} partitions, strategy ${strategy}: ${movedP.length} partition(s) change channel, so ${formatPercent(share)} of keys move to another channel ` +
    `(a key stays in its partition, murmur2(key) mod ${n}, and follows it); ${best} (checked ${checkedText}). ` +
    `The getChannel() arithmetic depends on the width: deploy the SPL for width ${w2} (channels rewidth --emit spl), not the old one with a new width.`;
  return { plan, from: w, to: w2, moved, keysChangingChannel: share, proposals, checked: { count: candidates.length, all, lowest, highest }, summary };
}

/**
 * Custom plans have no rule to re-apply, so keep as many partitions as a
 * balanced layout allows: channel sizes differ by at most one, the larger
 * sizes go to the channels that hold most now, a partition stays when its
 * channel still exists and has room, and the rest fill the free places in
 * channel order (ascending partitions).
 */
export function stickyLayout(current: Int32Array, base: number, wd: number): Int32Array {
  const q = Math.floor(base / wd);
  const r = base % wd;
  const held = new Int32Array(wd);
  for (let p = 0; p < base; p++) if (current[p]! < wd) held[current[p]!]!++;
  const byHeld = Array.from({ length: wd }, (_, c) => c).sort((a, b) => held[b]! - held[a]! || a - b);
  const cap = new Int32Array(wd).fill(q);
  for (let i = 0; i < r; i++) cap[byHeld[i]!]!++;
  const out = new Int32Array(base).fill(-1);
  const used = new Int32Array(wd);
  for (let p = 0; p < base; p++) {
    const c = current[p]!;
    if (c < wd && used[c]! < cap[c]!) {
      out[p] = c;
      used[c]!++;
    }
  }
  let c = 0;
  for (let p = 0; p < base; p++) {
    if (out[p] !== -1) continue;
    while (used[c]! >= cap[c]!) c++;
    out[p] = c;
    used[c]!++;
  }
  return out;
}
