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

section('2a. Which task owns each partition when a topic grows? (Samza job model, SEP-5)');
const { mkdtempSync, readFileSync, writeFileSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const dir = mkdtempSync(`${tmpdir()}/assignor-demo-`);
const job = JSON.parse(readFileSync('examples/job.json', 'utf8'));
writeFileSync(`${dir}/job.json`, JSON.stringify(job));
const plan = (label) => {
  const r = spawnSync(process.execPath, ['dist/cli/main.js', 'samza', 'plan', '--job', `${dir}/job.json`, '--store', `${dir}/store`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const model = JSON.parse(r.stdout);
  process.stdout.write(`  ${label}:\n${r.stderr.replace(/^/gm, '    ')}`);
  return model;
};
plan('first plan, 4 partitions per stream');
job.partitions['kafka.PVE'] = 8;
job.partitions['kafka.Clicks'] = 8;
writeFileSync(`${dir}/job.json`, JSON.stringify(job));
plan('after expanding both streams to 8 partitions (same store)');
process.stdout.write(`  assignor samza expansion --from 4 --to 6:\n${cli(['samza', 'expansion', '--from', '4', '--to', '6']).replace(/^/gm, '    ')}`);
rmSync(dir, { recursive: true, force: true });

section('2b. Which channel consumes which partitions? (parallel consumers with assigned partitions)');
process.stdout.write(cli(['channels', 'plan', '--partitions', '10', '--width', '4', '--emit', 'table']).replace(/^/gm, '  '));
t = performance.now();
const big = assignor.planChannels({ partitions: 1_000_000, width: 10_000 });
process.stdout.write(`  1,000,000 partitions on 10,000 channels planned in ${(performance.now() - t).toFixed(1)} ms (${big.channels?.length ?? big.width} channels)\n`);

section('3. Where do standby replicas go? (KIP-708, 3 clusters x 3 zones, 2 standbys)');
const explain = cli(['standby', '--input', 'examples/cluster.json', '--explain']);
process.stdout.write(`${explain.split('\n').slice(0, 12).map((l) => `  ${l}`).join('\n')}\n  ...\n`);
const kafka = JSON.parse(cli(['standby', '--input', 'examples/cluster.json', '--mode', 'kafka']));
process.stdout.write(`  kafka mode on the same cluster: standby levels ${JSON.stringify(kafka.totals.standbyLevels)}\n`);

section('4. Which consumer owns each partition? (classic sticky beside the broker\'s KIP-848 uniform)');
const racks = (n) => Array.from({ length: n }, (_, p) => [`r${p % 3}`]);
const groupAt = (orders, members, owned) => ({
  topics: [{ name: 'orders', partitions: orders, racks: racks(orders), ...(orders !== 8 ? { previousPartitions: 8 } : {}) }, { name: 'payments', partitions: 4, racks: racks(4) }],
  members: members.map((id, i) => ({ id, topics: ['orders', 'payments'], rack: `r${i % 3}`, owned: owned?.[id] ?? {}, generation: 1 })),
});
const heldBy = (result) => Object.fromEntries([...result.assignment].map(([id, topics]) => [id, Object.fromEntries(topics)]));
const steps = [['first assignment', 8, ['m1', 'm2', 'm3', 'm4']], ['m4 leaves', 8, ['m1', 'm2', 'm3']], ['orders grows 8 -> 16', 16, ['m1', 'm2', 'm3']]];
for (const [label, options] of [['classic sticky', { strategy: 'sticky' }], ['consumer uniform (the broker)', { protocol: 'consumer', strategy: 'uniform' }]]) {
  let owned;
  process.stdout.write(`  ${label}:\n`);
  for (const [step, orders, members] of steps) {
    const result = assignor.assignGroup(groupAt(orders, members, owned), options);
    const r = result.report;
    const keys = r.growth.length > 0 ? `, ${(r.growth[0].keysMovedShare * 100).toFixed(0)}% of orders' keys changed member` : '';
    process.stdout.write(`    ${step.padEnd(22)} kept ${r.kept}, moved ${r.moved}, placed ${r.placed}; spread ${r.balance.spread}; rack matches ${r.rackMatched} of ${r.partitions}${keys}\n`);
    owned = heldBy(result);
  }
}
process.stdout.write(`  CLI: assignor group --input examples/group.json --protocol consumer --explain\n${cli(['group', '--input', 'examples/group.json', '--protocol', 'consumer', '--explain']).split('\n').slice(0, 4).map((l) => `    ${l}`).join('\n')}\n`);
