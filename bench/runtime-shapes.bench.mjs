// One runtime's figures for the runtime table (bench/runtimes.bench.mjs runs this file under
// each runtime of scripts/runtimes.mjs and writes the table). Plain JavaScript against the built
// package (dist/), so Node, Bun and Deno run the same file as a user's code would.
//
// For every key shape: assignor's batch call against the best plain-JS loop a user could write on
// that runtime, timed in interleaved rounds (every contender once per round, so a slow spell of
// the machine hits all alike; process CPU time unless BENCH_CLOCK=wall); medians; ratio = best plain loop / assignor (>= 1: assignor is at
// least as fast). String shapes also give the ratio against the Java-exact loop (plain-loops.mjs).
// Every contender is checked to give assignor's partitions before it is timed.
// Then a short subset of the other benchmarks: a consumer group's first assignment (1M partitions x
// 1,000 members), the samza mapper on 1M SSPs, kafka-mode standbys at 100k tasks x 5k clients.
//
// Prints one JSON line on stdout. BENCH_KEYS sets the batch size (default 1,000,000),
// BENCH_ROUNDS the timed rounds (default 9), BENCH_ONLY=hash|subset one half, BENCH_BEFORE (below)
// an older build to race on the string shapes.
import { cpus, loadavg } from 'node:os';
import * as assignor from '../dist/index.js';
import { fin, JAVA_EXACT, mix, murmurBytes, PARTITIONS, plainStrings, SEED } from './plain-loops.mjs';

const N = Number(process.env.BENCH_KEYS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const WARMUP = 2;
const ONLY = process.env.BENCH_ONLY ?? 'hash,subset';
const view8 = new DataView(new ArrayBuffer(8));
// BENCH_BEFORE=/path/to/another/dist/index.js: that build's partitionsForKeys runs in the same
// rounds as one more contender (never counted as a plain loop), for a before/after on one machine.
const BEFORE = 'assignor partitionsForKeys, BENCH_BEFORE build';
const before = process.env.BENCH_BEFORE ? await import(process.env.BENCH_BEFORE) : undefined;

let seed = 0x2545f491;
function rnd() {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}

// ---- The key shapes (the same generators as bench/hash.bench.ts) ----------
const ALPHABETS = ['abcdefghijklmnopqrstuvwxyz', 'éèàüößçñ', 'жзийклмнопрст', '日本語中文한국어', '🙂🚀🎉'].map((a) => [...a]);
function mixedString() {
  const parts = [];
  const len = 4 + (rnd() % 20);
  for (let i = 0; i < len; i++) {
    const a = ALPHABETS[rnd() % ALPHABETS.length];
    parts.push(a[rnd() % a.length]);
  }
  return parts.join('');
}
const hex8 = () => rnd().toString(16).padStart(8, '0');
function uuid() {
  const a = hex8(), b = hex8(), c = hex8(), d = hex8();
  return [a, '-', b.slice(0, 4), '-4', b.slice(5), '-', (8 | (rnd() & 3)).toString(16), c.slice(1, 4), '-', c.slice(4), d].join('');
}

// ---- Timing -----------------------------------------------------------------
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}
function same(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
/**
 * The process's CPU time in ms (BENCH_CLOCK=wall: performance.now()). On a machine shared with
 * other work, wall time also counts the spells this process waits for a core; CPU time counts the
 * work only (the garbage collector's helper threads included).
 */
const clock = process.env.BENCH_CLOCK === 'wall' ? () => performance.now() : () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Interleaved rounds; every contender checked against `ours` (assignor's answer) first. */
function race(shape, tasks, ours) {
  const want = tasks[ours]();
  for (const [name, run] of Object.entries(tasks)) if (!same(run(), want)) throw new Error(`${shape}: ${name} disagrees with ${ours}`);
  const times = Object.fromEntries(Object.keys(tasks).map((k) => [k, []]));
  const order = Object.entries(tasks);
  for (let r = 0; r < WARMUP + ROUNDS; r++) {
    // Each round starts one contender later, so none always runs right after the same other one.
    for (let j = 0; j < order.length; j++) {
      const [name, run] = order[(j + r) % order.length];
      const t = clock();
      run();
      const dt = clock() - t;
      if (r >= WARMUP) times[name].push(dt);
    }
  }
  const medians = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const plain = Object.entries(medians).filter(([k]) => k !== ours && k !== BEFORE);
  const [bestName, bestMs] = plain.reduce((a, b) => (b[1] < a[1] ? b : a));
  const row = { shape, assignorMs: medians[ours], bestPlain: bestName, bestPlainMs: bestMs, ratio: bestMs / medians[ours], medians };
  if (JAVA_EXACT in medians) Object.assign(row, { javaExactMs: medians[JAVA_EXACT], javaExactRatio: medians[JAVA_EXACT] / medians[ours] });
  if (BEFORE in medians) Object.assign(row, { beforeMs: medians[BEFORE], beforeJavaExactRatio: medians[JAVA_EXACT] / medians[BEFORE] });
  return row;
}

function hashShapes() {
  const rows = [];
  const strings = {
    'user-<7 digits>': Array.from({ length: N }, () => `user-${1000000 + (rnd() % 9000000)}`),
    UUID: Array.from({ length: N }, uuid),
    'mixed non-ASCII': Array.from({ length: N }, mixedString),
  };
  const OURS = 'assignor partitionsForKeys';
  for (const [shape, keys] of Object.entries(strings)) {
    const tasks = { [OURS]: () => assignor.partitionsForKeys(keys, PARTITIONS) };
    if (before !== undefined) tasks[BEFORE] = () => before.partitionsForKeys(keys, PARTITIONS);
    for (const [name, f] of Object.entries(plainStrings)) tasks[name] = () => f(keys);
    rows.push(race(shape, tasks, OURS));
  }

  const fixed = new Uint8Array(N * 16);
  for (let i = 0; i < fixed.length; i++) fixed[i] = rnd() & 0xff;
  rows.push(race('fixed 16 bytes', {
    'assignor partitionsForFixed': () => assignor.partitionsForFixed(fixed, 16, PARTITIONS),
    'plain JS: murmur2 over each 16-byte slice': () => {
      const out = new Int32Array(N);
      for (let i = 0; i < N; i++) out[i] = (murmurBytes(fixed, i * 16, 16) & 0x7fffffff) % PARTITIONS;
      return out;
    },
  }, 'assignor partitionsForFixed'));

  const ints = Int32Array.from({ length: N }, () => rnd() | 0);
  rows.push(race('int32', {
    'assignor partitionsForInt32s': () => assignor.partitionsForInt32s(ints, PARTITIONS),
    'plain JS: murmur2 of the byte-swapped int': () => {
      const out = new Int32Array(N);
      for (let i = 0; i < N; i++) {
        const v = ints[i];
        const k = (v >>> 24) | ((v >>> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
        out[i] = (fin(mix(SEED ^ 4, k)) & 0x7fffffff) % PARTITIONS;
      }
      return out;
    },
  }, 'assignor partitionsForInt32s'));

  const longs = BigInt64Array.from({ length: N }, () => (BigInt(rnd()) << 32n) | BigInt(rnd()));
  const longsSigned = BigInt64Array.from(longs, (v) => BigInt.asIntN(64, v));
  rows.push(race('int64', {
    'assignor partitionsForInt64s': () => assignor.partitionsForInt64s(longsSigned, PARTITIONS),
    'plain JS: murmur2 of the big-endian bytes (DataView)': () => {
      const out = new Int32Array(N);
      for (let i = 0; i < N; i++) {
        view8.setBigInt64(0, longsSigned[i], false);
        out[i] = (fin(mix(mix(SEED ^ 8, view8.getInt32(0, true)), view8.getInt32(4, true))) & 0x7fffffff) % PARTITIONS;
      }
      return out;
    },
  }, 'assignor partitionsForInt64s'));

  const single = Array.from({ length: 100_000 }, (_, i) => `order-${String((i * 7919) % 1e9).padStart(10, '0')}`);
  rows.push(race('one key per call (100k calls)', {
    'assignor partitionForKey': () => {
      const out = new Int32Array(single.length);
      for (let i = 0; i < single.length; i++) out[i] = assignor.partitionForKey(single[i], PARTITIONS);
      return out;
    },
    'plain JS: murmur2 straight from charCodeAt': () => plainStrings['plain JS: murmur2 straight from charCodeAt'](single),
  }, 'assignor partitionForKey'));
  return rows;
}

// ---- The subset of the other benchmarks ---------------------------------------
function timeIt(run, rounds = 5) {
  run();
  const t = [];
  for (let i = 0; i < rounds; i++) {
    const s = performance.now();
    run();
    t.push(performance.now() - s);
  }
  return median(t);
}

async function subset() {
  const out = [];
  // A consumer group's first assignment (sticky): 1,000 topics x 1,000 partitions, 1,000 members subscribed to all.
  const group = await import('../dist/group/index.js');
  const topics = Array.from({ length: 1000 }, (_, i) => ({ name: `topic-${String(i).padStart(4, '0')}`, partitions: 1000 }));
  const members = Array.from({ length: 1000 }, (_, i) => ({ id: `member-${String(i).padStart(4, '0')}`, topics: topics.map((t) => t.name) }));
  out.push({ case: 'group first assignment, sticky, 1M partitions x 1,000 members', ms: timeIt(() => group.assignGroup({ topics, members }).report, 3) });

  // Samza mapper (SSPGrouperProxy + HashSystemStreamPartitionMapper), 1,000 streams 500 -> 1,000 partitions: 1M SSPs.
  const samza = await import('../dist/samza/index.js');
  const names = Array.from({ length: 1000 }, (_, i) => `kafka.events-${String(i).padStart(4, '0')}`);
  const config = { 'job.name': 'bench', 'task.inputs': names.join(','), 'job.container.count': '16' };
  const at = (p) => ({ config, partitionCounts: new Map(names.map((n) => [n, p])) });
  const before = samza.calculateJobModel(at(500), undefined, { mapper: 'samza' });
  const previous = { baseCounts: new Map(names.map((n) => [n, 500])), taskToSsps: samza.previousRowsOfGrouping(before.grouping) };
  out.push({ case: 'samza mapper, 1M SSPs (1,000 streams 500 -> 1,000)', ms: timeIt(() => samza.calculateJobModel(at(1000), previous, { mapper: 'samza' }), 3) });

  // Kafka-mode standbys, 100k tasks x 5k clients, 2 standbys, cluster x zone 3 x 3.
  const C = 5000, T = 100_000;
  const clients = [];
  for (let c = 0; c < C; c++) clients.push({ id: `client-${String(c).padStart(5, '0')}`, tags: { cluster: `cluster-${rnd() % 3}`, zone: `zone-${rnd() % 3}` }, active: [] });
  const tasks = [];
  const per = Math.ceil(T / 8);
  for (let t = 0; t < T; t++) {
    const id = `${Math.floor(t / per)}_${t % per}`;
    tasks.push(id);
    clients[rnd() % C].active.push(id);
  }
  const cluster = { clients, tasks, numStandbys: 2, tagKeys: ['cluster', 'zone'] };
  out.push({ case: 'standby, kafka mode, 100k tasks x 5k clients', ms: timeIt(() => assignor.placeStandbys(cluster, { mode: 'kafka' }).report().totals, 3) });
  return out;
}

const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : typeof Deno !== 'undefined' ? `Deno ${Deno.version.deno}` : `Node ${process.version}`;
const result = { runtime, engine: assignor.getKernels().name, cpu: cpus()[0]?.model, keys: N, rounds: ROUNDS, clock: process.env.BENCH_CLOCK === 'wall' ? 'wall' : 'cpu', loadavg: loadavg(), date: new Date().toISOString() };
if (ONLY.includes('hash')) result.shapes = hashShapes();
if (ONLY.includes('subset')) result.subset = await subset();
process.stdout.write(`${JSON.stringify(result)}\n`);
