// Key hashing benchmark: every contender on the same data in one run; medians
// (p50) and ratios. Writes bench/results/hash.json and prints markdown tables.
// Run: npm run bench:hash
//  1. single keys: µs per call, assignor vs KafkaJS's partitioner as a producer calls it;
//  2. batches of 1M keys per dataset.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import kafkajs from 'kafkajs';
import murmurhash from 'murmurhash';
import { partitionForKey, partitionForString, partitionsForFixed, partitionsForKeys, partitionsForPacked } from '../src/hashing/index.js';
import { getKernels } from '../src/engine/kernels.js';
import { loadWasmCore } from '../src/engine/core.js';

const N = Number(process.env.BENCH_KEYS ?? 1_000_000);
const PARTITIONS = 1000;
const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;

// xorshift32: same data every run.
let seed = 0x2545f491;
function rnd(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}

interface Packed { data: Uint8Array; offsets: Int32Array }
function packFixed(width: number): Packed {
  const data = new Uint8Array(N * width);
  for (let i = 0; i < data.length; i++) data[i] = rnd() & 0xff;
  return { data, offsets: Int32Array.from({ length: N + 1 }, (_, i) => i * width) };
}
function packVariable(min: number, max: number): Packed {
  const offsets = new Int32Array(N + 1);
  for (let i = 0; i < N; i++) offsets[i + 1] = offsets[i]! + min + (rnd() % (max - min + 1));
  const data = new Uint8Array(offsets[N]!);
  for (let i = 0; i < data.length; i++) data[i] = rnd() & 0xff;
  return { data, offsets };
}
const ALPHABETS = ['abcdefghijklmnopqrstuvwxyz', 'éèàüößçñ', 'жзийклмнопрст', '日本語中文한국어', '🙂🚀🎉'];
function mixedString(): string {
  let s = '';
  const len = 4 + (rnd() % 20);
  for (let i = 0; i < len; i++) {
    const a = [...ALPHABETS[rnd() % ALPHABETS.length]!];
    s += a[rnd() % a.length];
  }
  return s;
}

const datasets = {
  fixed16: packFixed(16),
  variable: packVariable(8, 64),
  userIds: Array.from({ length: N }, () => `user-${1000000 + (rnd() % 9000000)}`),
  nonAscii: Array.from({ length: N }, mixedString),
};
const buffers = (p: Packed) => Array.from({ length: N }, (_, i) => Buffer.from(p.data.buffer, p.offsets[i], p.offsets[i + 1]! - p.offsets[i]!));
const bufKeys = { fixed16: buffers(datasets.fixed16), variable: buffers(datasets.variable) };

// KafkaJS's DefaultPartitioner, called as the producer calls it: one message at a time.
const partitionMetadata = Array.from({ length: PARTITIONS }, (_, i) => ({ partitionErrorCode: 0, partitionId: i, leader: 0, replicas: [0], isr: [0], offlineReplicas: [] }));
const kafkajsPartitioner = kafkajs.Partitioners.DefaultPartitioner();
const viaKafkajs = (keys: ArrayLike<string | Buffer>) => {
  const out = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) out[i] = kafkajsPartitioner({ topic: 't', partitionMetadata, message: { key: keys[i]!, value: null } });
  return out;
};
const viaMurmurhash = (keys: ArrayLike<string | Buffer>) => {
  const out = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) out[i] = (murmurhash.v2(keys[i] as string, 0x9747b28c) & 0x7fffffff) % PARTITIONS;
  return out;
};

// ---- 1. Single keys -------------------------------------------------------
// 100,000 distinct 16-character ASCII keys, hashed one call per key, as a producer
// hashes one message at a time. KafkaJS's partitioner gets the partition metadata
// shape its producer passes (cluster.findTopicPartitionMetadata), 12 and 1,000 partitions.
const SINGLE_KEYS = Array.from({ length: 100_000 }, (_, i) => `order-${String((i * 7919) % 1e9).padStart(10, '0')}`);
const require = createRequire(import.meta.url);
/** KafkaJS's own murmur2 (the one its DefaultPartitioner calls), without the partitioner around it. */
const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2') as (key: string | Buffer) => number;
const metadataOf = (n: number) => Array.from({ length: n }, (_, i) => ({ partitionErrorCode: 0, partitionId: i, leader: 0, replicas: [0], isr: [0], offlineReplicas: [] }));

interface SingleRow { contender: string; partitions: number; usPerCall: number; samples: number }
const singleRows: SingleRow[] = [];

async function singleKeys(): Promise<void> {
  const K = SINGLE_KEYS.length;
  const meta12 = metadataOf(12);
  const meta1000 = metadataOf(1000);
  const partitioner = kafkajs.Partitioners.DefaultPartitioner();
  const viaPartitioner = (key: string, partitionMetadata: typeof meta12) => partitioner({ topic: 't', partitionMetadata, message: { key, value: null } });
  // Each task hashes the first `per` keys, one call per key. Every loop is written
  // out so that each call site sees one callee (as in a producer), not a shared
  // megamorphic site that would stop V8 from inlining the fast contenders.
  let sink = 0;
  const keys = SINGLE_KEYS;
  const tasks: Array<{ name: string; partitions: number; per: number; one: (key: string) => number; run: (per: number) => void }> = [
    {
      name: 'assignor partitionForKey', partitions: 12, per: K, one: (k) => partitionForKey(k, 12),
      run: (per) => { for (let i = 0; i < per; i++) sink += partitionForKey(keys[i]!, 12); },
    },
    {
      name: 'assignor partitionForString', partitions: 12, per: K, one: (k) => partitionForString(k, 12),
      run: (per) => { for (let i = 0; i < per; i++) sink += partitionForString(keys[i]!, 12); },
    },
    {
      name: 'assignor partitionForKey, engine wasm-simd (one WASM call per key)', partitions: 12, per: K / 10, one: (k) => partitionForKey(k, 12, { engine: 'wasm-simd' }),
      run: (per) => { const o = { engine: 'wasm-simd' } as const; for (let i = 0; i < per; i++) sink += partitionForKey(keys[i]!, 12, o); },
    },
    {
      name: 'KafkaJS DefaultPartitioner', partitions: 12, per: K / 10, one: (k) => viaPartitioner(k, meta12),
      run: (per) => { for (let i = 0; i < per; i++) sink += partitioner({ topic: 't', partitionMetadata: meta12, message: { key: keys[i]!, value: null } }); },
    },
    {
      name: 'KafkaJS DefaultPartitioner', partitions: 1000, per: K / 100, one: (k) => viaPartitioner(k, meta1000),
      run: (per) => { for (let i = 0; i < per; i++) sink += partitioner({ topic: 't', partitionMetadata: meta1000, message: { key: keys[i]!, value: null } }); },
    },
    {
      name: 'KafkaJS murmur2 alone (+ toPositive % n)', partitions: 12, per: K / 10, one: (k) => (kafkajsMurmur2(k) & 0x7fffffff) % 12,
      run: (per) => { for (let i = 0; i < per; i++) sink += (kafkajsMurmur2(keys[i]!) & 0x7fffffff) % 12; },
    },
  ];
  for (const t of tasks) {
    for (let i = 0; i < 1000; i++) {
      const k = SINGLE_KEYS[i]!;
      if (t.one(k) !== partitionForKey(k, t.partitions, { engine: 'reference' })) throw new Error(`${t.name} disagrees on ${k}`);
    }
  }
  const bench = new Bench({ time: 0, iterations: 15, warmupIterations: 3, warmupTime: 0 });
  for (const t of tasks) bench.add(`${t.name} @${t.partitions}`, () => t.run(t.per));
  await bench.run();
  bench.tasks.forEach((bt, i) => {
    const t = tasks[i]!;
    const r = bt.result;
    if (r.state !== 'completed') throw new Error(`${bt.name}: ${r.state}`);
    const us = (r.latency.p50! * 1000) / t.per;
    singleRows.push({ contender: t.name, partitions: t.partitions, usPerCall: us, samples: r.latency.samplesCount });
    process.stderr.write(`  single key  ${bt.name.padEnd(72)} ${us.toFixed(3)} µs\n`);
  });
  if (sink === 0.5) process.stderr.write('');
}

// Every contender must agree before anything is timed.
function check(name: string, want: Int32Array, got: Int32Array): void {
  for (let i = 0; i < want.length; i++) if (want[i] !== got[i]) throw new Error(`${name} disagrees at key ${i}: ${got[i]} vs ${want[i]}`);
}

type Row = { dataset: string; contender: string; medianMs: number; keysPerSec: number; samples: number };
const rows: Row[] = [];

// KafkaJS's partitioner takes ~30 µs a key with 1,000 partitions (it filters the
// partition metadata on every call), so it gets one timed run, which is also the checked run.
const SLOW = new Set(['kafkajs DefaultPartitioner']);

async function measure(dataset: string, tasks: Record<string, () => Int32Array>, want: Int32Array): Promise<void> {
  const bench = new Bench({ time: 0, iterations: 9, warmupIterations: 2, warmupTime: 0 });
  for (const [name, fn] of Object.entries(tasks)) {
    if (SLOW.has(name)) {
      const t0 = performance.now();
      check(`${dataset}/${name}`, want, fn());
      const ms = performance.now() - t0;
      rows.push({ dataset, contender: name, medianMs: ms, keysPerSec: N / (ms / 1000), samples: 1 });
      process.stderr.write(`  ${dataset.padEnd(10)} ${name.padEnd(22)} ${ms.toFixed(2)} ms (1 run)\n`);
      continue;
    }
    check(`${dataset}/${name}`, want, fn());
    bench.add(name, fn, { async: false });
  }
  await bench.run();
  for (const t of bench.tasks) {
    const r = t.result;
    if (r.state !== 'completed') throw new Error(`${dataset}/${t.name}: ${r.state}`);
    rows.push({ dataset, contender: t.name, medianMs: r.latency.p50!, keysPerSec: N / (r.latency.p50! / 1000), samples: r.latency.samplesCount });
    process.stderr.write(`  ${dataset.padEnd(10)} ${t.name.padEnd(22)} ${r.latency.p50!.toFixed(2)} ms\n`);
  }
}

// The kernels alone, with the keys already in linear memory: what a producer
// that writes keys straight into kernel memory (as partitionsForKeys does for
// strings) pays, without the copy in and the copy out of the API calls above.
async function measureInMemory(dataset: 'fixed16' | 'variable', p: Packed, want: Int32Array): Promise<void> {
  const tasks: Record<string, () => Int32Array> = {};
  for (const simd of [false, true]) {
    const core = loadWasmCore(simd);
    core.begin();
    const dp = core.put(p.data);
    const op = core.put(p.offsets);
    const out = core.alloc(N * 4);
    const run = dataset === 'fixed16' ? () => core.raw.hashFixed(dp, 16, N, PARTITIONS, out) : () => core.raw.hashVar(dp, op, N, PARTITIONS, out);
    tasks[`${simd ? 'wasm-simd' : 'wasm-scalar'}, keys in kernel memory`] = () => {
      run();
      return core.i32(out, N);
    };
  }
  await measure(dataset, tasks, want);
}

function nativeC(dataset: string, p: Packed, want: Int32Array): void {
  const dir = mkdtempSync(join(tmpdir(), 'assignor-native-'));
  const exe = join(dir, 'murmur2');
  try {
    execFileSync('cc', ['-O3', '-march=native', '-o', exe, new URL('./native/murmur2.c', import.meta.url).pathname], { stdio: 'pipe' });
  } catch {
    process.stderr.write('  native C: skipped (no C compiler found)\n');
    return;
  }
  const file = join(dir, 'keys.bin');
  const head = new Uint32Array([N, PARTITIONS]);
  writeFileSync(file, Buffer.concat([Buffer.from(head.buffer), Buffer.from(p.offsets.buffer), Buffer.from(p.data.buffer)]));
  const r = spawnSync(exe, [file, '21'], { encoding: 'utf8' });
  const [ms, sum] = r.stdout.trim().split(' ');
  let expectSum = 0;
  for (let i = 0; i < N; i++) expectSum = (Math.imul(expectSum, 31) + want[i]!) >>> 0;
  if (Number(sum) !== expectSum) throw new Error(`native C disagrees on ${dataset}`);
  rows.push({ dataset, contender: 'native C -O3 -march=native', medianMs: Number(ms), keysPerSec: N / (Number(ms) / 1000), samples: 21 });
  process.stderr.write(`  ${dataset.padEnd(10)} native C               ${Number(ms).toFixed(2)} ms\n`);
}

/** Sections to run: BENCH_ONLY=single,bytes,strings (default: all). */
const ONLY = new Set((process.env.BENCH_ONLY ?? 'single,bytes,strings').split(','));

function singleKeyTable(): { md: string; targets: Record<string, number> } {
  const us = (name: string, n: number) => singleRows.find((r) => r.contender === name && r.partitions === n)?.usPerCall ?? NaN;
  const ours = us('assignor partitionForKey', 12);
  let md = '| single key, 16 ASCII characters | partitions | µs per call | KafkaJS partitioner / this |\n|---|---:|---:|---:|\n';
  for (const r of singleRows) md += `| ${r.contender} | ${r.partitions} | ${r.usPerCall.toFixed(3)} | ${(us('KafkaJS DefaultPartitioner', r.partitions) / r.usPerCall).toFixed(1)}x |\n`;
  md += `\nTarget partitionForKey <= 0.3 µs per call: ${ours.toFixed(3)} µs, ${ours <= 0.3 ? 'met' : 'missed'}.\n`;
  return { md, targets: { 'partitionForKey µs per call (<= 0.3)': ours, 'KafkaJS DefaultPartitioner @12 / partitionForKey': us('KafkaJS DefaultPartitioner', 12) / ours } };
}

async function main(): Promise<void> {
  process.stderr.write(`hash benchmark: ${N} keys per dataset, ${PARTITIONS} partitions; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
  let md = '';
  let targets: Record<string, number> = {};
  if (ONLY.has('single')) {
    await singleKeys();
    const t = singleKeyTable();
    md += `${t.md}\n`;
    targets = { ...targets, ...t.targets };
  }
  for (const name of ['fixed16', 'variable'] as const) {
    if (!ONLY.has('bytes')) break;
    const p = datasets[name];
    const want = getKernels({ engine: 'reference' }).hashVar(p.data, p.offsets, N, PARTITIONS);
    const tasks: Record<string, () => Int32Array> = {};
    for (const engine of ENGINES) {
      tasks[engine] = name === 'fixed16'
        ? () => partitionsForFixed(p.data, 16, PARTITIONS, { engine })
        : () => partitionsForPacked(p.data, p.offsets, PARTITIONS, { engine });
    }
    tasks['kafkajs DefaultPartitioner'] = () => viaKafkajs(bufKeys[name]);
    tasks['murmurhash.v2'] = () => viaMurmurhash(bufKeys[name]);
    await measure(name, tasks, want);
    await measureInMemory(name, p, want);
    nativeC(name, p, want);
  }
  for (const name of ['userIds', 'nonAscii'] as const) {
    if (!ONLY.has('strings')) break;
    const keys = datasets[name];
    const want = partitionsForKeys(keys, PARTITIONS, { engine: 'reference' });
    const tasks: Record<string, () => Int32Array> = {};
    for (const engine of ENGINES) tasks[engine] = () => partitionsForKeys(keys, PARTITIONS, { engine });
    tasks['kafkajs DefaultPartitioner'] = () => viaKafkajs(keys);
    tasks['murmurhash.v2'] = () => viaMurmurhash(keys);
    await measure(name, tasks, want);
  }

  const byKey = new Map(rows.map((r) => [`${r.dataset}/${r.contender}`, r.medianMs]));
  const ratio = (d: string, a: string, b: string) => (byKey.get(`${d}/${b}`) ?? NaN) / (byKey.get(`${d}/${a}`) ?? NaN);
  targets = {
    ...targets,
    'simd vs reference, fixed16 (>= 8x)': ratio('fixed16', 'wasm-simd', 'reference'),
    'simd vs reference, variable (>= 4x)': ratio('variable', 'wasm-simd', 'reference'),
    'simd vs kafkajs, userIds end to end (>= 3x)': ratio('userIds', 'wasm-simd', 'kafkajs DefaultPartitioner'),
    'simd vs kafkajs, nonAscii end to end (>= 3x)': ratio('nonAscii', 'wasm-simd', 'kafkajs DefaultPartitioner'),
    'simd kernel (keys in memory) vs reference, fixed16': ratio('fixed16', 'wasm-simd, keys in kernel memory', 'reference'),
    'simd kernel (keys in memory) vs reference, variable': ratio('variable', 'wasm-simd, keys in kernel memory', 'reference'),
    'simd / native C, fixed16 (<= 2x)': ratio('fixed16', 'native C -O3 -march=native', 'wasm-simd'),
    'simd / native C, variable (<= 2x)': ratio('variable', 'native C -O3 -march=native', 'wasm-simd'),
    'simd kernel / native C, fixed16': ratio('fixed16', 'native C -O3 -march=native', 'wasm-simd, keys in kernel memory'),
    'simd kernel / native C, variable': ratio('variable', 'native C -O3 -march=native', 'wasm-simd, keys in kernel memory'),
  };
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`;
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/hash.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), machine, loadavg: loadavg(), keys: N, partitions: PARTITIONS, singleRows, rows, targets }, null, 2)}\n`);

  const datasetsOrder = ['fixed16', 'variable', 'userIds', 'nonAscii'];
  const contenders = [...new Set(rows.map((r) => r.contender))];
  md += `| contender | ${datasetsOrder.join(' | ')} |\n|---|${datasetsOrder.map(() => '---:').join('|')}|\n`;
  for (const c of contenders) {
    md += `| ${c} | ${datasetsOrder.map((d) => {
      const ms = byKey.get(`${d}/${c}`);
      return ms === undefined ? '–' : `${ms.toFixed(2)} ms (${(byKey.get(`${d}/reference`)! / ms).toFixed(1)}x)`;
    }).join(' | ')} |\n`;
  }
  md += `\nRatios (same run): ${Object.entries(targets).map(([k, v]) => `${k}: ${v.toFixed(2)}x`).join('; ')}\n\nMachine: ${machine}.\n`;
  process.stdout.write(md);
}

await main();
