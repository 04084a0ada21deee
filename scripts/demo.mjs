// `npm run demo`: a short tour of the three questions, run against the built
// package (dist/). Each section prints what it computed and how long it took.
import { spawnSync } from 'node:child_process';
import * as assignor from '../dist/index.js';

const cli = (args, input) => {
  const r = spawnSync(process.execPath, ['dist/cli/main.js', ...args], { input, encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`assignor ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
};
const section = (title) => process.stdout.write(`\n== ${title} ==\n`);

section('1. Which partition does a key go to? (Kafka murmur2, bit-exact with the Java client)');
for (const key of ['foobar', '100:48069', 'ключ', '\ud800 lone surrogate']) {
  process.stdout.write(`  ${JSON.stringify(key).padEnd(26)} -> partition ${assignor.partitionForKey(key, 12)} of 12\n`);
}
const keys = Array.from({ length: 1_000_000 }, (_, i) => `user-${i}`);
let t = performance.now();
const parts = assignor.partitionsForKeys(keys, 64);
process.stdout.write(`  1,000,000 string keys -> 64 partitions in ${(performance.now() - t).toFixed(1)} ms (engine ${assignor.getKernels().name}); key 0 -> ${parts[0]}\n`);
process.stdout.write(`  CLI: printf 'foobar\\n100:48069\\n' | assignor hash --partitions 12\n${cli(['hash', '--partitions', '12'], 'foobar\n100:48069\n').replace(/^/gm, '    ')}`);
