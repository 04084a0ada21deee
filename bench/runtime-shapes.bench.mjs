// One runtime's figures for the runtime table (bench/runtimes.bench.mjs runs this file under
// each runtime of scripts/runtimes.mjs and writes the table). Plain JavaScript against the built
// package (dist/), so Node, Bun and Deno run the same file as a user's code would.
//
// For every key shape: assignor's batch call against the best plain-JS loop a user could write on
// that runtime, timed in interleaved rounds (every contender once per round, so a slow spell of
// the machine hits all alike); medians; ratio = best plain loop / assignor (>= 1: assignor is at
// least as fast). Every contender is checked to give assignor's partitions before it is timed.
// Then a short subset of the other benchmarks: a consumer group's first assignment (1M partitions x
// 1,000 members), the samza mapper on 1M SSPs, kafka-mode standbys at 100k tasks x 5k clients.
//
// Prints one JSON line on stdout. BENCH_KEYS sets the batch size (default 1,000,000),
// BENCH_ROUNDS the timed rounds (default 9), BENCH_ONLY=hash|subset one half.
import { cpus, loadavg } from 'node:os';
import * as assignor from '../dist/index.js';

const N = Number(process.env.BENCH_KEYS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const WARMUP = 2;
const PARTITIONS = 1000;
const ONLY = process.env.BENCH_ONLY ?? 'hash,subset';

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

// ---- Plain-JS contenders: what a user could write instead ------------------
const SEED = 0x9747b28c | 0;
const M = 0x5bd1e995;
let buf = new Uint8Array(1024);
function murmurBytes(b, start, len) {
  let h = SEED ^ len;
  const n4 = start + (len & ~3);
  let i = start;
  for (; i < n4; i += 4) {
    let k = b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    h = Math.imul(h, M) ^ Math.imul(k, M);
  }
  const r = len & 3;
  if (r === 3) h ^= b[i + 2] << 16;
  if (r >= 2) h ^= b[i + 1] << 8;
  if (r >= 1) h = Math.imul(h ^ b[i], M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
}
/** charCodeAt into a reused buffer as Java's UTF-8 (unpaired surrogates as '?'). */
function encode(s) {
  const n = s.length;
  if (buf.length < n * 3) buf = new Uint8Array(n * 3);
  const b = buf;
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
/** murmur2 straight from charCodeAt while the key is ASCII; other keys through the buffer. */
function murmurString(s) {
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
    let t = s.charCodeAt(i);
    seen |= t;
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
  if (seen >= 0x80) return murmurBytes(buf, 0, encode(s));
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
}
const mix = (h, k) => {
  k = Math.imul(k, M);
  k ^= k >>> 24;
  return Math.imul(h, M) ^ Math.imul(k, M);
};
const fin = (h) => {
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
};
const view8 = new DataView(new ArrayBuffer(8));

const plainStrings = {
  'plain JS: murmur2 straight from charCodeAt': (keys) => {
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = (murmurString(keys[i]) & 0x7fffffff) % PARTITIONS;
    return out;
  },
  'plain JS: charCodeAt into a buffer + murmur2': (keys) => {
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = (murmurBytes(buf, 0, encode(keys[i])) & 0x7fffffff) % PARTITIONS;
    return out;
  },
  // Java's bytes for every string: encodeInto only where no unpaired surrogate makes it differ.
  'plain JS: encodeInto if well-formed, else charCodeAt into a buffer, + murmur2 (Java-exact)': (keys) => {
    const enc = new TextEncoder();
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (buf.length < k.length * 3) buf = new Uint8Array(k.length * 3);
      const n = k.isWellFormed() ? enc.encodeInto(k, buf).written : encode(k);
      out[i] = (murmurBytes(buf, 0, n) & 0x7fffffff) % PARTITIONS;
    }
    return out;
  },
  // Not Java's bytes for a string with an unpaired surrogate (U+FFFD where Java writes '?'); these
  // datasets have none, so it gives the same partitions here and counts as a contender.
  'plain JS: TextEncoder.encodeInto + murmur2 (WHATWG bytes, equal here: no lone surrogates)': (keys) => {
    const enc = new TextEncoder();
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (buf.length < k.length * 3) buf = new Uint8Array(k.length * 3);
      out[i] = (murmurBytes(buf, 0, enc.encodeInto(k, buf).written) & 0x7fffffff) % PARTITIONS;
    }
    return out;
  },
};

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
/** Interleaved rounds; every contender checked against `ours` (assignor's answer) first. */
function race(shape, tasks, ours) {
  const want = tasks[ours]();
  for (const [name, run] of Object.entries(tasks)) if (!same(run(), want)) throw new Error(`${shape}: ${name} disagrees with ${ours}`);
  const times = Object.fromEntries(Object.keys(tasks).map((k) => [k, []]));
  for (let r = 0; r < WARMUP + ROUNDS; r++) {
    for (const [name, run] of Object.entries(tasks)) {
      const t = performance.now();
      run();
      const dt = performance.now() - t;
      if (r >= WARMUP) times[name].push(dt);
    }
  }
  const medians = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const plain = Object.entries(medians).filter(([k]) => k !== ours);
  const [bestName, bestMs] = plain.reduce((a, b) => (b[1] < a[1] ? b : a));
  return { shape, assignorMs: medians[ours], bestPlain: bestName, bestPlainMs: bestMs, ratio: bestMs / medians[ours], medians };
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
const result = { runtime, engine: assignor.getKernels().name, cpu: cpus()[0]?.model, keys: N, rounds: ROUNDS, loadavg: loadavg(), date: new Date().toISOString() };
if (ONLY.includes('hash')) result.shapes = hashShapes();
if (ONLY.includes('subset')) result.subset = await subset();
process.stdout.write(`${JSON.stringify(result)}\n`);
