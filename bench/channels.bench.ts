// Channel-plan benchmark: plan and validate 1,000,000 partitions across 10,000
// channels, WASM vs the pure-TS reference, on identical inputs in one run.
// Kernel rows time the kernels alone; API rows time the public functions
// (planChannels = layout kernel, which in the reference is plan + counting sort; validatePlan = validate kernel
// + report). Medians (p50) and reference/WASM ratios; writes
// bench/results/channels.json and prints a markdown table. Run: npm run bench:channels
import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { getKernels } from '../src/engine/kernels.js';
import { STRATEGY_CONTIGUOUS, STRATEGY_ROTATE } from '../src/engine/reference/channels.js';
import { planChannels, validatePlan, flinkStartIndex, planToJson } from '../src/channels/index.js';

const N = 1_000_000;
const W = 10_000;
const TOPIC = 'orders';
const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;

// A sound plan as flat grouped entries, and a corrupted copy (1% of entries moved to
// another channel: ~1% missing and ~1% duplicated), both validated the same way.
const sound = planChannels({ partitions: N, width: W, strategy: 'flink', topic: TOPIC, engine: 'reference' });
const entryChannel = new Int32Array(N);
for (let c = 0; c < W; c++) entryChannel.fill(c, sound.offsets[c]!, sound.offsets[c + 1]!);
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
}

async function main(): Promise<void> {
  const start = flinkStartIndex(TOPIC, W);
  const bench = new Bench({ time: 1500, iterations: 7, warmupIterations: 2, warmupTime: 200 });
  for (const engine of ENGINES) {
    const k = getKernels({ engine });
    const channelOf = k.channelPlan(STRATEGY_ROTATE, N, W, start);
    const tasks: [string, () => unknown][] = [
      ['kernel plan contiguous', () => k.channelPlan(STRATEGY_CONTIGUOUS, N, W, 0)],
      ['kernel plan flink', () => k.channelPlan(STRATEGY_ROTATE, N, W, start)],
      ['kernel layout flink', () => k.channelLayout(STRATEGY_ROTATE, N, W, start)],
      ['kernel group by channel', () => k.channelGroup(channelOf, W)],
      ['kernel validate sound', () => k.channelValidate(entryChannel, entryPartition, N, W)],
      ['kernel validate 1% corrupt', () => k.channelValidate(entryChannel, corrupt, N, W)],
      ['planChannels flink', () => planChannels({ partitions: N, width: W, strategy: 'flink', topic: TOPIC, engine })],
      ['validatePlan (ChannelPlan)', () => validatePlan(sound, N, { engine })],
      ['validatePlan (plan JSON)', () => validatePlan(soundJson, N, { engine })],
    ];
    for (const [name, fn] of tasks) bench.add(`${name}|${engine}`, fn, { async: false });
  }
  await bench.run();

  const rows: Row[] = [];
  for (const t of bench.tasks) {
    const r = t.result;
    if (r.state !== 'completed') throw new Error(`${t.name}: ${r.state}`);
    const [task, engine] = t.name.split('|') as [string, string];
    rows.push({ task, engine, medianMs: r.latency.p50!, partitionsPerSec: N / (r.latency.p50! / 1000), samples: r.latency.samplesCount });
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
        note: 'p50 of tinybench samples; the machine is shared with other jobs, so timings are noisy',
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
