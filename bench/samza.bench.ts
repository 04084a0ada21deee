// Samza planning benchmark. Three jobs, each with 1,000 input streams that doubled:
//  A. base mapper (default), 5,000 -> 10,000 partitions: 10M SSPs folded onto 5,000 tasks.
//  B. samza mapper (Samza's SSPGrouperProxy + HashSystemStreamPartitionMapper), 500 -> 1,000: 1M SSPs;
//     beside it, Samza's own SSPGrouperProxy + GroupByPartition from the samza-core 1.8.0 jar
//     (test/samza/java/SamzaProxyBench.java, Maven Central), cold first call and JIT-warm median,
//     with a digest check that both computed the same grouping.
//  C. samza mapper, 5,000 -> 10,000: 10M SSPs, with the previous assignment as the store hands it
//     over today (task -> SSP objects) and in flat form (previousRowsOfGrouping).
// Whole plans (config, SSPs, grouping, changelog, containers, summary), GroupByPartition, 50
// containers, on the WASM and reference engines: p50 of 3 runs. Peak memory: each plan once more
// in a fresh child process (maxRSS). Writes bench/results/samza.json. Run: npm run bench:samza
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { calculateJobModel, emptyPrevious, type MapperMode, type PreviousInput } from '../src/samza/plan.js';
import { SamzaConfig } from '../src/samza/config.js';
import { summarize } from '../src/samza/summary.js';
import { jobModelJsonChunks } from '../src/samza/job-model.js';
import { previousRowsOfGrouping } from '../src/samza/previous.js';
import { ssp, type SSP } from '../src/samza/model.js';
import { taskSsps } from '../src/samza/grouping.js';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { compileJava, runJava } from '../test/kafka/jvm.js';
import { foldPartitions } from '../src/expansion/index.js';
import type { EngineChoice } from '../src/engine/kernels.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const BASE = Number(process.env.BENCH_BASE ?? 5000);
const SAMZA_BASE_1M = Number(process.env.BENCH_SAMZA_BASE ?? 500);
const CONTAINERS = 50;
const JAVA_WARMUPS = Number(process.env.BENCH_JAVA_WARMUPS ?? 1);
const JAVA_ROUNDS = Number(process.env.BENCH_JAVA_ROUNDS ?? 3);

type Case = 'base-10M' | 'samza-1M' | 'samza-10M-objects' | 'samza-10M-flat';

const names = Array.from({ length: STREAMS }, (_, i) => `kafka.events-${String(i).padStart(4, '0')}`);
const config = new SamzaConfig(
  Object.entries({
    'job.name': 'bench',
    'task.inputs': names.join(','),
    'job.container.count': String(CONTAINERS),
    'stores.state.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory',
    'stores.state.changelog': 'kafka.state-changelog',
  }),
);

const jobAt = (partitions: number) => ({ config, partitionCounts: new Map(names.map((n) => [n, partitions] as [string, number])) });

/** The state the base mapper's previous plan (at `base` partitions) left in the store. */
function basePrevious(base: number): PreviousInput {
  const tasks = Array.from({ length: base }, (_, p) => `Partition ${p}`);
  return {
    ...emptyPrevious(),
    baseCounts: new Map(names.map((n) => [n, base] as [string, number])),
    changelog: new Map(tasks.map((t, i) => [t, i] as [string, number])),
    taskContainer: new Map(tasks.map((t, i) => [t, String(i % CONTAINERS)] as [string, string])),
  };
}

/** Samza's previousTaskToSSPAssignment after a plan at `base` partitions: `Partition p` -> partition p of every stream. */
function samzaPrevious(base: number, flat: boolean): PreviousInput {
  const prev = basePrevious(base);
  if (flat) return { ...prev, taskToSsps: previousRowsOfGrouping(calculateJobModel(jobAt(base), emptyPrevious(), { mapper: 'samza' }).grouping) };
  const taskToSsps = new Map<string, SSP[]>();
  for (let p = 0; p < base; p++) taskToSsps.set(`Partition ${p}`, names.map((n) => ssp('kafka', n.slice('kafka.'.length), p)));
  return { ...prev, taskToSsps };
}

function setup(c: Case): { job: ReturnType<typeof jobAt>; previous: PreviousInput; mapper: MapperMode } {
  switch (c) {
    case 'base-10M':
      return { job: jobAt(2 * BASE), previous: basePrevious(BASE), mapper: 'base' };
    case 'samza-1M':
      return { job: jobAt(2 * SAMZA_BASE_1M), previous: samzaPrevious(SAMZA_BASE_1M, false), mapper: 'samza' };
    case 'samza-10M-objects':
      return { job: jobAt(2 * BASE), previous: samzaPrevious(BASE, false), mapper: 'samza' };
    case 'samza-10M-flat':
      return { job: jobAt(2 * BASE), previous: samzaPrevious(BASE, true), mapper: 'samza' };
  }
}

function plan(s: ReturnType<typeof setup>, engine: EngineChoice) {
  const p = calculateJobModel(s.job, s.previous, { engine, mapper: s.mapper });
  summarize(p);
  return p;
}

const child = process.argv.indexOf('--child');
if (child >= 0) {
  // One whole plan in a fresh process: its maxRSS is the plan's peak memory (plus the runtime's baseline and the input).
  const c = process.argv[child + 1] as Case;
  const engine = process.argv[child + 2] as EngineChoice;
  const s = setup(c);
  const t = performance.now();
  const p = plan(s, engine);
  const ms = performance.now() - t;
  process.stdout.write(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, ssps: p.grouping.stream.length, tasks: p.grouping.tasks.length }));
  process.exit(0);
}

console.log(`samza plans: ${STREAMS} streams, 50 containers, GroupByPartition; ${cpus().length} CPUs, Node ${process.version}`);
const p50: Record<string, number> = {};
async function measure(label: string, fns: Record<string, () => void>): Promise<void> {
  const bench = new Bench({ time: 0, iterations: 3, warmupIterations: 0 });
  for (const [name, fn] of Object.entries(fns)) bench.add(`${label} ${name}`, fn, { async: false });
  await bench.run();
  for (const task of bench.tasks) {
    const r = task.result;
    if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}${r.state === 'errored' ? `: ${r.error}` : ''}`);
    p50[task.name] = r.latency.p50;
    console.log(`  ${task.name}: p50 ${r.latency.p50.toFixed(0)} ms`);
  }
}

// A. Base mapper, 10M SSPs, plus the fold kernel alone on the same pairs for "what dominates".
{
  const s = setup('base-10M');
  const ssps = STREAMS * 2 * BASE;
  const streamIdx = new Int32Array(ssps);
  const partitions = new Int32Array(ssps);
  for (let st = 0, i = 0; st < STREAMS; st++) for (let p = 0; p < 2 * BASE; p++, i++) { streamIdx[i] = st; partitions[i] = p; }
  const bases = new Int32Array(STREAMS).fill(BASE);
  await measure('base 10M', {
    'plan (wasm)': () => void plan(s, 'wasm'),
    'plan (reference)': () => void plan(s, 'reference'),
    'fold kernel only (wasm)': () => void foldPartitions(streamIdx, partitions, bases, { engine: 'wasm' }),
    'fold kernel only (reference)': () => void foldPartitions(streamIdx, partitions, bases, { engine: 'reference' }),
  });
}
// B. Samza mapper, 1M SSPs, then Samza's own classes on the same job.
interface JavaRun {
  coldMs: number;
  warmMs: number[];
  warmMedianMs: number;
  tasks: number;
  sameGrouping: boolean;
}
let java: JavaRun | { failed: string };
let samzaDigest = '';
{
  const s = setup('samza-1M');
  await measure('samza 1M', { 'plan (wasm)': () => void plan(s, 'wasm'), 'plan (reference)': () => void plan(s, 'reference') });
  samzaDigest = digest(plan(s, 'wasm').grouping);
  java = runSamzaItself(samzaDigest);
  console.log('error' in java || 'failed' in java ? `  Samza's own SSPGrouperProxy: FAILED: ${(java as { failed: string }).failed}` : `  Samza's own SSPGrouperProxy + GroupByPartition: cold ${java.coldMs.toFixed(0)} ms, JIT-warm median ${java.warmMedianMs.toFixed(0)} ms, same grouping: ${java.sameGrouping}`);
}

/** SHA-256 of "task\tsystem.stream#partition/bucket\n" lines, tasks and SSPs in Samza's order (as SamzaProxyBench.java). */
function digest(g: ReturnType<typeof plan>['grouping']): string {
  const h = createHash('sha256');
  g.tasks.forEach((t, i) => {
    for (const x of taskSsps(g, i)) h.update(`${t}\t${x.system}.${x.stream}#${x.partition}/${x.keyBucket}\n`);
  });
  return h.digest('hex');
}

/** Compiles and runs SamzaProxyBench against the samza-core jar; a failure is reported, never dropped. */
function runSamzaItself(ours: string): JavaRun | { failed: string } {
  try {
    const source = fileURLToPath(new URL('../test/samza/java/SamzaProxyBench.java', import.meta.url));
    const cp = compileJava('samza', [source], join(tmpdir(), 'assignor-bench-samza-classes'));
    const r = runJava(cp, 'SamzaProxyBench', [String(STREAMS), String(SAMZA_BASE_1M), String(JAVA_WARMUPS), String(JAVA_ROUNDS)], undefined, '8g');
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { coldMs: number; warmMs: number[]; tasks: number; digest: string };
    const sorted = [...out.warmMs].sort((a, b) => a - b);
    return { coldMs: out.coldMs, warmMs: out.warmMs, warmMedianMs: sorted[Math.floor(sorted.length / 2)]!, tasks: out.tasks, sameGrouping: out.digest === ours };
  } catch (e) {
    return { failed: (e as Error).message.split('\n').slice(0, 3).join(' ') };
  }
}
// C. Samza mapper, 10M SSPs, previous assignment as objects and flat.
for (const c of ['samza-10M-objects', 'samza-10M-flat'] as const) {
  const s = setup(c);
  await measure(c.replace('samza-', 'samza '), { 'plan (wasm)': () => void plan(s, 'wasm'), 'plan (reference)': () => void plan(s, 'reference') });
}

// JobModel JSON for all 10M SSPs of A (what `samza plan` prints): timed once, bytes counted, never held whole.
const jsonPlan = plan(setup('base-10M'), 'wasm');
let bytes = 0;
const tj = performance.now();
for (const chunk of jobModelJsonChunks(jsonPlan)) bytes += chunk.length;
const jsonMs = performance.now() - tj;

const script = fileURLToPath(import.meta.url);
const peak: Record<string, { ms: number; maxRssMB: number }> = {};
for (const c of ['base-10M', 'samza-1M', 'samza-10M-objects', 'samza-10M-flat'] as const) {
  for (const engine of ['wasm', 'reference'] as const) {
    const r = spawnSync(process.execPath, [...process.execArgv, script, '--child', c, engine], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`child ${c} ${engine} failed: ${r.stderr}`);
    peak[`${c} ${engine}`] = JSON.parse(r.stdout);
  }
}

const ms = (k: string) => p50[k]!;
const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  note: 'p50 of 3 runs per row, all rows from this one run.',
  jobs: {
    base10M: { streams: STREAMS, partitionsBefore: BASE, partitionsAfter: 2 * BASE, ssps: STREAMS * 2 * BASE, mapper: 'base' },
    samza1M: { streams: STREAMS, partitionsBefore: SAMZA_BASE_1M, partitionsAfter: 2 * SAMZA_BASE_1M, ssps: STREAMS * 2 * SAMZA_BASE_1M, mapper: 'samza' },
    samza10M: { streams: STREAMS, partitionsBefore: BASE, partitionsAfter: 2 * BASE, ssps: STREAMS * 2 * BASE, mapper: 'samza' },
  },
  p50Ms: p50,
  peak: Object.fromEntries(Object.entries(peak).map(([k, v]) => [k, { maxRssMB: Math.round(v.maxRssMB), singlePlanMs: Math.round(v.ms) }])),
  jobModelJson: { megabytes: Math.round(bytes / 1e6), ms: Math.round(jsonMs) },
  samzaItself: java,
  assignorVsTheOriginal: originalRow(),
  targets: {
    base10M: { planUnderMs: 3000, peakUnderMB: 2048, planMs: ms('base 10M plan (wasm)'), peakMB: Math.round(peak['base-10M wasm']!.maxRssMB) },
    samza10M: {
      planUnderMs: 3000,
      peakUnderMB: 2048,
      planMsObjects: ms('samza 10M-objects plan (wasm)'),
      planMsFlat: ms('samza 10M-flat plan (wasm)'),
      peakMBObjects: Math.round(peak['samza-10M-objects wasm']!.maxRssMB),
      peakMBFlat: Math.round(peak['samza-10M-flat wasm']!.maxRssMB),
    },
  },
};
type OriginalRow =
  | { measured: false; why: string; assignorWarmMs: number; assignorColdMs: number }
  | {
      measured: true;
      what: string;
      sameGrouping: boolean;
      assignorWarmMs: number;
      samzaWarmMedianMs: number;
      warmRatio: number;
      assignorColdMs: number;
      samzaColdMs: number;
      coldRatio: number;
      target: string;
      met: boolean;
    };

/** The samza mapper at 1M SSPs against Samza's own classes: warm against warm, cold against cold. */
function originalRow(): OriginalRow {
  const warm = ms('samza 1M plan (wasm)');
  const cold = peak['samza-1M wasm']!.ms;
  if ('failed' in java) return { measured: false, why: `the Java step failed: ${java.failed}`, assignorWarmMs: warm, assignorColdMs: cold };
  return {
    measured: true,
    what: "assignor: the whole plan (calculateJobModel, samza mapper, WASM); Samza: SSPGrouperProxy.group over GroupByPartition only (the grouping step), same job, same run",
    sameGrouping: java.sameGrouping,
    assignorWarmMs: warm,
    samzaWarmMedianMs: java.warmMedianMs,
    warmRatio: java.warmMedianMs / warm,
    assignorColdMs: cold,
    samzaColdMs: java.coldMs,
    coldRatio: java.coldMs / cold,
    target: 'at least 20x (warm)',
    met: java.sameGrouping && java.warmMedianMs / warm >= 20,
  };
}

mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/samza.json', `${JSON.stringify(result, null, 2)}\n`);

const f = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(0));
function originalTable(): string {
  const o = result.assignorVsTheOriginal;
  const head = `assignor vs the original, samza mapper, ${(STREAMS * 2 * SAMZA_BASE_1M).toLocaleString('en-US')} SSPs (${STREAMS} streams, ${SAMZA_BASE_1M} -> ${2 * SAMZA_BASE_1M}):\n| | assignor (WASM) | Samza 1.8.0 (SSPGrouperProxy + GroupByPartition) | Samza / assignor |\n|---|---|---|---|`;
  if (!o.measured) return `${head}\n| JIT-warm (median) | ${f(o.assignorWarmMs)} ms | not measured | - |\n| cold first run | ${f(o.assignorColdMs)} ms | not measured | - |\n${o.why}`;
  const m = o;
  return `${head}\n| JIT-warm (median) | ${f(m.assignorWarmMs)} ms | ${f(m.samzaWarmMedianMs)} ms | ${m.warmRatio.toFixed(1)}x |\n| cold first run | ${f(m.assignorColdMs)} ms | ${f(m.samzaColdMs)} ms | ${m.coldRatio.toFixed(1)}x |\nsame grouping (SHA-256 of both): ${m.sameGrouping}; target ${m.target}: ${m.met ? 'met' : 'missed'}`;
}
const row = (label: string, key: string) => `| ${label} | ${f(p50[`${key} (wasm)`])} | ${f(p50[`${key} (reference)`])} | ${(p50[`${key} (reference)`]! / p50[`${key} (wasm)`]!).toFixed(2)} |`;
console.log(`
| step | wasm p50 (ms) | reference p50 (ms) | reference/wasm |
|---|---|---|---|
${row('A. base mapper, 10M SSPs, whole plan', 'base 10M plan')}
${row('A. fold kernel only', 'base 10M fold kernel only')}
${row('B. samza mapper, 1M SSPs, whole plan', 'samza 1M plan')}
${row('C. samza mapper, 10M SSPs, previous as SSP objects', 'samza 10M-objects plan')}
${row('C. samza mapper, 10M SSPs, previous flat', 'samza 10M-flat plan')}

${originalTable()}

peak RSS of one whole plan in a fresh process (MB): ${Object.entries(result.peak).map(([k, v]) => `${k} ${v.maxRssMB}`).join(', ')}
JobModel JSON of all 10M SSPs (A): ${result.jobModelJson.megabytes} MB in ${result.jobModelJson.ms} ms (streamed in chunks, not part of the plan)
written: bench/results/samza.json`);
