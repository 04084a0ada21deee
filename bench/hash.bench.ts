// Key hashing benchmark: every contender on the same data in one run; medians (single keys:
// tinybench p50; batches: interleaved rounds, every contender once per round) and ratios. Writes bench/results/hash.json and prints markdown
// tables. Run: npm run bench:hash (BENCH_ONLY=single,bytes,strings picks sections;
// BENCH_KEYS sets the batch size, default 1,000,000; BENCH_KAFKAJS_KEYS how many keys KafkaJS's partitioner gets).
//  1. single keys: µs per call, assignor vs KafkaJS's partitioner as its producer calls it;
//  2. byte keys (fixed 16-byte, variable 8..64-byte): the API, the kernel alone, native C;
//  3. string keys (`user-<7 digits>`, mixed non-ASCII, UUIDs) end to end from JS strings,
//     against the best plain-JS loops.
// Byte and string datasets also run through Kafka's own Utils.murmur2 (kafka-clients from
// test/kafka/pom.xml, bench/java/Murmur2Bench.java): a fresh JVM's first run and its JIT-warm median.
// BENCH_JAVA=0 leaves the Java rows out (they then say "not run"; they are never dropped).
// Every contender is checked to give the reference's partition for every key before it is timed.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import kafkajs from 'kafkajs';
import murmurhash from 'murmurhash';
import { createKeyBatch, partitionForKey, partitionForString, partitionsForFixed, partitionsForKeys, partitionsForPacked } from '../src/hashing/index.js';
import { compileJava, runJava } from '../test/kafka/jvm.js';
import { loadKernels } from '../src/engine/kernels.js';
import { loadWasmCore } from '../src/engine/core.js';
import { encodeJavaUtf8Into, javaUtf8Bound } from '../src/hashing/java-utf8.js';

const N = Number(process.env.BENCH_KEYS ?? 1_000_000);
const PARTITIONS = 1000;
const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;
/** Sections to run (default: all). */
const ONLY = new Set((process.env.BENCH_ONLY ?? 'single,bytes,strings').split(','));
/** KafkaJS's partitioner costs ~10-30 µs a key: it runs once, on the first keys of each dataset (BENCH_KAFKAJS_KEYS, default 100,000). */
const KAFKAJS_KEYS = Math.min(N, Number(process.env.BENCH_KAFKAJS_KEYS ?? 100_000));

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
// Strings are built with Array#join so they are flat, as strings parsed from JSON or
// read from a socket are: a string grown with += is a V8 cons string, which the first
// charCodeAt flattens in place, so whichever contender ran first would pay for all.
const ALPHABETS = ['abcdefghijklmnopqrstuvwxyz', 'éèàüößçñ', 'жзийклмнопрст', '日本語中文한국어', '🙂🚀🎉'].map((a) => [...a]);
function mixedString(): string {
  const parts: string[] = [];
  const len = 4 + (rnd() % 20);
  for (let i = 0; i < len; i++) {
    const a = ALPHABETS[rnd() % ALPHABETS.length]!;
    parts.push(a[rnd() % a.length]!);
  }
  return parts.join('');
}
const hex8 = () => rnd().toString(16).padStart(8, '0');
/** A version-4 UUID string from the seeded generator. */
function uuid(): string {
  const a = hex8(), b = hex8(), c = hex8(), d = hex8();
  return [a, '-', b.slice(0, 4), '-4', b.slice(5), '-', (8 | (rnd() & 3)).toString(16), c.slice(1, 4), '-', c.slice(4), d].join('');
}

const bytesData = { fixed16: packFixed(16), variable: packVariable(8, 64) };
const stringData = {
  userIds: Array.from({ length: N }, () => `user-${1000000 + (rnd() % 9000000)}`),
  nonAscii: Array.from({ length: N }, mixedString),
  uuids: Array.from({ length: N }, uuid),
};
const bufferKeys = (p: Packed) => Array.from({ length: N }, (_, i) => Buffer.from(p.data.buffer, p.offsets[i], p.offsets[i + 1]! - p.offsets[i]!));

// ---- Plain-JS contenders ---------------------------------------------------
// What a user could write instead of calling assignor: Kafka's murmur2 with Math.imul.
const SEED = 0x9747b28c | 0;
const M = 0x5bd1e995;
let plainBuf = new Uint8Array(1024);
function plainMurmur2(b: Uint8Array, len: number): number {
  let h = SEED ^ len;
  const n4 = len & ~3;
  let i = 0;
  for (; i < n4; i += 4) {
    let k = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    h = Math.imul(h, M) ^ Math.imul(k, M);
  }
  const r = len & 3;
  if (r === 3) h ^= b[i + 2]! << 16;
  if (r >= 2) h ^= b[i + 1]! << 8;
  if (r >= 1) h = Math.imul(h ^ b[i]!, M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
}
/** charCodeAt into a reused buffer as Java's UTF-8 (unpaired surrogates as '?'); returns the length. */
function plainEncode(s: string): number {
  const n = s.length;
  if (plainBuf.length < n * 3) plainBuf = new Uint8Array(n * 3);
  const b = plainBuf;
  let p = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) b[p++] = c;
    else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6);
      b[p++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      b[p++] = 0xe0 | (c >> 12);
      b[p++] = 0x80 | ((c >> 6) & 0x3f);
      b[p++] = 0x80 | (c & 0x3f);
    } else {
      const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        b[p++] = 0xf0 | (cp >> 18);
        b[p++] = 0x80 | ((cp >> 12) & 0x3f);
        b[p++] = 0x80 | ((cp >> 6) & 0x3f);
        b[p++] = 0x80 | (cp & 0x3f);
        i++;
      } else b[p++] = 0x3f;
    }
  }
  return p;
}
/** murmur2 straight from charCodeAt while the key is ASCII (no buffer at all); other keys through the buffer. */
function plainStringMurmur2(s: string): number {
  const len = s.length;
  let h = SEED ^ len;
  const n4 = len & ~3;
  let seen = 0;
  let i = 0;
  for (; i < n4; i += 4) {
    const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2), d = s.charCodeAt(i + 3);
    seen |= a | b | c | d;
    let k = a | (b << 8) | (c << 16) | (d << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    h = Math.imul(h, M) ^ Math.imul(k, M);
  }
  const r = len & 3;
  if (r !== 0) {
    const a = s.charCodeAt(i);
    let t = a;
    seen |= a;
    if (r >= 2) {
      const b = s.charCodeAt(i + 1);
      seen |= b;
      t |= b << 8;
    }
    if (r === 3) {
      const c = s.charCodeAt(i + 2);
      seen |= c;
      t |= c << 16;
    }
    h = Math.imul(h ^ t, M);
  }
  if (seen >= 0x80) return plainMurmur2(plainBuf, plainEncode(s));
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
}
const PLAIN_BUFFER = 'plain JS: charCodeAt into a buffer + Math.imul murmur2';
const PLAIN_DIRECT = 'plain JS: murmur2 straight from charCodeAt (buffer only for non-ASCII keys)';
const plainTasks = (keys: string[]): Record<string, () => Int32Array> => ({
  [PLAIN_BUFFER]: () => {
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = (plainMurmur2(plainBuf, plainEncode(keys[i]!)) & 0x7fffffff) % PARTITIONS;
    return out;
  },
  [PLAIN_DIRECT]: () => {
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = (plainStringMurmur2(keys[i]!) & 0x7fffffff) % PARTITIONS;
    return out;
  },
});

// KafkaJS's DefaultPartitioner, called as the producer calls it: one message at a time.
const KAFKAJS = `KafkaJS DefaultPartitioner, per message (first ${KAFKAJS_KEYS} keys, 1 run, scaled to ${N})`;
const partitionMetadata = Array.from({ length: PARTITIONS }, (_, i) => ({ partitionErrorCode: 0, partitionId: i, leader: 0, replicas: [0], isr: [0], offlineReplicas: [] }));
const kafkajsPartitioner = kafkajs.Partitioners.DefaultPartitioner();
const viaKafkajs = (keys: ArrayLike<string | Buffer>) => {
  const out = new Int32Array(KAFKAJS_KEYS);
  for (let i = 0; i < KAFKAJS_KEYS; i++) out[i] = kafkajsPartitioner({ topic: 't', partitionMetadata, message: { key: keys[i]!, value: null } });
  return out;
};
const MURMURHASH = 'npm murmurhash v2, seed 0x9747b28c, per key';
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
  const viaPartitioner = (key: string, meta: typeof meta12) => partitioner({ topic: 't', partitionMetadata: meta, message: { key, value: null } });
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

// ---- Batches --------------------------------------------------------------
function check(name: string, want: Int32Array, got: Int32Array): void {
  for (let i = 0; i < got.length; i++) if (want[i] !== got[i]) throw new Error(`${name} disagrees at key ${i}: ${got[i]} vs ${want[i]}`);
}

type Row = { dataset: string; contender: string; medianMs: number; keysPerSec: number; samples: number };
const rows: Row[] = [];

/** Timed rounds per batch contender, after WARMUP untimed ones. */
const ROUNDS = 11;
const WARMUP = 2;

/**
 * Median wall time of each task, in interleaved rounds (every task once per round, in turn), so a
 * slow spell of the machine hits every contender alike and the ratios of one run stay comparable.
 */
function interleaved(tasks: Record<string, () => unknown>): Map<string, number> {
  const names = Object.keys(tasks);
  const times = new Map(names.map((n) => [n, [] as number[]]));
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (const name of names) {
      const t0 = performance.now();
      tasks[name]!();
      const t = performance.now() - t0;
      if (round >= WARMUP) times.get(name)!.push(t);
    }
  }
  return new Map(names.map((n) => [n, median(times.get(n)!)]));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function report(dataset: string, name: string, ms: number, samples: number, note = ''): void {
  rows.push({ dataset, contender: name, medianMs: ms, keysPerSec: N / (ms / 1000), samples });
  process.stderr.write(`  ${dataset.padEnd(10)} ${name.padEnd(60)} ${ms.toFixed(2)} ms${note}\n`);
}

/** Times every task in the same rounds, each checked against `want` first; `unchecked` tasks (floors) give no partitions. */
async function measure(dataset: string, tasks: Record<string, () => Int32Array>, want: Int32Array, unchecked: Record<string, () => unknown> = {}): Promise<void> {
  const timed: Record<string, () => unknown> = { ...unchecked };
  for (const [name, fn] of Object.entries(tasks)) {
    if (name === KAFKAJS) {
      const t0 = performance.now();
      check(`${dataset}/${name}`, want, fn());
      report(dataset, name, ((performance.now() - t0) * N) / KAFKAJS_KEYS, 1, ' (scaled)');
      continue;
    }
    check(`${dataset}/${name}`, want, fn());
    timed[name] = fn;
  }
  for (const [name, ms] of interleaved(timed)) report(dataset, name, ms, ROUNDS);
}

const KERNEL_ALONE = (engine: string) => `${engine}, kernel alone (keys already in kernel memory)`;
const NATIVE_C = 'native C -O3 -march=native (bench/native/)';
const KEY_BATCH = (engine: string) => `${engine}, KeyBatch (keys written in kernel memory once, hashed in place)`;
const KEY_BATCH_COPY = (engine: string) => `${engine}, KeyBatch + bytes.set(keys) per call`;
const JAVA_WARM = 'Java kafka-clients Utils.murmur2 (strings: + getBytes(UTF_8)), JIT-warm median';
const JAVA_COLD = 'Java kafka-clients Utils.murmur2, cold first run (fresh JVM)';
const JAVA_RUNS = 11;

let javaClasspath: string | Error | undefined;
/** Compiles bench/java/Murmur2Bench.java against kafka-clients once (Maven resolves the jars). */
function javaCp(): string {
  if (javaClasspath === undefined) {
    try {
      if (process.env.BENCH_JAVA === '0') throw new Error('BENCH_JAVA=0');
      const src = new URL('./java/Murmur2Bench.java', import.meta.url).pathname;
      javaClasspath = compileJava('kafka', [src], mkdtempSync(join(tmpdir(), 'assignor-java-')));
    } catch (e) {
      javaClasspath = e as Error;
    }
  }
  if (javaClasspath instanceof Error) throw javaClasspath;
  return javaClasspath;
}

/**
 * Kafka's own murmur2 on the same keys, in a fresh JVM per dataset: its first run (cold, as a
 * new producer meets its first keys) and the median of the next ten. Its partitions must equal
 * the reference's (checksum). A failed Java step becomes a row that says so.
 */
function javaMurmur2(dataset: string, keys: { kind: 'strings'; strings: string[] } | { kind: 'bytes'; p: Packed }, want: Int32Array): void {
  let dir: string | undefined;
  try {
    const cp = javaCp();
    dir = mkdtempSync(join(tmpdir(), 'assignor-java-keys-'));
    const file = join(dir, `${dataset}.keys`);
    writeFileSync(file, javaInput(keys));
    const out = runJava(cp, 'Murmur2Bench', [file], undefined, '2g').stdout.trim().split(' ');
    const [cold, warm, sum] = [Number(out[1]), Number(out[2]), Number(out[3])];
    let expectSum = 0;
    for (let i = 0; i < N; i++) expectSum = (Math.imul(expectSum, 31) + want[i]!) >>> 0;
    if (sum !== expectSum) throw new Error(`Java's partitions differ from the reference's on ${dataset} (checksum ${sum} vs ${expectSum})`);
    rows.push({ dataset, contender: JAVA_WARM, medianMs: warm, keysPerSec: N / (warm / 1000), samples: JAVA_RUNS - 1 });
    rows.push({ dataset, contender: JAVA_COLD, medianMs: cold, keysPerSec: N / (cold / 1000), samples: 1 });
    process.stderr.write(`  ${dataset.padEnd(10)} ${JAVA_WARM.padEnd(60)} ${warm.toFixed(2)} ms (cold ${cold.toFixed(2)} ms)\n`);
  } catch (e) {
    const why = (e as Error).message.split('\n')[0]!;
    if (why.startsWith('Java\'s partitions differ')) throw e;
    process.stderr.write(`  ${dataset.padEnd(10)} Java: not run: ${why}\n`);
    rows.push({ dataset, contender: `${JAVA_WARM}: not run (${why})`, medianMs: NaN, keysPerSec: NaN, samples: 0 });
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** Murmur2Bench's input: kind, count, partitions, runs, then each key as a length and its bytes (strings as UTF-16BE). */
function javaInput(keys: { kind: 'strings'; strings: string[] } | { kind: 'bytes'; p: Packed }): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(16);
  head.writeInt32BE(keys.kind === 'strings' ? 0 : 1, 0);
  head.writeInt32BE(N, 4);
  head.writeInt32BE(PARTITIONS, 8);
  head.writeInt32BE(JAVA_RUNS, 12);
  parts.push(head);
  for (let i = 0; i < N; i++) {
    let key: Buffer;
    if (keys.kind === 'strings') {
      key = Buffer.from(keys.strings[i]!, 'utf16le').swap16();
    } else {
      key = Buffer.from(keys.p.data.buffer, keys.p.data.byteOffset + keys.p.offsets[i]!, keys.p.offsets[i + 1]! - keys.p.offsets[i]!);
    }
    const len = Buffer.alloc(4);
    len.writeInt32BE(key.length, 0);
    parts.push(len, key);
  }
  return Buffer.concat(parts);
}

// ---- 2. Byte keys ---------------------------------------------------------
async function byteKeys(name: 'fixed16' | 'variable'): Promise<void> {
  const p = bytesData[name];
  const want = loadKernels({ engine: 'reference' }).hashVar(p.data, p.offsets, N, PARTITIONS);
  const tasks: Record<string, () => Int32Array> = {};
  for (const engine of ENGINES) {
    tasks[engine] = name === 'fixed16'
      ? () => partitionsForFixed(p.data, 16, PARTITIONS, { engine })
      : () => partitionsForPacked(p.data, p.offsets, PARTITIONS, { engine });
  }
  // The kernels alone, with the keys already in linear memory: no copy in, no copy out.
  for (const simd of [false, true]) {
    const core = loadWasmCore(simd);
    core.begin();
    const dp = core.put(p.data);
    const op = core.put(p.offsets);
    const out = core.alloc(N * 4);
    const run = name === 'fixed16' ? () => core.raw.hashFixed(dp, 16, N, PARTITIONS, out) : () => core.raw.hashVar(dp, op, N, PARTITIONS, out);
    tasks[KERNEL_ALONE(simd ? 'wasm-simd' : 'wasm-scalar')] = () => {
      run();
      return core.i32(out, N);
    };
  }
  // KeyBatch: the keys written into kernel memory once (as a caller that builds them there
  // would), then hashed in place; and the same with a copy of the caller's buffer per call.
  for (const engine of ['wasm-scalar', 'wasm-simd'] as const) {
    const batch = createKeyBatch({ engine, maxBytes: p.data.length, maxKeys: N });
    batch.bytes.set(p.data);
    batch.offsets.set(p.offsets);
    const hash = name === 'fixed16' ? () => batch.partitionsForFixed(16, N, PARTITIONS) : () => batch.partitionsForPacked(N, PARTITIONS);
    tasks[KEY_BATCH(engine)] = hash;
    tasks[KEY_BATCH_COPY(engine)] = () => {
      batch.bytes.set(p.data);
      return hash();
    };
  }
  const buffers = bufferKeys(p);
  tasks[MURMURHASH] = () => viaMurmurhash(buffers);
  tasks[KAFKAJS] = () => viaKafkajs(buffers);
  await measure(name, tasks, want);
  nativeC(name, p, want);
  javaMurmur2(name, { kind: 'bytes', p }, want);
}

function nativeC(dataset: string, p: Packed, want: Int32Array): void {
  const dir = mkdtempSync(join(tmpdir(), 'assignor-native-'));
  const exe = join(dir, 'murmur2');
  try {
    execFileSync('cc', ['-O3', '-march=native', '-o', exe, new URL('./native/murmur2.c', import.meta.url).pathname], { stdio: 'pipe' });
  } catch (e) {
    process.stderr.write(`  native C: not run: ${(e as Error).message.split('\n')[0]}\n`);
    rows.push({ dataset, contender: `${NATIVE_C}: not run, no C compiler`, medianMs: NaN, keysPerSec: NaN, samples: 0 });
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
  rows.push({ dataset, contender: NATIVE_C, medianMs: Number(ms), keysPerSec: N / (Number(ms) / 1000), samples: 21 });
  process.stderr.write(`  ${dataset.padEnd(10)} ${NATIVE_C.padEnd(60)} ${Number(ms).toFixed(2)} ms\n`);
}

// ---- 3. String keys -------------------------------------------------------
async function stringKeys(name: keyof typeof stringData): Promise<void> {
  const keys = stringData[name];
  const want = partitionsForKeys(keys, PARTITIONS, { engine: 'reference' });
  const tasks: Record<string, () => Int32Array> = {};
  for (const engine of ENGINES) tasks[engine] = () => partitionsForKeys(keys, PARTITIONS, { engine });
  Object.assign(tasks, plainTasks(keys));
  tasks[MURMURHASH] = () => viaMurmurhash(keys);
  tasks[KAFKAJS] = () => viaKafkajs(keys);
  // The same keys as Java's UTF-8 already in kernel memory (a KeyBatch of its own, which no other
  // call overwrites): what hashing costs once the keys are out of V8.
  const packed = javaUtf8Packed(keys);
  const batch = createKeyBatch({ engine: 'wasm-simd', maxBytes: packed.data.length, maxKeys: N });
  batch.bytes.set(packed.data);
  batch.offsets.set(packed.offsets);
  tasks[KEY_BATCH('wasm-simd')] = () => batch.partitionsForPacked(N, PARTITIONS);
  await measure(name, tasks, want, { [FLOOR_VISIT]: visitFloor(keys) });
  javaMurmur2(name, { kind: 'strings', strings: keys }, want);
}

const FLOOR_VISIT = 'floor, no hash: read each key\'s type and length into offsets (no copy)';

/**
 * The least any call that takes JS strings must do before hashing: look at every key (is it a
 * string, how long). Not a contender (it gives no partitions); timed in the same rounds.
 */
function visitFloor(keys: readonly string[]): () => number {
  const offsets = new Int32Array(keys.length + 1);
  return () => {
    let u = 0;
    for (let e = 0; e < keys.length; e++) {
      const k = keys[e];
      if (typeof k !== 'string') throw new Error('not a string');
      u += k.length;
      offsets[e + 1] = u;
    }
    return u;
  };
}

/** Strings as Java's UTF-8, packed with offsets (the KeyBatch row's input), written in place: no array per key. */
function javaUtf8Packed(keys: readonly string[]): Packed {
  let bound = 0;
  for (const k of keys) bound += javaUtf8Bound(k);
  const data = new Uint8Array(bound);
  const offsets = new Int32Array(keys.length + 1);
  keys.forEach((k, i) => (offsets[i + 1] = encodeJavaUtf8Into(k, data, offsets[i]!)));
  return { data: data.subarray(0, offsets[keys.length]!), offsets };
}

// ---- Report ---------------------------------------------------------------
function singleKeyTable(): { md: string; targets: Record<string, number> } {
  const us = (name: string, n: number) => singleRows.find((r) => r.contender === name && r.partitions === n)?.usPerCall ?? NaN;
  const ours = us('assignor partitionForKey', 12);
  let md = '| single key, 16 ASCII characters | partitions | µs per call | KafkaJS partitioner / this |\n|---|---:|---:|---:|\n';
  for (const r of singleRows) md += `| ${r.contender} | ${r.partitions} | ${r.usPerCall.toFixed(3)} | ${(us('KafkaJS DefaultPartitioner', r.partitions) / r.usPerCall).toFixed(1)}x |\n`;
  md += `\nTarget partitionForKey <= 0.3 µs per call: ${ours.toFixed(3)} µs, ${ours <= 0.3 ? 'met' : 'missed'}.\n`;
  return { md, targets: { 'partitionForKey µs per call (<= 0.3)': ours, 'KafkaJS DefaultPartitioner @12 / partitionForKey': us('KafkaJS DefaultPartitioner', 12) / ours } };
}

function batchTable(datasets: string[], baseline: string): string {
  const byKey = new Map(rows.map((r) => [`${r.dataset}/${r.contender}`, r.medianMs]));
  const contenders = [...new Set(rows.filter((r) => datasets.includes(r.dataset) && !isFloor(r.contender)).map((r) => r.contender))];
  let md = `| contender | ${datasets.join(' | ')} |\n|---|${datasets.map(() => '---:').join('|')}|\n`;
  for (const c of contenders) {
    md += `| ${c} | ${datasets.map((d) => {
      const ms = byKey.get(`${d}/${c}`);
      return ms === undefined || Number.isNaN(ms) ? '–' : `${ms.toFixed(2)} ms (${((byKey.get(`${d}/${baseline}`) ?? NaN) / ms).toFixed(2)}x)`;
    }).join(' | ')} |\n`;
  }
  return `${md}\nRatios in brackets: ${baseline} / this, same run.\n`;
}

const isFloor = (contender: string) => contender === FLOOR_VISIT;

/** Where a string-key call's time goes: the floor of reading keys, the kernel, and the copy between them. */
function floorTable(datasets: string[], bestPlain: (d: string) => number): string {
  const batch = KEY_BATCH('wasm-simd');
  const row = (label: string, f: (d: string) => string) => `| ${label} | ${datasets.map(f).join(' | ')} |\n`;
  let md = `| where wasm-simd's time goes, string keys | ${datasets.join(' | ')} |\n|---|${datasets.map(() => '---:').join('|')}|\n`;
  md += row('partitionsForKeys (wasm-simd), the whole call', (d) => `${ms(d, 'wasm-simd').toFixed(2)} ms`);
  md += row('the kernel on the same keys as bytes already in its memory (KeyBatch)', (d) => `${ms(d, batch).toFixed(2)} ms`);
  md += row('so: getting the keys out of V8 (the whole call minus KeyBatch)', (d) => `${(ms(d, 'wasm-simd') - ms(d, batch)).toFixed(2)} ms`);
  md += row('of which the floor: reading each key\'s type and length, no copy (timed alone)', (d) => `${ms(d, FLOOR_VISIT).toFixed(2)} ms`);
  md += row('best plain JS loop', (d) => `${bestPlain(d).toFixed(2)} ms`);
  md += row('ceiling if the copy out of V8 were free: best plain / (floor + KeyBatch)', (d) => `${(bestPlain(d) / (ms(d, FLOOR_VISIT) + ms(d, batch))).toFixed(2)}x`);
  return `${md}\nThe floor hashes nothing: it is the least any call that takes JS strings must do before hashing.\n`;
}

function ms(dataset: string, contender: string): number {
  return rows.find((r) => r.dataset === dataset && r.contender === contender)?.medianMs ?? NaN;
}

async function main(): Promise<void> {
  const calibration = (() => {
    const t = performance.now();
    let x = 0;
    for (let i = 0; i < 1e8; i++) x = (x + i) | 0;
    return x === 0.5 ? 0 : performance.now() - t;
  })();
  process.stderr.write(`hash benchmark: ${N} keys per dataset, ${PARTITIONS} partitions; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; 1e8 adds ${calibration.toFixed(0)} ms\n`);
  let md = '';
  const targets: Record<string, number> = {};
  const verdicts: string[] = [];
  const target = (label: string, value: number, goal: number, atLeast = true) => {
    targets[label] = value;
    verdicts.push(`| ${label} | ${value.toFixed(2)}x | ${atLeast ? '>=' : '<='} ${goal}x | ${(atLeast ? value >= goal : value <= goal) ? 'met' : 'missed'} |`);
  };
  if (ONLY.has('single')) {
    await singleKeys();
    const t = singleKeyTable();
    md += `${t.md}\n`;
    Object.assign(targets, t.targets);
  }
  if (ONLY.has('bytes')) {
    for (const name of ['fixed16', 'variable'] as const) await byteKeys(name);
    md += `${batchTable(['fixed16', 'variable'], 'reference')}\n`;
    target('fixed16: wasm-simd KeyBatch / kernel alone (within 1.5x)', ms('fixed16', KEY_BATCH('wasm-simd')) / ms('fixed16', KERNEL_ALONE('wasm-simd')), 1.5, false);
    targets['fixed16: wasm-simd one-shot partitionsForFixed / kernel alone'] = ms('fixed16', 'wasm-simd') / ms('fixed16', KERNEL_ALONE('wasm-simd'));
    targets['fixed16: Java warm / wasm-simd KeyBatch'] = ms('fixed16', JAVA_WARM) / ms('fixed16', KEY_BATCH('wasm-simd'));
  }
  if (ONLY.has('strings')) {
    for (const name of ['userIds', 'nonAscii', 'uuids'] as const) await stringKeys(name);
    md += `${batchTable(['userIds', 'nonAscii', 'uuids'], PLAIN_BUFFER)}\n`;
    const bestPlain = (d: string) => Math.min(ms(d, PLAIN_BUFFER), ms(d, PLAIN_DIRECT));
    md += `${floorTable(['userIds', 'nonAscii', 'uuids'], bestPlain)}\n`;
    target('userIds: best plain JS / wasm-simd', bestPlain('userIds') / ms('userIds', 'wasm-simd'), 2);
    target('nonAscii: best plain JS / wasm-simd', bestPlain('nonAscii') / ms('nonAscii', 'wasm-simd'), 1.5);
    target('uuids: best plain JS / wasm-simd', bestPlain('uuids') / ms('uuids', 'wasm-simd'), 2);
    // Where the time goes (see floorTable): what the copy out of V8 costs against the plain loop.
    for (const d of ['userIds', 'nonAscii', 'uuids']) {
      targets[`${d}: outside the kernel, ms (wasm-simd - KeyBatch)`] = ms(d, 'wasm-simd') - ms(d, KEY_BATCH('wasm-simd'));
      targets[`${d}: ceiling with a free copy, best plain JS / (visit floor + KeyBatch)`] = bestPlain(d) / (ms(d, FLOOR_VISIT) + ms(d, KEY_BATCH('wasm-simd')));
    }
    for (const d of ['userIds', 'nonAscii', 'uuids']) {
      targets[`${d}: Java warm / wasm-simd`] = ms(d, JAVA_WARM) / ms(d, 'wasm-simd');
      targets[`${d}: Java cold / wasm-simd`] = ms(d, JAVA_COLD) / ms(d, 'wasm-simd');
    }
  }
  if (verdicts.length > 0) md += `| target (same run) | measured | goal | |\n|---|---:|---:|---|\n${verdicts.join('\n')}\n\n`;
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`;
  md += `Other ratios: ${Object.entries(targets).map(([k, v]) => `${k}: ${v.toFixed(2)}`).join('; ')}\n\nMachine: ${machine}; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; 1e8 adds ${calibration.toFixed(0)} ms.\n`;
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('./results/hash.json', import.meta.url),
    `${JSON.stringify({ date: new Date().toISOString(), machine, loadavg: loadavg(), calibration1e8AddsMs: calibration, keys: N, partitions: PARTITIONS, singleRows, rows, targets }, null, 2)}\n`,
  );
  process.stdout.write(md);
}

await main();
