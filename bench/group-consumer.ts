// The consumer protocol's strategies on Kafka's own grid (issue 29): the cells of jmh-benchmarks'
// ServerSideAssignorBenchmark at 1,000 and 10,000 members, 100,000 and 500,000 partitions (100
// topics of 1,000 partitions, 1,000 topics of 500), homogeneous and heterogeneous, full and
// incremental, the way that benchmark builds them:
//   members "member<i>" with rack "rack<i % 3>"; topics "topic-<t>";
//   heterogeneous: 5 buckets; bucket b holds members [b * ceil(N / 5), (b + 1) * ceil(N / 5)) and
//     they subscribe to topics [b * ceil(T / 5), (b + 1) * ceil(T / 5));
//   incremental: N - 1 members are assigned from scratch (untimed), then "newMember" joins with the
//     subscription of member N - 2 and the rack of member N - 1, the others owning what that first
//     assignment gave them; the timed call is the rebalance. Each strategy starts from its own first answer.
// One change: Kafka's rack-aware variant puts every partition on all 3 racks, where no assignment
// can miss; here partition p's replicas sit on racks p % 3 and (p + 1) % 3 (2 replicas, 3 racks),
// so a rack-blind assignor misses about a third. Topic ids are the ones assignor derives from the
// names (src/group/topic-id.ts), handed to the jar too, so the jar's answer and assignor's can be compared.
// Strategies: assignor's uniform and range (protocol consumer) and sticky (classic) through
// assignGroup on the plain-object spec (racks included), and the 4.4.0 jar's UniformAssignor and
// RangeAssignor (bench/java/ConsumerAssignorTiming.java, one JVM per cell and assignor, heap JAVA_HEAP).
// Time: the first call (cold), WARMUPS untimed calls, then the median of RUNS timed calls, both sides.
// assignor's uniform and range are timed three ways: the whole assignGroup call (reading and checking
// the plain objects, the report), the same without racks, and the strategy alone from the checked
// group, which is what the jar's time covers (its GroupSpec is built outside the timing).
// Columns: moved (incremental: partitions whose owner changed, against the strategy's own previous
// assignment), spread (max - min partitions per member), rack misses (partitions owned by a member
// whose rack holds no replica), and whether assignor's answer equals the jar's.
import { compileJava, runJava } from '../test/kafka/jvm.js';
import { assignGroup, type GroupSpec, type GroupStrategy } from '../src/group/index.js';
import { derivedTopicId, formatTopicId } from '../src/group/topic-id.js';
import { assignConsumer, type ConsumerStrategy } from '../src/group/consumer/assign.js';
import { readGroup } from '../src/group/input.js';
import { previousOwners } from '../src/group/report.js';
import { fileURLToPath } from 'node:url';

export const JAVA_HEAP = process.env.BENCH_JAVA_HEAP ?? '6g';
const WARMUPS = 3;
const RUNS = 5;
const RACKS = [['rack0', 'rack1'], ['rack1', 'rack2'], ['rack2', 'rack0']] as const;

export interface GridRow {
  cell: string;
  members: number;
  partitions: number;
  topics: number;
  subscription: 'homogeneous' | 'heterogeneous';
  kind: 'full' | 'incremental';
  strategy: string;
  ms: number;
  coldMs: number;
  /** assignor's uniform / range: the same call on the spec without racks (they ignore racks; the answer is the same). */
  msNoRacks?: number;
  /**
   * assignor's uniform / range: the strategy alone, from the checked group and its current owners
   * (readGroup and previousOwners untimed), as the jar is timed from a GroupSpec built outside its timing.
   */
  msAlone?: number;
  moved: number | null;
  spread: number;
  rackMisses: number;
  /** assignor's uniform / range only: its owners equal the jar's on this cell. */
  equalsJar?: boolean;
  note?: string;
}

interface Cell {
  M: number;
  T: number;
  P: number;
  heterogeneous: boolean;
  incremental: boolean;
}

const topicName = (t: number): string => `topic-${t}`;

/** Member i's topics (index range) in a group of n members. */
function subscription(cell: Cell, n: number, i: number): [number, number] {
  if (!cell.heterogeneous) return [0, cell.T];
  const buckets = Math.min(5, n);
  const perTopic = Math.ceil(cell.T / buckets);
  const perMember = Math.ceil(n / buckets);
  const b = Math.floor(i / perMember);
  return [b * perTopic, Math.min((b + 1) * perTopic, cell.T)];
}

/** The members present at the timed call: index, id, rack, topic range. */
function membersOf(cell: Cell, timed: boolean): { index: number; id: string; rack: string; topics: [number, number] }[] {
  const n = cell.incremental ? cell.M - 1 : cell.M;
  const out = Array.from({ length: n }, (_, i) => ({ index: i, id: `member${i}`, rack: `rack${i % 3}`, topics: subscription(cell, n, i) }));
  if (cell.incremental && timed) out.push({ index: cell.M - 1, id: 'newMember', rack: `rack${(cell.M - 1) % 3}`, topics: out[n - 1]!.topics });
  return out;
}

/** Owner (member index) per partition, topic-major. */
type Owners = Int32Array;

function specOf(cell: Cell, timed: boolean, prev: Owners | null, withRacks = true): GroupSpec {
  const members = membersOf(cell, timed);
  const names = Array.from({ length: cell.T }, (_, t) => topicName(t));
  const racks = Array.from({ length: cell.P }, (_, p) => RACKS[p % 3]!);
  const owned = new Map<number, Record<string, number[]>>(members.map((m) => [m.index, {}]));
  if (prev !== null) {
    for (let t = 0, at = 0; t < cell.T; t++) {
      for (let p = 0; p < cell.P; p++, at++) {
        const mine = owned.get(prev[at]!);
        if (mine !== undefined) (mine[names[t]!] ??= []).push(p);
      }
    }
  }
  const topicLists = new Map<string, string[]>();
  return {
    topics: names.map((name) => ({ name, partitions: cell.P, ...(withRacks ? { racks } : {}) })),
    members: members.map((m) => {
      const key = `${m.topics[0]}-${m.topics[1]}`;
      let topics = topicLists.get(key);
      if (topics === undefined) topicLists.set(key, (topics = names.slice(m.topics[0], m.topics[1])));
      return { id: m.id, rack: m.rack, topics, ...(prev === null ? {} : { owned: owned.get(m.index)!, generation: 1 }) };
    }),
  };
}

function ownersOf(result: ReturnType<typeof assignGroup>, cell: Cell): Owners {
  const index = result.memberIds.map((id) => (id === 'newMember' ? cell.M - 1 : Number(id.slice('member'.length))));
  const out = new Int32Array(cell.T * cell.P).fill(-1);
  for (let t = 0; t < cell.T; t++) {
    const o = result.owners.get(topicName(t));
    if (o === undefined) continue;
    for (let p = 0; p < o.length; p++) out[t * cell.P + p] = o[p]! < 0 ? -1 : index[o[p]!]!;
  }
  return out;
}

/** Moved (against prev; null: none), spread and rack misses of an assignment. */
function measure(cell: Cell, owners: Owners, prev: Owners | null): { moved: number | null; spread: number; rackMisses: number } {
  const members = membersOf(cell, true);
  const count = new Int32Array(cell.M);
  let moved = 0;
  let rackMisses = 0;
  for (let at = 0; at < owners.length; at++) {
    const o = owners[at]!;
    if (prev !== null && prev[at]! >= 0 && prev[at] !== o) moved++;
    if (o < 0) continue;
    count[o]!++;
    // Member o's rack is o % 3; partition p's replicas are on p % 3 and (p + 1) % 3.
    if (o % 3 === ((at % cell.P) + 2) % 3) rackMisses++;
  }
  let max = 0;
  let min = Infinity;
  for (const m of members) (max = Math.max(max, count[m.index]!)), (min = Math.min(min, count[m.index]!));
  return { moved: prev === null ? null : moved, spread: max - min, rackMisses };
}

/** The first call, WARMUPS untimed calls, the median of RUNS timed calls. */
export function timed<T>(fn: () => T, warmups = WARMUPS, runs = RUNS): { value: T; ms: number; coldMs: number } {
  let t = performance.now();
  let value = fn();
  const coldMs = performance.now() - t;
  for (let i = 0; i < warmups; i++) value = fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    t = performance.now();
    value = fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { value, ms: ms[Math.floor(ms.length / 2)]!, coldMs };
}

const OPTIONS: Record<string, { strategy: GroupStrategy; protocol?: 'consumer' }> = {
  'assignor uniform': { protocol: 'consumer', strategy: 'uniform' },
  'assignor range': { protocol: 'consumer', strategy: 'range' },
  'assignor sticky (classic)': { strategy: 'sticky' },
};

export function topicIdsText(names: readonly string[]): string {
  return `${names.map((n) => formatTopicId(derivedTopicId(n))).join('\n')}\n`;
}

let classpath: string | undefined;
export function consumerJava(): string {
  return (classpath ??= compileJava('coordinator', [fileURLToPath(new URL('./java/ConsumerAssignorTiming.java', import.meta.url))], fileURLToPath(new URL('../test/kafka/target/consumer-bench', import.meta.url))));
}

/** Parses the harness's output: timings and owners per step. */
export function parseJava(stdout: string): { ms: Map<string, number[]>; owners: Map<string, Int32Array> } {
  const ms = new Map<string, number[]>();
  const owners = new Map<string, Int32Array>();
  for (const line of stdout.split('\n')) {
    if (line.startsWith('{')) {
      const j = JSON.parse(line) as { step: string; ms: number[] };
      ms.set(j.step, j.ms);
    } else if (line.startsWith('owners ')) {
      const at = line.lastIndexOf(' ');
      owners.set(line.slice('owners '.length, at), Int32Array.from(line.slice(at + 1).split(','), Number));
    }
  }
  return { ms, owners };
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runCell(cell: Cell): Promise<GridRow[]> {
  const cellName = `${cell.M / 1000}k / ${cell.T * cell.P / 1000}k`;
  const base = { cell: cellName, members: cell.M, partitions: cell.T * cell.P, topics: cell.T, subscription: cell.heterogeneous ? 'heterogeneous' as const : 'homogeneous' as const, kind: cell.incremental ? 'incremental' as const : 'full' as const };
  console.log(`\n${cellName}, ${base.subscription}, ${base.kind}`);
  const rows: GridRow[] = [];
  const mine = new Map<string, Owners>();
  for (const [strategy, options] of Object.entries(OPTIONS)) {
    const prev: Owners | null = cell.incremental ? ownersOf(assignGroup(specOf(cell, false, null), options), cell) : null;
    const spec = specOf(cell, true, prev);
    const r = timed(() => assignGroup(spec, options));
    const owners = ownersOf(r.value, cell);
    mine.set(strategy, owners);
    let msNoRacks: number | undefined;
    let msAlone: number | undefined;
    if (options.protocol === 'consumer') {
      const bare = specOf(cell, true, prev, false);
      const n = timed(() => assignGroup(bare, options));
      if (!ownersOf(n.value, cell).every((o, i) => o === owners[i])) throw new Error(`${strategy}: racks changed the answer`);
      msNoRacks = n.ms;
      const group = readGroup(spec);
      const current = previousOwners(group).owners;
      msAlone = timed(() => assignConsumer(group, current, options.strategy as ConsumerStrategy)).ms;
    }
    rows.push({ ...base, strategy, ms: r.ms, coldMs: r.coldMs, ...(msNoRacks === undefined ? {} : { msNoRacks, msAlone }), ...measure(cell, owners, prev) });
    console.log(`  ${strategy}: ${r.ms.toFixed(1)} ms (cold ${r.coldMs.toFixed(1)}${msNoRacks === undefined ? '' : `; without racks ${msNoRacks.toFixed(1)}; strategy alone ${msAlone!.toFixed(1)}`}), moved ${rows.at(-1)!.moved ?? '-'}, spread ${rows.at(-1)!.spread}, rack misses ${rows.at(-1)!.rackMisses}`);
  }
  const ids = topicIdsText(Array.from({ length: cell.T }, (_, t) => topicName(t)));
  for (const [assignor, strategy, ours] of [['uniform', "jar's UniformAssignor", 'assignor uniform'], ['range', "jar's RangeAssignor", 'assignor range']] as const) {
    try {
      const out = parseJava(runJava(consumerJava(), 'ConsumerAssignorTiming', ['grid', assignor, String(cell.M), String(cell.T), String(cell.P), base.subscription, base.kind, String(WARMUPS), String(RUNS)], ids, JAVA_HEAP).stdout);
      const step = cell.incremental ? 'incremental' : 'full';
      const ms = out.ms.get(step)!;
      const owners = out.owners.get(step)!;
      rows.push({ ...base, strategy, ms: median(ms.slice(1)), coldMs: ms[0]!, ...measure(cell, owners, cell.incremental ? out.owners.get('initial')! : null) });
      const ourRow = rows.find((r) => r.strategy === ours)!;
      const a = mine.get(ours)!;
      ourRow.equalsJar = a.length === owners.length && a.every((o, i) => o === owners[i]);
      console.log(`  ${strategy}: ${rows.at(-1)!.ms.toFixed(1)} ms (cold ${ms[0]!.toFixed(1)}), moved ${rows.at(-1)!.moved ?? '-'}, spread ${rows.at(-1)!.spread}, rack misses ${rows.at(-1)!.rackMisses}; ${ours} equals it: ${ourRow.equalsJar}`);
    } catch (e) {
      const note = `Java step failed: ${(e as Error).message.split('\n')[0]}`;
      rows.push({ ...base, strategy, ms: NaN, coldMs: NaN, moved: null, spread: NaN, rackMisses: NaN, note });
      console.log(`  ${strategy}: ${note}`);
    }
  }
  return rows;
}

/** Every cell of the grid (BENCH_GRID_CELLS=1k/100k,... picks some). */
export async function consumerGrid(): Promise<GridRow[]> {
  const pick = process.env.BENCH_GRID_CELLS?.split(',');
  const rows: GridRow[] = [];
  for (const M of [1000, 10000]) {
    for (const [T, P] of [[100, 1000], [1000, 500]] as const) {
      if (pick !== undefined && !pick.includes(`${M / 1000}k/${(T * P) / 1000}k`)) continue;
      for (const heterogeneous of [false, true]) {
        for (const incremental of [false, true]) rows.push(...(await runCell({ M, T, P, heterogeneous, incremental })));
      }
    }
  }
  return rows;
}

/** The markdown table: one row per cell and strategy. */
export function gridTable(rows: readonly GridRow[]): string {
  const f = (x: number, d = 1): string => (Number.isNaN(x) ? 'n/a' : x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));
  const lines = ['| members / partitions | subscriptions | assignment | strategy | time ms (cold) | without racks ms | strategy alone ms | moved | spread | rack misses | = jar |', '|---|---|---|---|---:|---:|---:|---:|---:|---:|---|'];
  for (const r of rows) {
    lines.push(`| ${r.cell} | ${r.subscription} | ${r.kind} | ${r.strategy} | ${f(r.ms)} (${f(r.coldMs, 0)}) | ${r.msNoRacks === undefined ? '' : f(r.msNoRacks)} | ${r.msAlone === undefined ? '' : f(r.msAlone)} | ${r.moved === null ? '–' : f(r.moved, 0)} | ${f(r.spread, 0)} | ${f(r.rackMisses, 0)} | ${r.equalsJar === undefined ? '' : r.equalsJar ? 'yes' : 'no'}${r.note === undefined ? '' : ` ${r.note}`} |`);
  }
  return lines.join('\n');
}
