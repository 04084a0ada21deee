// Strategies side by side on one event sequence (issue 24): assignor's sticky, range and
// round-robin (assignGroup, the plain-object API), the consumer protocol's uniform and range
// (issue 29), Kafka's CooperativeStickyAssignor (bench/java/GroupStrategiesTiming.java, one JVM)
// and the 4.4.0 broker's UniformAssignor and RangeAssignor (bench/java/ConsumerAssignorTiming.java,
// one JVM per assignor, the same topic ids as assignor's). T topics x P partitions, M members
// subscribed to every topic, member ids consumer-00000 ...:
//   1. first assignment; 2. the first member leaves; 3. every tenth topic doubles; 4. a member joins.
// Each strategy's step starts from its own previous assignment, owned at the next generation.
// Columns:
//   time: p50 wall ms (assignGroup from the plain objects; Java: median of its warm runs, cold first run beside it);
//   partitions moved: partitions taken from an owner still in the group;
//   keys moved: partitions whose key range changed member. After a growth from B to k*B
//     partitions, the keys of new partition q all lived on q mod B; so a partition counts when its
//     owner differs from the previous owner of q mod B (without growth: of q itself), including
//     partitions whose previous owner left;
//   spread: largest minus smallest partition count per member.
import { compileJava, runJava } from '../test/kafka/jvm.js';
import { assignGroup, type GroupSpec, type GroupStrategy } from '../src/group/index.js';
import { Bench } from 'tinybench';
import { consumerJava, JAVA_HEAP, median, parseJava, topicIdsText } from './group-consumer.js';
import { fileURLToPath } from 'node:url';

export interface StrategyRow {
  size: string;
  step: string;
  strategy: string;
  ms: number;
  coldMs?: number;
  moved: number;
  keysMoved: number;
  spread: number;
  note?: string;
}

const STEPS = ['first assignment', 'one member leaves', '10% of topics double', 'one member joins'] as const;

interface Step {
  name: string;
  /** Member indices present. */
  members: number[];
  grown: boolean;
  generation: number;
}

export function steps(M: number): Step[] {
  const all = Array.from({ length: M }, (_, m) => m);
  const left = all.slice(1);
  return [
    { name: STEPS[0], members: all, grown: false, generation: 0 },
    { name: STEPS[1], members: left, grown: false, generation: 1 },
    { name: STEPS[2], members: left, grown: true, generation: 2 },
    { name: STEPS[3], members: [...left, M], grown: true, generation: 3 },
  ];
}

const memberId = (m: number): string => `consumer-${String(m).padStart(5, '0')}`;

/** Owner (member index) of every partition, topic-major, with each topic's count. */
interface Owners {
  counts: Int32Array;
  owner: Int32Array;
}

export function countsOf(T: number, P: number, grown: boolean): Int32Array {
  return Int32Array.from({ length: T }, (_, t) => (grown && t % 10 === 0 ? 2 * P : P));
}

export function specOf(step: Step, T: number, P: number, prev: Owners | null): GroupSpec {
  const counts = countsOf(T, P, step.grown);
  const names = Array.from({ length: T }, (_, t) => `events-${String(t).padStart(4, '0')}`);
  const owned = new Map<number, Record<string, number[]>>();
  for (const m of step.members) owned.set(m, {});
  if (prev !== null) {
    let at = 0;
    for (let t = 0; t < T; t++) {
      for (let p = 0; p < prev.counts[t]!; p++, at++) {
        const mine = owned.get(prev.owner[at]!);
        if (mine === undefined) continue;
        (mine[names[t]!] ??= []).push(p);
      }
    }
  }
  return {
    topics: names.map((name, t) => ({ name, partitions: counts[t]!, ...(step.grown && prev !== null && prev.counts[t] !== counts[t] ? { previousPartitions: prev.counts[t]! } : {}) })),
    members: step.members.map((m) => ({ id: memberId(m), topics: names, ...(prev === null ? {} : { owned: owned.get(m)!, generation: step.generation }) })),
  };
}

/** Moves, keys moved and spread of `next` against `prev` (null: first assignment). */
function measure(prev: Owners | null, next: Owners, present: readonly number[]): { moved: number; keysMoved: number; spread: number } {
  const here = new Set(present);
  let moved = 0;
  let keysMoved = 0;
  const total = new Map<number, number>(present.map((m) => [m, 0]));
  let at = 0;
  let prevStart = 0;
  for (let t = 0; t < next.counts.length; t++) {
    const C = next.counts[t]!;
    const B = prev === null ? C : prev.counts[t]!;
    for (let q = 0; q < C; q++) {
      const o = next.owner[at + q]!;
      total.set(o, (total.get(o) ?? 0) + 1);
      if (prev === null) continue;
      const before = prev.owner[prevStart + (q % B)]!;
      if (before !== o) keysMoved++;
      if (q < B && prev.owner[prevStart + q]! !== o && here.has(prev.owner[prevStart + q]!)) moved++;
    }
    at += C;
    prevStart += B;
  }
  const counts = [...total.values()];
  return { moved, keysMoved, spread: Math.max(...counts) - Math.min(...counts) };
}

export function ownersOf(result: ReturnType<typeof assignGroup>, T: number, counts: Int32Array): Owners {
  const index = new Map(result.memberIds.map((id, i) => [i, Number(id.slice('consumer-'.length))]));
  const owner = new Int32Array(counts.reduce((a, b) => a + b, 0)).fill(-1);
  let at = 0;
  for (let t = 0; t < T; t++) {
    const o = result.owners.get(`events-${String(t).padStart(4, '0')}`)!;
    for (let p = 0; p < o.length; p++) owner[at + p] = o[p]! < 0 ? -1 : index.get(o[p]!)!;
    at += o.length;
  }
  return { counts, owner };
}

async function p50(fn: () => unknown, iterations: number): Promise<number> {
  const bench = new Bench({ iterations, time: 0, warmupIterations: 1 });
  bench.add('x', fn);
  await bench.run();
  return (bench.tasks[0]!.result as { latency?: { p50?: number } } | undefined)?.latency?.p50 ?? NaN;
}

async function ours(size: string, T: number, P: number, M: number, strategy: GroupStrategy, iterations: number, protocol: 'classic' | 'consumer' = 'classic'): Promise<StrategyRow[]> {
  const label = protocol === 'consumer' ? `assignor ${strategy} (consumer)` : `assignor ${strategy}`;
  const rows: StrategyRow[] = [];
  let prev: Owners | null = null;
  for (const step of steps(M)) {
    const spec = specOf(step, T, P, prev);
    let result: ReturnType<typeof assignGroup> | undefined;
    const ms = await p50(() => {
      result = assignGroup(spec, { protocol, strategy });
    }, iterations);
    const next = ownersOf(result!, T, countsOf(T, P, step.grown));
    rows.push({ size, step: step.name, strategy: label, ms, ...measure(prev, next, step.members) });
    console.log(`  ${label} / ${step.name}: ${ms.toFixed(0)} ms, moved ${rows.at(-1)!.moved}, keys moved ${rows.at(-1)!.keysMoved}, spread ${rows.at(-1)!.spread}`);
    prev = next;
  }
  return rows;
}

function java(size: string, T: number, P: number, M: number, runs: number): StrategyRow[] {
  const contender = "Kafka's CooperativeStickyAssignor";
  try {
    const cp = compileJava('kafka', [fileURLToPath(new URL('./java/GroupStrategiesTiming.java', import.meta.url))], fileURLToPath(new URL('../test/kafka/target/group-bench', import.meta.url)));
    const out = runJava(cp, 'GroupStrategiesTiming', [String(T), String(P), String(M), String(runs)], undefined, T * P > 2e6 ? '12g' : '6g').stdout.split('\n');
    const rows: StrategyRow[] = [];
    let prev: Owners | null = null;
    const all = steps(M);
    for (let i = 0; i < all.length; i++) {
      const timing = JSON.parse(out.find((l) => l.startsWith(`{"scenario":"${all[i]!.name}"`))!) as { ms: number[] };
      const line = out.find((l) => l.startsWith(`owners ${all[i]!.name} `))!;
      const next: Owners = { counts: countsOf(T, P, all[i]!.grown), owner: Int32Array.from(line.slice(line.lastIndexOf(' ') + 1).split(','), Number) };
      const warm = timing.ms.slice(1).sort((a, b) => a - b);
      rows.push({ size, step: all[i]!.name, strategy: contender, ms: warm.length > 0 ? warm[Math.floor(warm.length / 2)]! : timing.ms[0]!, coldMs: timing.ms[0]!, ...measure(prev, next, all[i]!.members) });
      console.log(`  java / ${all[i]!.name}: ${rows.at(-1)!.ms.toFixed(0)} ms (cold ${timing.ms[0]!.toFixed(0)}), moved ${rows.at(-1)!.moved}, keys moved ${rows.at(-1)!.keysMoved}, spread ${rows.at(-1)!.spread}`);
      prev = next;
    }
    return rows;
  } catch (e) {
    const note = `Java step failed: ${(e as Error).message.split('\n')[0]}`;
    return STEPS.map((step) => ({ size, step, strategy: contender, ms: NaN, moved: NaN, keysMoved: NaN, spread: NaN, note }));
  }
}

/** The 4.4.0 jar's UniformAssignor or RangeAssignor on the sequence (one JVM, `warmups` untimed calls per step). */
function jarConsumer(size: string, T: number, P: number, M: number, assignor: 'uniform' | 'range', warmups: number, runs: number): StrategyRow[] {
  const contender = assignor === 'uniform' ? "jar's UniformAssignor" : "jar's RangeAssignor";
  try {
    const ids = topicIdsText(Array.from({ length: T }, (_, t) => `events-${String(t).padStart(4, '0')}`));
    const out = parseJava(runJava(consumerJava(), 'ConsumerAssignorTiming', ['sequence', assignor, String(T), String(P), String(M), String(warmups), String(runs)], ids, T * P > 2e6 ? '12g' : JAVA_HEAP).stdout);
    const rows: StrategyRow[] = [];
    let prev: Owners | null = null;
    for (const step of steps(M)) {
      const ms = out.ms.get(step.name)!;
      const next: Owners = { counts: countsOf(T, P, step.grown), owner: out.owners.get(step.name)! };
      rows.push({ size, step: step.name, strategy: contender, ms: ms.length > 1 ? median(ms.slice(1)) : ms[0]!, coldMs: ms[0]!, ...measure(prev, next, step.members) });
      console.log(`  ${contender} / ${step.name}: ${rows.at(-1)!.ms.toFixed(0)} ms (cold ${ms[0]!.toFixed(0)}), moved ${rows.at(-1)!.moved}, keys moved ${rows.at(-1)!.keysMoved}, spread ${rows.at(-1)!.spread}`);
      prev = next;
    }
    return rows;
  } catch (e) {
    const note = `Java step failed: ${(e as Error).message.split('\n')[0]}`;
    return STEPS.map((step) => ({ size, step, strategy: contender, ms: NaN, moved: NaN, keysMoved: NaN, spread: NaN, note }));
  }
}

/** Every strategy and Kafka's CooperativeStickyAssignor on the sequence, at T topics x P partitions x M members. */
export async function compareStrategies(T: number, P: number, M: number, options: { iterations?: number; javaRuns?: number; cooperative?: boolean } = {}): Promise<StrategyRow[]> {
  const size = `${T * P >= 1e6 ? `${(T * P) / 1e6}M` : T * P} partitions x ${M} members`;
  console.log(`\nstrategies compared: ${size}`);
  const rows: StrategyRow[] = [];
  for (const strategy of ['sticky', 'range', 'round-robin'] as const) rows.push(...(await ours(size, T, P, M, strategy, options.iterations ?? 3)));
  for (const strategy of ['uniform', 'range'] as const) rows.push(...(await ours(size, T, P, M, strategy, options.iterations ?? 3, 'consumer')));
  if (options.cooperative !== false) rows.push(...java(size, T, P, M, options.javaRuns ?? 4));
  for (const assignor of ['uniform', 'range'] as const) rows.push(...jarConsumer(size, T, P, M, assignor, options.javaRuns === undefined ? 1 : 0, options.javaRuns === undefined ? 3 : options.javaRuns - 1));
  return rows;
}

/** The markdown table: one row per step and strategy. */
export function strategyTable(rows: readonly StrategyRow[]): string {
  const f = (x: number): string => (Number.isNaN(x) ? 'n/a' : x.toFixed(0));
  const lines = ['| size | step | strategy | time ms | partitions moved | keys moved | spread |', '|---|---|---|---:|---:|---:|---:|'];
  for (const step of STEPS) {
    for (const r of rows.filter((x) => x.step === step)) lines.push(`| ${r.size} | ${r.step} | ${r.strategy} | ${f(r.ms)}${r.coldMs === undefined ? '' : ` (cold ${f(r.coldMs)})`} | ${f(r.moved)} | ${f(r.keysMoved)} | ${f(r.spread)}${r.note === undefined ? '' : ` ${r.note}`} |`);
  }
  return lines.join('\n');
}
