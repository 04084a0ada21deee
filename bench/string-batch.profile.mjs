// What issue 33 profiles: partitionsForKeys against the Java-exact loop (plain-loops.mjs) on one
// key shape, alternated call by call in one process, so that a CPU profile of this script puts
// both side by side (the loop's self time against assignor's, line by line). Plain JavaScript
// against the built package (dist/), so every runtime runs the same file:
//   node --cpu-prof --cpu-prof-dir=prof bench/string-batch.profile.mjs
//   bun --cpu-prof --cpu-prof-dir=prof bench/string-batch.profile.mjs
//   deno run -A --v8-flags=--prof,--logfile=prof/deno.log,--no-logfile-per-isolate bench/string-batch.profile.mjs
// then node bench/profile-summary.mjs prof/<file> (.cpuprofile), or node --prof-process for Deno's log.
// BENCH_SHAPE=user|uuid|mixed (default user: 1M `user-<7 digits>` keys), BENCH_ROUNDS (default 40),
// BENCH_RUN=both|assignor|loop (default both; one alone keeps an engine from inlining the other's
// loop into this script's, which would blur the profile's attribution).
import * as assignor from '../dist/index.js';
import { javaExactLoop, PARTITIONS } from './plain-loops.mjs';

const N = Number(process.env.BENCH_KEYS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const SHAPE = process.env.BENCH_SHAPE ?? 'user';
const RUN = process.env.BENCH_RUN ?? 'both';

let seed = 0x2545f491;
function rnd() {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}
const hex8 = () => rnd().toString(16).padStart(8, '0');
const uuid = () => `${hex8()}-${hex8().slice(0, 4)}-4${hex8().slice(0, 3)}-a${hex8().slice(0, 3)}-${hex8()}${hex8().slice(0, 4)}`;
const ALPHABET = [...'abcdeéèàüжзий日本語🙂🚀'];
const mixed = () => Array.from({ length: 4 + (rnd() % 20) }, () => ALPHABET[rnd() % ALPHABET.length]).join('');
const make = { user: () => `user-${1000000 + (rnd() % 9000000)}`, uuid, mixed }[SHAPE];
const keys = Array.from({ length: N }, make);

const ours = assignor.partitionsForKeys(keys, PARTITIONS);
const loop = javaExactLoop(keys);
for (let i = 0; i < N; i++) if (ours[i] !== loop[i]) throw new Error(`key ${i}: assignor ${ours[i]}, loop ${loop[i]}`);
const ms = { assignor: 0, loop: 0 };
for (let r = 0; r < ROUNDS; r++) {
  let t = performance.now();
  if (RUN !== 'loop') assignor.partitionsForKeys(keys, PARTITIONS);
  ms.assignor += performance.now() - t;
  t = performance.now();
  if (RUN !== 'assignor') javaExactLoop(keys);
  ms.loop += performance.now() - t;
}
process.stdout.write(`${SHAPE}: partitionsForKeys ${(ms.assignor / ROUNDS).toFixed(1)} ms, Java-exact loop ${(ms.loop / ROUNDS).toFixed(1)} ms (means of ${ROUNDS})\n`);
