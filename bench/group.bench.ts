// Consumer-group assignment benchmark (issue 9). Run: npm run bench:group
// 1,000 topics x 1,000 partitions (1,000,000 partitions), 1,000 members subscribed to every topic:
//  1. the first assignment (no member owns anything);
//  2. a rebalance after one member leaves (the others claim what they own);
//  3. a rebalance after 10% of the topics double (1,000 -> 2,000 partitions);
//  4. KafkaJS's round-robin assigner on the same three inputs.
// StickyAssigner is timed three ways, WASM and the reference twin: the whole leader call
// (`assign()`: decode 1,000 subscriptions with their claims, plan, encode 1,000 assignments), the
// planner alone (decoded input -> per-member partition lists), and the kernel alone. Moved
// partitions are reported beside the times. Kafka's own CooperativeStickyAssignor (kafka-clients
// 4.4.0 from Maven Central, bench/java/CooperativeStickyTiming.java, in a JVM of its own) runs on
// the same three inputs: its cold first run and its JIT-warm median. If the Java step fails, its
// rows say so. Writes bench/results/group.json and a markdown table.
//
// Then the strategies side by side (bench/group-strategies.ts, issue 24): assignor's sticky, range
// and round-robin and Kafka's CooperativeStickyAssignor on one event sequence (first assignment,
// a member leaves, 10% of topics double, a member joins) with time, partitions moved, keys moved
// and spread, at 1M partitions x 1,000 members, and at 10M x 1,000 with BENCH_GROUP_10M=1 (Java's
// cooperative sticky assignor needs minutes and ~10 GB there; BENCH_GROUP_10M_COOPERATIVE=0 leaves it
// out at 10M). The consumer protocol's uniform and
// range (issue 29), assignor's and the 4.4.0 jar's, run the same sequence.
//
// Then Kafka's own grid (bench/group-consumer.ts, issue 29): the cells of jmh-benchmarks'
// ServerSideAssignorBenchmark (1,000 and 10,000 members x 100,000 and 500,000 partitions,
// homogeneous and heterogeneous, full and incremental) with assignor's uniform, range and sticky
// and the jar's UniformAssignor and RangeAssignor: time, moves, spread, rack misses.
// BENCH_GROUP_STRATEGIES_ONLY=1 runs only these two parts; BENCH_GROUP_GRID_ONLY=1 only the grid.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { compileJava, runJava } from '../test/kafka/jvm.js';
import { Bench } from 'tinybench';
import { PartitionAssigners, type Cluster, type GroupMember, type Logger } from 'kafkajs';
import { loadKernels, type EngineName } from '../src/engine/kernels.js';
import { createStickyAssigner, type StickyAssignmentReport } from '../src/kafkajs/index.js';
import { planGroup, type PlanMember, type PlanTopic } from '../src/group/sticky/plan.js';
import { decodeAssignment, decodeAssignmentNote, decodeClaims, decodeSubscription, encodeClaims, encodeSubscription, TopicListCache, type Claims } from '../src/group/protocol.js';
import { compareStrategies, strategyTable, type StrategyRow } from './group-strategies.js';
import { consumerGrid, gridTable, JAVA_HEAP } from './group-consumer.js';

const TOPICS = Number(process.env.BENCH_TOPICS ?? 1000);
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 1000);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1000);
const TARGET_MS = 500;

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, namespace: () => quiet, setLogLevel: () => undefined };

// xorshift32: the same member ids every run.
let seed = 0x2545f491;
function rnd(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}

const topicNames = Array.from({ length: TOPICS }, (_, i) => `events-${String(i).padStart(4, '0')}`);
const memberIds = Array.from({ length: MEMBERS }, () => `consumer-${(rnd().toString(16) + rnd().toString(16)).padEnd(16, '0')}-${rnd().toString(16)}`);

/** KafkaJS's metadata shape for the given partition counts (built once, as KafkaJS holds it). */
function fakeCluster(counts: Map<string, number>): Cluster {
  const topicMetadata = [...counts].map(([topic, n]) => ({
    topicErrorCode: 0,
    topic,
    partitionMetadata: Array.from({ length: n }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: 0, replicas: [0], isr: [0] })),
  }));
  const byTopic = new Map(topicMetadata.map((t) => [t.topic, t.partitionMetadata]));
  const meta = { brokers: [{ nodeId: 0, host: '127.0.0.1', port: 9092 }], topicMetadata };
  return {
    metadata: async () => meta,
    findTopicPartitionMetadata: (t: string) => byTopic.get(t) ?? [],
    findGroupCoordinator: async () => ({}),
  } as unknown as Cluster;
}

/** Owner per partition (topic-major) from encoded assignments. */
function ownersOf(out: { memberId: string; memberAssignment: Buffer }[], counts: Map<string, number>): Map<string, Int32Array> {
  const owners = new Map([...counts].map(([t, n]) => [t, new Int32Array(n).fill(-1)]));
  const index = new Map(memberIds.map((m, i) => [m, i]));
  for (const o of out) {
    const a = decodeAssignment(o.memberAssignment);
    if (a === null) continue;
    a.topics.forEach((t, k) => {
      for (const p of a.partitions[k]!) owners.get(t)![p] = index.get(o.memberId)!;
    });
  }
  return owners;
}

function moves(before: Map<string, Int32Array>, after: Map<string, Int32Array>, members: Set<number>): { moved: number; placed: number } {
  let moved = 0;
  let placed = 0;
  for (const [t, a] of after) {
    const b = before.get(t)!;
    for (let p = 0; p < a.length; p++) {
      const prev = p < b.length ? b[p]! : -1;
      if (prev < 0 || !members.has(prev)) placed++;
      else if (prev !== a[p]) moved++;
    }
  }
  return { moved, placed };
}

/** The subscription each member sends, claiming what `out` gave it at `generation`. */
function subscriptionsAfter(out: { memberId: string; memberAssignment: Buffer }[], generation: number): Map<string, Buffer> {
  const subs = new Map<string, Buffer>();
  const topicIndex = new Map(topicNames.map((t, i) => [t, i]));
  for (const o of out) {
    const a = decodeAssignment(o.memberAssignment)!;
    const note = decodeAssignmentNote(a.userData)!;
    const start = [0];
    const parts: number[] = [];
    for (const ps of a.partitions) {
      parts.push(...ps);
      start.push(parts.length);
    }
    const claims: Claims = { generation, rack: null, fingerprint: note.fingerprint, topic: Int32Array.from(a.topics, (t) => topicIndex.get(t)!), count: note.counts, start: Int32Array.from(start), partitions: Int32Array.from(parts) };
    subs.set(o.memberId, Buffer.from(encodeSubscription(0, topicNames, encodeClaims(claims))));
  }
  return subs;
}

/** The planner's input as assign() builds it (identical subscriptions decoded once). */
function planInput(members: GroupMember[], counts: Map<string, number>): { planMembers: PlanMember[]; topics: PlanTopic[] } {
  const cache = new TopicListCache();
  const planMembers = members.map(({ memberId, memberMetadata }) => {
    const sub = decodeSubscription(memberMetadata, cache)!;
    const claims = sub.userData.length === 0 ? null : decodeClaims(sub.userData, sub.topics.length);
    return { memberId, topics: sub.topics, claims, readable: true };
  });
  return { planMembers, topics: [...counts].map(([name, partitions]) => ({ name, partitions })) };
}

interface Row {
  scenario: string;
  /** Set on the Java rows: the first run in a fresh JVM (the p50 column is the median of the rest). */
  coldMs?: number;
  note?: string;
  contender: string;
  engine: string;
  p50ms: number;
  /** Median CPU time (user + system, all of the process's threads) per iteration. */
  cpuP50ms: number;
  moved?: number;
  placed?: number;
}

interface Timing {
  wall: number;
  cpu: number;
}

/** tinybench p50 of the wall time, and the median CPU time of the same iterations (the warm-up excluded). */
async function p50(fn: () => Promise<unknown> | unknown, iterations = 5): Promise<Timing> {
  const cpu: number[] = [];
  const bench = new Bench({ iterations, time: 0, warmupIterations: 1 });
  bench.add('x', async () => {
    const c = process.cpuUsage();
    await fn();
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  });
  await bench.run();
  const r = bench.tasks[0]!.result as { latency?: { p50?: number } } | undefined;
  const measured = cpu.slice(cpu.length - iterations).sort((a, b) => a - b);
  return { wall: r?.latency?.p50 ?? NaN, cpu: measured[Math.floor(measured.length / 2)] ?? NaN };
}

const JAVA_SOURCE = fileURLToPath(new URL('./java/CooperativeStickyTiming.java', import.meta.url));
const JAVA_CLASSES = fileURLToPath(new URL('../test/kafka/target/group-bench', import.meta.url));
const JAVA_RUNS = Number(process.env.BENCH_JAVA_RUNS ?? 4);

/** Kafka's CooperativeStickyAssignor on the same three inputs (one JVM; runs per scenario, the first cold). */
function javaRows(): Row[] {
  const contender = "Kafka's CooperativeStickyAssignor.assignPartitions (JVM)";
  const names = ['first assignment', 'one member leaves', '10% of topics double'];
  try {
    const cp = compileJava('kafka', [JAVA_SOURCE], JAVA_CLASSES);
    const r = runJava(cp, 'CooperativeStickyTiming', [String(TOPICS), String(PARTITIONS), String(MEMBERS), String(JAVA_RUNS)], undefined, '6g');
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { scenario: string; ms: number[]; moved: number; placed: number });
    return lines.map((l) => {
      const warm = l.ms.slice(1).sort((a, b) => a - b);
      return { scenario: l.scenario, contender, engine: 'kafka-clients 4.4.0', coldMs: l.ms[0]!, p50ms: warm.length > 0 ? warm[Math.floor(warm.length / 2)]! : l.ms[0]!, cpuP50ms: NaN, moved: l.moved, placed: l.placed };
    });
  } catch (e) {
    const note = `Java step failed: ${(e as Error).message.split('\n')[0]}`;
    return names.map((scenario) => ({ scenario, contender, engine: 'kafka-clients 4.4.0', p50ms: NaN, cpuP50ms: NaN, note }));
  }
}

/** ms for 1e8 integer adds: how busy the machine was (about 70-100 ms on an idle core here). */
function calibrate(): number {
  const t = performance.now();
  let s = 0;
  for (let i = 0; i < 1e8; i++) s = (s + i * 7) | 0;
  if (s === 42) console.log('');
  return performance.now() - t;
}

async function main(): Promise<void> {
  const wasm: EngineName = loadKernels({ engine: 'wasm' }).name;
  const calibrationBefore = calibrate();
  console.log(`node ${process.version}, ${cpus().length} cpus (${cpus()[0]?.model}); load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; 1e8 adds ${calibrationBefore.toFixed(0)} ms`);
  console.log(`${TOPICS} topics x ${PARTITIONS} partitions = ${TOPICS * PARTITIONS} partitions, ${MEMBERS} members`);

  const counts = new Map(topicNames.map((t) => [t, PARTITIONS]));
  const grownCounts = new Map(topicNames.map((t, i) => [t, i % 10 === 0 ? 2 * PARTITIONS : PARTITIONS]));
  const cluster = fakeCluster(counts);
  const grownCluster = fakeCluster(grownCounts);
  const all = new Set(memberIds.map((_, i) => i));

  // Inputs of the three scenarios, as the leader receives them.
  const fresh: GroupMember[] = memberIds.map((memberId) => ({ memberId, memberMetadata: Buffer.from(encodeSubscription(0, topicNames, new Uint8Array(0))) }));
  const reports: StickyAssignmentReport[] = [];
  const sticky = createStickyAssigner({ onAssignment: (r) => reports.push(r) })({ cluster, groupId: 'bench', logger: quiet });
  const first = await sticky.assign({ members: fresh, topics: topicNames });
  const firstOwners = ownersOf(first, counts);
  const claimed = subscriptionsAfter(first, 1);
  const left = memberIds.slice(1).map((memberId) => ({ memberId, memberMetadata: claimed.get(memberId)! }));
  const stayed = memberIds.map((memberId) => ({ memberId, memberMetadata: claimed.get(memberId)! }));
  const scenarios = [
    { name: 'first assignment', members: fresh, counts, cluster, before: null as Map<string, Int32Array> | null, present: all },
    { name: 'one member leaves', members: left, counts, cluster, before: firstOwners, present: new Set([...all].filter((m) => m !== 0)) },
    { name: '10% of topics double', members: stayed, counts: grownCounts, cluster: grownCluster, before: firstOwners, present: all },
  ];

  const rows: Row[] = [];
  for (const s of scenarios) {
    console.log(`\n${s.name}`);
    for (const engine of [wasm, 'reference'] as EngineName[]) {
      const assigner = createStickyAssigner({ engine, onAssignment: (r) => reports.push(r) })({ cluster: s.cluster, groupId: 'bench', logger: quiet });
      let out: Awaited<ReturnType<typeof assigner.assign>> = [];
      const whole = await p50(async () => {
        out = await assigner.assign({ members: s.members, topics: topicNames });
      });
      const report = reports.at(-1)!;
      const input = planInput(s.members, s.counts);
      const plan = await p50(() => planGroup(input.planMembers, input.topics, { growthSkew: 2, coPartitioned: [], engine }));
      // The planner's kernel alone (groupPlan), on the problem the planner builds (captured by a wrapper).
      let problem: Parameters<ReturnType<typeof loadKernels>['groupPlan']>[0] | undefined;
      const k = loadKernels({ engine });
      const original = k.groupPlan;
      k.groupPlan = (p) => {
        problem = p;
        return original(p);
      };
      planGroup(input.planMembers, input.topics, { growthSkew: 2, coPartitioned: [], engine });
      k.groupPlan = original;
      const kernel = await p50(() => k.groupPlan(problem!));
      const check = s.before === null ? { moved: 0, placed: report.placed } : moves(s.before, ownersOf(out, s.counts), s.present);
      if (check.moved !== report.moved) throw new Error(`moved partitions: report ${report.moved}, counted ${check.moved}`);
      rows.push({ scenario: s.name, contender: 'StickyAssigner assign() (decode, plan, encode)', engine, p50ms: whole.wall, cpuP50ms: whole.cpu, moved: report.moved, placed: report.placed });
      rows.push({ scenario: s.name, contender: 'StickyAssigner planner (decoded input -> partition lists)', engine, p50ms: plan.wall, cpuP50ms: plan.cpu });
      rows.push({ scenario: s.name, contender: 'group planner kernel (groupPlan)', engine, p50ms: kernel.wall, cpuP50ms: kernel.cpu });
      console.log(`  ${engine}: assign() ${whole.wall.toFixed(0)} ms (cpu ${whole.cpu.toFixed(0)}; moved ${report.moved}, placed ${report.placed}, kept ${report.kept}${report.growth.length > 0 ? `, ${report.growth.filter((g) => g.keysKept).length} topics grew keeping keys` : ''}), planner ${plan.wall.toFixed(0)} ms (cpu ${plan.cpu.toFixed(0)}), kernel ${kernel.wall.toFixed(0)} ms (cpu ${kernel.cpu.toFixed(0)})`);
    }
    // KafkaJS's round-robin: stateless, so its moves are counted against its own previous answer.
    const rr = PartitionAssigners.roundRobin({ cluster: s.cluster, groupId: 'bench', logger: quiet });
    let rrOut: { memberId: string; memberAssignment: Buffer }[] = [];
    const rrMs = await p50(async () => {
      rrOut = await rr.assign({ members: s.members, topics: [...s.counts.keys()] });
    }, 3);
    const rrBefore = s.before === null ? null : ownersOf(await PartitionAssigners.roundRobin({ cluster, groupId: 'bench', logger: quiet }).assign({ members: fresh, topics: topicNames }), counts);
    const rrMoves = rrBefore === null ? { moved: 0, placed: TOPICS * PARTITIONS } : moves(rrBefore, ownersOf(rrOut, s.counts), s.present);
    rows.push({ scenario: s.name, contender: "KafkaJS's round-robin assign()", engine: '-', p50ms: rrMs.wall, cpuP50ms: rrMs.cpu, ...rrMoves });
    console.log(`  round-robin: ${rrMs.wall.toFixed(0)} ms (cpu ${rrMs.cpu.toFixed(0)}; moved ${rrMoves.moved}, placed ${rrMoves.placed})`);
  }

  console.log('\nKafka CooperativeStickyAssignor (JVM)');
  for (const r of javaRows()) {
    rows.push(r);
    console.log(`  ${r.scenario}: ${r.note ?? `cold ${r.coldMs!.toFixed(0)} ms, warm median ${r.p50ms.toFixed(0)} ms (moved ${r.moved}, placed ${r.placed})`}`);
  }

  const calibrationAfter = calibrate();
  const met = (engine: string) => rows.filter((r) => r.engine === engine && r.contender.startsWith('StickyAssigner assign')).every((r) => r.p50ms < TARGET_MS);
  const summary = {
    machine: { node: process.version, cpus: cpus().length, model: cpus()[0]?.model ?? '', loadavg: loadavg(), calibration1e8AddsMs: [calibrationBefore, calibrationAfter] },
    note: 'p50 of tinybench runs (5 iterations, round-robin 3, after one warm-up) and the median CPU time (user + system, all threads) of the same iterations; Kafka CooperativeStickyAssignor: coldMs is its first run in a fresh JVM, p50ms the median of the later (JIT-warm) runs, no CPU time; moved = partitions taken from an owner still in the group; placed = partitions without an owner in the group. Compare calibration1e8AddsMs with about 70-100 ms on an idle core to judge how busy the machine was.',
    input: { topics: TOPICS, partitionsPerTopic: PARTITIONS, members: MEMBERS },
    targetMs: TARGET_MS,
    targetMet: { [wasm]: met(wasm), reference: met('reference') },
    ratios: scenarios.map((s) => {
      const of = (pred: (r: Row) => boolean): number => rows.find((r) => r.scenario === s.name && pred(r))!.p50ms;
      const w = of((r) => r.engine === wasm && r.contender.startsWith('StickyAssigner assign'));
      return {
        scenario: s.name,
        referenceOverWasm: of((r) => r.engine === 'reference' && r.contender.startsWith('StickyAssigner assign')) / w,
        roundRobinOverWasm: of((r) => r.contender.startsWith('KafkaJS')) / w,
        kafkaJavaWarmOverWasm: of((r) => r.contender.startsWith("Kafka's")) / w,
      };
    }),
    rows,
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/group.json', `${JSON.stringify(summary, null, 2)}\n`);
  const f = (x: number): string => (Number.isNaN(x) ? 'n/a' : x.toFixed(1));
  console.log('\n| scenario | contender | engine | p50 ms | CPU p50 ms | moved | placed |\n|---|---|---|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.scenario} | ${r.contender} | ${r.engine} | ${r.coldMs === undefined ? f(r.p50ms) : `${f(r.p50ms)} (cold ${f(r.coldMs)})`} | ${f(r.cpuP50ms)} | ${r.moved ?? ''} | ${r.placed ?? r.note ?? ''} |`);
  for (const s of scenarios) {
    const w = rows.find((r) => r.scenario === s.name && r.engine === wasm && r.contender.startsWith('StickyAssigner assign'))!;
    const ref = rows.find((r) => r.scenario === s.name && r.engine === 'reference' && r.contender.startsWith('StickyAssigner assign'))!;
    const rr = rows.find((r) => r.scenario === s.name && r.contender.startsWith('KafkaJS'))!;
    const java = rows.find((r) => r.scenario === s.name && r.contender.startsWith("Kafka's"))!;
    console.log(`${s.name}: reference/WASM ${(ref.p50ms / w.p50ms).toFixed(2)}x, round-robin/WASM ${(rr.p50ms / w.p50ms).toFixed(2)}x, Kafka Java (warm)/WASM ${(java.p50ms / w.p50ms).toFixed(2)}x`);
  }
  console.log(`target: every assign() under ${TARGET_MS} ms: ${wasm} ${met(wasm) ? 'met' : 'missed'}, reference ${met('reference') ? 'met' : 'missed'}`);
}

/** The strategies compared (issue 24), appended to bench/results/group.json as `strategies`. */
async function strategies(): Promise<void> {
  const gridOnly = process.env.BENCH_GROUP_GRID_ONLY === '1';
  const rows: StrategyRow[] = gridOnly ? [] : await compareStrategies(1000, 1000, 1000);
  if (!gridOnly && process.env.BENCH_GROUP_10M === '1') rows.push(...(await compareStrategies(1000, 10000, 1000, { iterations: 1, javaRuns: 2, cooperative: process.env.BENCH_GROUP_10M_COOPERATIVE !== '0' })));
  const grid = await consumerGrid();
  const file = 'bench/results/group.json';
  let summary: Record<string, unknown> = {};
  try {
    summary = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // no earlier part in this run
  }
  mkdirSync('bench/results', { recursive: true });
  const machine = { node: process.version, cpus: cpus().length, model: cpus()[0]?.model ?? '', loadavg: loadavg() };
  const previous = summary.strategies as { rows?: StrategyRow[] } | undefined;
  writeFileSync(file, `${JSON.stringify({ ...summary, strategies: gridOnly && previous !== undefined ? previous : { machine, rows }, consumerGrid: { machine, javaHeap: JAVA_HEAP, rows: grid } }, null, 2)}\n`);
  if (rows.length > 0) console.log(`\n${strategyTable(rows)}`);
  console.log(`\nKafka's grid (Java heap -Xmx${JAVA_HEAP}; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')})\n${gridTable(grid)}`);
}

(process.env.BENCH_GROUP_STRATEGIES_ONLY === '1' ? strategies() : main().then(strategies)).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
