// The placement as plain data (the CLI's JSON), with the level of every
// standby and, when it is not absolute, why: which keys it could not differ on
// and whether that was forced (all values used, no candidate left) or, in
// kafka mode, a better level was available but Kafka's algorithm skipped it.
import { formatTaskId } from './task-id.js';
import { keysOf, levelOf, lowerLevel, type Level, type TaskLevel } from './levels.js';
import { maskScore } from '../engine/abi.js';
import type { StandbyPlacement } from './place.js';
import { askedFor, compareWithKafka, existingMasks, totalsOf, type KafkaComparison, type PlacementTotals } from './totals.js';

export interface StandbyReport {
  client: string;
  level: Level | 'untagged';
  differsOn: string[];
  /** Only when the level is not absolute. */
  why?: string;
}

/** A standby the input already had: its level against the copies before it (active, earlier existing ones). */
export interface ExistingReport {
  client: string;
  level: Level | 'untagged';
  differsOn: string[];
}

export interface TaskReport {
  task: string;
  active: string | null;
  /** Standbys the input already had, in ProcessId order. */
  existing: ExistingReport[];
  /** New standbys, in the order they were chosen. */
  standbys: StandbyReport[];
  /** Level of the task's worst standby, existing ones included ('none' when it has none). */
  level: TaskLevel;
  /** Copies the task should hold: standbys + existing + unplaced. */
  askedFor: number;
  unplaced: number;
}

export interface ClientReport {
  id: string;
  tags: Record<string, string>;
  capacity: number;
  active: string[];
  /** Every standby the client holds after placement (existing ones included). */
  standby: string[];
  /** (active + standby) / capacity. */
  load: number;
}

export interface PlacementReport {
  mode: string;
  assignor: string;
  engine: string;
  numStandbys: number;
  tagKeys: string[];
  totals: PlacementTotals;
  /** Balanced mode: the same input placed by Kafka, compared (tasks by tag spread; count and load spread). */
  againstKafka?: KafkaComparison;
  warnings: string[];
  tasks: TaskReport[];
  clients: ClientReport[];
}

export function buildReport(pl: StandbyPlacement, kafka?: StandbyPlacement): PlacementReport {
  const { cluster } = pl;
  const p = pl.flat.problem;
  const K = p.keys;
  const W = pl.width;
  const tagKeys = cluster.tagKeys;
  const ids = cluster.clients.map((c) => c.id);
  const groupSize = new Int32Array(p.groups);
  for (let c = 0; c < p.clients; c++) groupSize[p.groupOf[c]!]!++;
  const newStandbys: string[][] = cluster.clients.map(() => []);
  const exMasks = existingMasks(pl);
  const warnings: string[] = [];
  if (!pl.orderExact) warnings.push('kafka mode: a bucket of the fallback HashMap became a tree; the fallback task order is approximate');

  const range = pl.mode !== 'kafka' && kafka !== undefined ? balancedRange(pl, kafka) : undefined;
  const tasks: TaskReport[] = cluster.tasks.map((task, t) => {
    const holders: number[] = [];
    const a = p.active[t]!;
    if (a >= 0) holders.push(a);
    let level: TaskLevel = K === 0 ? 'untagged' : 'none';
    let first = true;
    const existing: ExistingReport[] = [];
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) {
      const c = p.holders[h]!;
      holders.push(c);
      const l = levelOf(exMasks[h]!, K);
      existing.push({ client: ids[c]!, level: l, differsOn: keysOf(exMasks[h]!, tagKeys) });
      level = first ? l : lowerLevel(level, l);
      first = false;
    }
    const standbys: StandbyReport[] = [];
    const tagPhase = pl.assignor === 'ClientTagAwareStandbyTaskAssignor' ? kafkaTagPhase(pl, t) : 0;
    for (let j = 0; j < W; j++) {
      const c = pl.slots[t * W + j]!;
      if (c < 0) continue;
      const mask = pl.masks[t * W + j]!;
      const l = levelOf(mask, K);
      const entry: StandbyReport = { client: ids[c]!, level: l, differsOn: keysOf(mask, tagKeys) };
      if (l === 'partial' || l === 'least') entry.why = whyNot(pl, groupSize, holders, { c, mask, kafkaFallback: j >= tagPhase, range: range && { ...range, t, slot: j } });
      standbys.push(entry);
      newStandbys[c]!.push(formatTaskId(task));
      level = first ? l : lowerLevel(level, l);
      first = false;
      holders.push(c);
    }
    const asked = askedFor(pl, t);
    const unplaced = Math.max(0, asked - existing.length - standbys.length);
    if (unplaced > 0) {
      const had = existing.length > 0 ? `, ${existing.length} already there` : '';
      warnings.push(`task ${formatTaskId(task)}: ${unplaced} of ${asked} standbys could not be placed (every other client already holds a copy${had})`);
    }
    return { task: formatTaskId(task), active: a >= 0 ? ids[a]! : null, existing, standbys, level, askedFor: asked, unplaced };
  });

  const clients: ClientReport[] = cluster.clients.map((cl, c) => {
    const standby = [...cl.standby.map(formatTaskId), ...newStandbys[c]!];
    return {
      id: cl.id,
      tags: Object.fromEntries(cl.tags),
      capacity: cl.capacity,
      active: cl.active.map(formatTaskId),
      standby,
      load: (cl.active.length + standby.length) / cl.capacity,
    };
  });
  return {
    mode: pl.mode,
    assignor: pl.assignor,
    engine: pl.engine,
    numStandbys: cluster.numStandbys,
    tagKeys,
    totals: totalsOf(pl),
    ...(kafka === undefined ? {} : { againstKafka: compareWithKafka(pl, kafka) }),
    warnings,
    tasks,
    clients,
  };
}

/** The standby whyNot explains: its client, the keys it differs on, whether Kafka's tag-blind fallback placed it, and (balanced) Kafka's range with its task and slot. */
export interface WhyStandby {
  c: number;
  mask: number;
  kafkaFallback: boolean;
  range: (BalancedRange & { t: number; slot: number }) | undefined;
}

/**
 * Why a standby is not absolute, given the copies in `holders` placed before it (groupSize: the
 * clients per tag group): per missing key, whether the key was used up, the client lacks it, or
 * nothing better was free.
 */
export function whyNot(pl: StandbyPlacement, groupSize: Int32Array, holders: number[], standby: WhyStandby): string {
  const { c, mask, kafkaFallback, range } = standby;
  const p = pl.flat.problem;
  const K = p.keys;
  const tagKeys = pl.cluster.tagKeys;
  const names = pl.flat.valueNames;
  const used = new Set<number>();
  for (const h of holders) for (let k = 0; k < K; k++) if (p.clientValues[h * K + k]! >= 0) used.add(p.clientValues[h * K + k]!);
  // Best mask any client without a copy offered at that moment.
  const heldInGroup = new Int32Array(p.groups);
  for (const h of holders) heldInGroup[p.groupOf[h]!]!++;
  let bestScore = -1;
  let bestMask = 0;
  let freeKeys = 0; // keys on which some client without a copy had an unused value
  for (let g = 0; g < p.groups; g++) {
    if (heldInGroup[g]! >= groupSize[g]!) continue;
    let m = 0;
    for (let k = 0; k < K; k++) {
      const v = p.groupValues[g * K + k]!;
      if (v >= 0 && !used.has(v)) m |= 1 << k;
    }
    freeKeys |= m;
    const s = maskScore(m, K);
    if (s > bestScore) {
      bestScore = s;
      bestMask = m;
    }
  }
  const parts: string[] = [];
  for (let k = 0; k < K; k++) {
    if ((mask >>> k) & 1) continue;
    const key = tagKeys[k]!;
    const own = p.clientValues[c * K + k]!;
    const usedValues = [...used].filter((v) => pl.flat.valueKeys[v] === k);
    if (own < 0) parts.push(`${key}: this client has no ${key} tag`);
    else if (usedValues.length >= p.distinct[k]!) parts.push(`${key}: all ${p.distinct[k]} values (${usedValues.map((v) => names[v]).join(', ')}) already hold a copy`);
    else if (!((freeKeys >>> k) & 1)) parts.push(`${key}: no client without a copy had an unused ${key} value`);
    // Kafka does not search for the best spread, so there it is only a fact about its choice.
    else if (pl.mode === 'kafka') parts.push(`${key}: clients without a copy had an unused ${key} value, but Kafka's choice was not one of them`);
    // Balanced with Kafka's range at hand: balancedNote() says what a better copy would have needed.
    else if (!range || bestScore <= maskScore(mask, K)) parts.push(`${key}: no client without a copy had an unused ${key} value${mask ? ` while also differing on ${keysOf(mask, tagKeys).join(', ')}` : ''}`);
  }
  if (bestScore > maskScore(mask, K)) {
    const better = levelOf(bestMask, K);
    const free = `${better === 'absolute' ? 'an' : 'a'} ${better} placement (differing on ${keysOf(bestMask, tagKeys).join(', ')}) was free`;
    const note = pl.mode !== 'kafka'
      ? range
        ? balancedNote(pl, range, c, bestMask, used)
        : `a placement differing on ${keysOf(bestMask, tagKeys).join(', ')} was free`
      : kafkaFallback
        ? `kafka mode: ${free}, but Kafka's filter only tries all non-exhausted keys at once and otherwise falls back to the least-loaded client (quirk X01)`
        : `kafka mode: ${free}, but Kafka's filter let this less-spread client through and it was the least loaded: the filter ignores keys the client lacks and keys already exhausted by the count of clients used (quirk X02)`;
    return `${note}; ${parts.join('; ')}`;
  }
  return parts.join('; ');
}

/**
 * Kafka mode, tag-aware: how many of task t's standbys (in slot order) Kafka's
 * tag phase placed; the rest came from the tag-blind fallback. Replays the
 * phase's bookkeeping (usedCount, exhausted keys, used values) over the placed
 * clients: the first standby the filter would have refused marks where the
 * phase stopped (when it stops, no free client passes, so a fallback pick never does).
 */
export function kafkaTagPhase(pl: StandbyPlacement, t: number): number {
  const p = pl.flat.problem;
  const K = p.keys;
  const W = pl.width;
  const last0 = p.active[t]!;
  if (last0 < 0) return 0; // no active owner: everything went through the fallback
  const exhausted = new Uint8Array(K);
  const used = new Set<number>();
  let usedCount = 1;
  let last = last0;
  let j = 0;
  for (; j < W; j++) {
    const c = pl.slots[t * W + j]!;
    if (c < 0) break;
    for (let k = 0; k < K; k++) {
      const v = p.clientValues[last * K + k]!;
      if (v < 0) continue;
      if (p.distinct[k]! <= usedCount) exhausted[k] = 1;
      else used.add(v);
    }
    let ok = true;
    for (let k = 0; k < K && ok; k++) {
      const v = p.clientValues[c * K + k]!;
      if (!exhausted[k] && v >= 0 && used.has(v)) ok = false;
    }
    if (!ok) break;
    usedCount++;
    last = c;
  }
  return j;
}

/** Balanced mode: its final loads and standby counts, and Kafka's range on the same input (the bounds balanced keeps). */
export interface BalancedRange {
  load: Int32Array; // actives + standbys per client, balanced's result
  count: Int32Array; // standbys per client, balanced's result
  hiN: number; // Kafka's most loaded client: hiN / hiC
  hiC: number;
  loN: number; // Kafka's least loaded client: loN / loC
  loC: number;
  maxCount: number;
  minCount: number;
  /** Per tag group its members, cheapest receiver first ((load + 1) / capacity, then index): CSR offsets + list. */
  memberStart: Int32Array;
  members: Int32Array;
}

function loadsOf(pl: StandbyPlacement): { load: Int32Array; count: Int32Array } {
  const p = pl.flat.problem;
  const load = p.load.slice();
  const count = new Int32Array(p.clients);
  for (let h = 0; h < p.holders.length; h++) count[p.holders[h]!]!++;
  for (let s = 0; s < pl.slots.length; s++) {
    const c = pl.slots[s]!;
    if (c >= 0) {
      load[c]!++;
      count[c]!++;
    }
  }
  return { load, count };
}

export function balancedRange(pl: StandbyPlacement, kafka: StandbyPlacement): BalancedRange {
  const cap = pl.flat.problem.capacity;
  const k = loadsOf(kafka);
  let hi = 0, lo = 0, maxCount = k.count[0] ?? 0, minCount = k.count[0] ?? 0;
  for (let c = 1; c < cap.length; c++) {
    if (k.load[c]! * cap[hi]! > k.load[hi]! * cap[c]!) hi = c;
    if (k.load[c]! * cap[lo]! < k.load[lo]! * cap[c]!) lo = c;
    maxCount = Math.max(maxCount, k.count[c]!);
    minCount = Math.min(minCount, k.count[c]!);
  }
  const b = loadsOf(pl);
  const p = pl.flat.problem;
  const memberStart = new Int32Array(p.groups + 1);
  for (let c = 0; c < p.clients; c++) memberStart[p.groupOf[c]! + 1]!++;
  for (let g = 0; g < p.groups; g++) memberStart[g + 1]! += memberStart[g]!;
  const order = Array.from({ length: p.clients }, (_, c) => c);
  // Sorted once, so each reason costs O(groups + copies), not a scan of every client.
  order.sort((x, y) => p.groupOf[x]! - p.groupOf[y]! || (b.load[x]! + 1) * cap[y]! - (b.load[y]! + 1) * cap[x]! || x - y);
  return { ...b, hiN: k.load[hi] ?? 0, hiC: cap[hi] ?? 1, loN: k.load[lo] ?? 0, loC: cap[lo] ?? 1, maxCount, minCount, memberStart, members: Int32Array.from(order) };
}

/**
 * Balanced mode, a copy below the best level some free client offered when it
 * was placed: what taking that client instead would have needed. Checked on
 * the final placement: whether the swap widens the task's spread at all, and
 * whether it keeps both clients inside Kafka's range of loads and counts.
 */
function balancedNote(pl: StandbyPlacement, r: BalancedRange & { t: number; slot: number }, c: number, bestMask: number, used: Set<number>): string {
  const p = pl.flat.problem;
  const K = p.keys;
  const W = pl.width;
  const cap = p.capacity;
  const tagKeys = pl.cluster.tagKeys;
  const ids = pl.cluster.clients.map((cl) => cl.id);
  const wanted = keysOf(bestMask, tagKeys).join(', ');
  const copies: number[] = [];
  if (p.active[r.t]! >= 0) copies.push(p.active[r.t]!);
  for (let h = p.holderStart[r.t]!; h < p.holderStart[r.t + 1]!; h++) copies.push(p.holders[h]!);
  for (let j = 0; j < W; j++) if (pl.slots[r.t * W + j]! >= 0) copies.push(pl.slots[r.t * W + j]!);
  const spread = (cs: number[]): number[] => {
    const out: number[] = [];
    for (let k = 0; k < K; k++) out.push(new Set(cs.map((x) => p.clientValues[x * K + k]!).filter((v) => v >= 0)).size);
    return out;
  };
  const now = spread(copies);
  // The free clients offering bestMask against the copies before this one; the least loaded first.
  let y = -1;
  for (let g = 0; g < p.groups; g++) {
    let m = 0;
    for (let k = 0; k < K; k++) {
      const v = p.groupValues[g * K + k]!;
      if (v >= 0 && !used.has(v)) m |= 1 << k;
    }
    if (m !== bestMask) continue;
    // The group's cheapest member without a copy (members are sorted, copies are few).
    let x = -1;
    for (let i = r.memberStart[g]!; i < r.memberStart[g + 1]! && x < 0; i++) if (!copies.includes(r.members[i]!)) x = r.members[i]!;
    if (x < 0) continue;
    if (y < 0 || (r.load[x]! + 1) * cap[y]! < (r.load[y]! + 1) * cap[x]! || ((r.load[x]! + 1) * cap[y]! === (r.load[y]! + 1) * cap[x]! && x < y)) y = x;
  }
  if (y < 0) return `a placement differing on ${wanted} was free when this copy was placed, but every such client holds a copy of the task now`;
  const swapped = spread(copies.map((x) => (x === c ? y : x)));
  let d = 0;
  for (let k = 0; k < K && d === 0; k++) d = swapped[k]! - now[k]!;
  const frac = (n: number, cp: number): string => (cp === 1 ? String(n) : `${n}/${cp}`);
  if (d <= 0) return `${ids[y]} (differing on ${wanted}) was free, but the task's other copies already hold what it adds: taking it instead would not widen the task's spread (${now.join('/')} values per key)`;
  if ((r.load[y]! + 1) * r.hiC > r.hiN * cap[y]!) return `a wider spread needed ${ids[y]} (differing on ${wanted}), the least loaded such client, to reach load ${frac(r.load[y]! + 1, cap[y]!)}, above Kafka's most loaded client (${frac(r.hiN, r.hiC)}); balanced stays inside Kafka's range`;
  if (r.count[y]! + 1 > r.maxCount) return `a wider spread needed ${ids[y]} (differing on ${wanted}) to hold ${r.count[y]! + 1} standbys, more than any client under Kafka (${r.maxCount}); balanced stays inside Kafka's range`;
  if ((r.load[c]! - 1) * r.loC < r.loN * cap[c]! || r.count[c]! - 1 < r.minCount) return `a wider spread needed this client to give the copy to ${ids[y]} (differing on ${wanted}), leaving it below Kafka's least loaded client or fewest standbys; balanced stays inside Kafka's range`;
  return `${ids[y]} (differing on ${wanted}) is free and inside Kafka's range after the load repair, but was not when this task's standbys were chosen, or the set search stopped at its budget (docs/standby.md)`;
}
