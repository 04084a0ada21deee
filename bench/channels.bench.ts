// Channel-plan benchmark: plan and validate 1,000,000 partitions across 10,000
// channels, WASM vs the pure-TS reference, on identical inputs in one run.
// Kernel rows time the kernels alone; API rows time the public functions
// (planChannels = layout kernel, which in the reference is plan + counting sort; validatePlan = validate kernel
// + report). Medians (p50) and reference/WASM ratios; writes
// bench/results/channels.json and prints a markdown table. Run: npm run bench:channels
import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { Bench } from 'tinybench';
import { loadKernels } from '../src/engine/kernels.js';
import { STRATEGY_CONTIGUOUS, STRATEGY_ROTATE } from '../src/engine/abi.js';
import { planChannels, validatePlan, planToJson } from '../src/channels/index.js';
import { flinkStartIndex } from '../src/channels/plan.js';

const N = 1_000_000;
const W = 10_000;
const TOPIC = 'orders';
const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;

// A sound plan as flat grouped entries, and a corrupted copy (1% of entries moved to
// another channel: ~1% missing and ~1% duplicated), both validated the same way.
const sound = planChannels({ partitions: N, width: W, strategy: 'flink', topic: TOPIC, engine: 'reference' });
const entryPartition = sound.members.slice();
const corrupt = entryPartition.slice();
for (let i = 0; i < N; i += 100) corrupt[i] = corrupt[(i + 5 * 100 + 1) % N]!;
const soundJson = planToJson(sound);

interface Row {
  task: string;
  engine: string;
  medianMs: number;
  partitionsPerSec: number;
  samples: number;
  roundMediansMs: number[];
}

const ROUNDS = 5;

async function main(): Promise<void> {
  const start = flinkStartIndex(TOPIC, W);
  const all: [string, () => unknown][] = [];
  for (const engine of ENGINES) {
    const k = loadKernels({ engine });
    const channelOf = k.channelPlan(STRATEGY_ROTATE, N, W, start);
    const tasks: [string, () => unknown][] = [
      ['kernel plan contiguous', () => k.channelPlan(STRATEGY_CONTIGUOUS, N, W, 0)],
      ['kernel plan flink', () => k.channelPlan(STRATEGY_ROTATE, N, W, start)],
      ['kernel layout flink', () => k.channelLayout(STRATEGY_ROTATE, N, W, start)],
      ['kernel group by channel', () => k.channelGroup(channelOf, W)],
      ['kernel validate sound', () => k.channelValidate(sound.offsets, entryPartition, N)],
      ['kernel validate 1% corrupt', () => k.channelValidate(sound.offsets, corrupt, N)],
      ['planChannels flink', () => planChannels({ partitions: N, width: W, strategy: 'flink', topic: TOPIC, engine })],
      ['validatePlan (ChannelPlan)', () => validatePlan(sound, N, { engine })],
      ['validatePlan (plan JSON)', () => validatePlan(soundJson, N, { engine })],
    ];
    for (const [name, fn] of tasks) all.push([`${name}|${engine}`, fn]);
  }

  // Other jobs share the 2 cores, so load drifts during a run. Several short rounds,
  // each over every task in a rotated order, and the median of the round medians,
  // keep one busy moment from landing on a single engine.
  const perTask = new Map<string, { p50: number[]; samples: number }>();
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: 300, iterations: 5, warmupIterations: 2, warmupTime: 50 });
    const shift = (round * 7) % all.length;
    for (const [name, fn] of [...all.slice(shift), ...all.slice(0, shift)]) bench.add(name, fn, { async: false });
    await bench.run();
    for (const t of bench.tasks) {
      const r = t.result;
      if (r.state !== 'completed') throw new Error(`${t.name}: ${r.state}`);
      const e = perTask.get(t.name) ?? { p50: [], samples: 0 };
      e.p50.push(r.latency.p50!);
      e.samples += r.latency.samplesCount;
      perTask.set(t.name, e);
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }

  const rows: Row[] = [];
  for (const [name, e] of perTask) {
    const [task, engine] = name.split('|') as [string, string];
    const sorted = [...e.p50].sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1]!;
    rows.push({ task, engine, medianMs: median, partitionsPerSec: N / (median / 1000), samples: e.samples, roundMediansMs: e.p50 });
  }

  const tasks = [...new Set(rows.map((r) => r.task))];
  const md = ['| task (1M partitions, 10k channels) | reference ms | wasm-scalar ms | wasm-simd ms | ref / scalar | ref / simd |', '| --- | ---: | ---: | ---: | ---: | ---: |'];
  const ratios: Record<string, { scalar: number; simd: number }> = {};
  for (const task of tasks) {
    const ms = (e: string): number => rows.find((r) => r.task === task && r.engine === e)!.medianMs;
    ratios[task] = { scalar: ms('reference') / ms('wasm-scalar'), simd: ms('reference') / ms('wasm-simd') };
    md.push(`| ${task} | ${ms('reference').toFixed(2)} | ${ms('wasm-scalar').toFixed(2)} | ${ms('wasm-simd').toFixed(2)} | ${ratios[task]!.scalar.toFixed(2)}x | ${ratios[task]!.simd.toFixed(2)}x |`);
  }
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`;
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('./results/channels.json', import.meta.url),
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        machine,
        partitions: N,
        width: W,
        note: `median over ${ROUNDS} rounds of the tinybench p50; the 2-core machine is shared with other jobs, so timings are noisy`,
        loadAverage: loadavg(),
        rows,
        ratios,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`${machine}\n\n${md.join('\n')}\n`);
}

await main();
