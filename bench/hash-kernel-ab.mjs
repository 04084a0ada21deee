// The hashing kernels alone, two WebAssembly builds raced in one process: the same 1M keys of four
// shapes (user ids, UUIDs, 'k' + up to 3 digits, fixed 16 bytes) through hashVar / hashFixed of
// each build, 25 alternating rounds, wall-clock medians and their ratio (B/A < 1: B is faster).
// The builds' answers are compared before timing. For a change to assembly/simd.ts or murmur2.ts:
//   cp build/release.simd.wasm /tmp/a.wasm; <change>; npm run build:wasm
//   node bench/hash-kernel-ab.mjs /tmp/a.wasm build/release.simd.wasm   (bun, deno run -A alike)
import fs from 'node:fs';
import { Buffer } from 'node:buffer';
const [A, B] = globalThis.Deno ? Deno.args : process.argv.slice(2);
function inst(f) {
  const i = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(f)), { env: { abort() { throw new Error('abort'); } } });
  return i.exports;
}
let seed = 0x2545f491;
const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return seed >>> 0; };
const N = 1_000_000;
const hex8 = () => rnd().toString(16).padStart(8, '0');
const shapes = {
  user: () => 'user-' + String(rnd() % 10_000_000).padStart(7, '0'),
  uuid: () => { const a = hex8(), b = hex8(), c = hex8(), d = hex8(); return `${a}-${b.slice(0,4)}-4${b.slice(5)}-a${c.slice(1,4)}-${c.slice(4)}${d}`; },
  short: () => 'k' + (rnd() % 1000),
};
function setup(x, keys) {
  x.reset();
  const enc = keys.map((k) => Buffer.from(k));
  const total = enc.reduce((s, b) => s + b.length, 0);
  const data = x.alloc(total + 16), offs = x.alloc((keys.length + 1) * 4), out = x.alloc(keys.length * 4);
  const mem = new Uint8Array(x.memory.buffer); const o = new Int32Array(x.memory.buffer, offs, keys.length + 1);
  let p = 0; enc.forEach((b, i) => { o[i] = p; mem.set(b, data + p); p += b.length; }); o[keys.length] = p;
  return () => { x.hashVar(data, offs, keys.length, 1000, out); return new Int32Array(x.memory.buffer, out, keys.length); };
}
function setupFixed(x, w) {
  x.reset();
  const data = x.alloc(w * N), out = x.alloc(N * 4);
  const mem = new Uint8Array(x.memory.buffer); for (let i = 0; i < w * N; i++) mem[data + i] = rnd() & 255;
  return () => { x.hashFixed(data, w, N, 1000, out); return new Int32Array(x.memory.buffer, out, N); };
}
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const xa = inst(A), xb = inst(B);
for (const [name, gen] of [...Object.entries(shapes), ['fixed16', null]]) {
  let fa, fb;
  if (gen) { const keys = Array.from({ length: N }, gen); seed = 1; fa = setup(xa, keys); fb = setup(xb, keys); }
  else { seed = 7; fa = setupFixed(xa, 16); seed = 7; fb = setupFixed(xb, 16); }
  const ra = fa(), rb = fb();
  if (ra.length !== rb.length || ra.some((v, i) => v !== rb[i])) throw new Error(`the two builds differ on ${name}`);
  const ta = [], tb = [];
  for (let r = 0; r < 25; r++) {
    for (const [f, t] of r % 2 ? [[fa, ta], [fb, tb]] : [[fb, tb], [fa, ta]]) { const s = performance.now(); f(); t.push(performance.now() - s); }
  }
  console.log(name.padEnd(8), 'A', med(ta).toFixed(2), 'B', med(tb).toFixed(2), 'B/A', (med(tb) / med(ta)).toFixed(3));
}
