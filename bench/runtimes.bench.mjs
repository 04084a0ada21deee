// The runtime table: bench/runtime-shapes.bench.mjs under every runtime of scripts/runtimes.mjs
// (Node 24, 22, 26, Bun, Deno), one after the other on the same build, and then the cold CLI
// against its in-process call on each Node line (bench/cli-cold.bench.ts, its short rows).
// Writes bench/results/runtimes.json and prints the markdown tables for bench/RESULTS.md.
// Run: npm run bench:runtimes (builds first). BENCH_RUNTIMES=node24,bun picks runtimes;
// BENCH_CLI_COLD=0 leaves the cold-CLI rows out; BENCH_KEYS, BENCH_ROUNDS, BENCH_ONLY, BENCH_CLOCK
// and BENCH_BEFORE (an older build's dist/index.js, raced on the string shapes) pass through.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { launch, RUNTIMES } from '../scripts/runtimes.mjs';

const chosen = process.env.BENCH_RUNTIMES ? process.env.BENCH_RUNTIMES.split(',') : RUNTIMES.map((r) => r.name);
const env = { ...process.env, DENO_NO_UPDATE_CHECK: '1' };

function runShapes(name) {
  const [bin, ...args] = launch(name, 'bench/runtime-shapes.bench.mjs');
  process.stderr.write(`runtime shapes under ${name}...\n`);
  const r = spawnSync(bin, args, { encoding: 'utf8', env, maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`bench/runtime-shapes.bench.mjs failed under ${name} (exit ${r.status})`);
  return { name, ...JSON.parse(r.stdout.trim().split('\n').pop()) };
}

/** The cold-CLI rows of bench/cli-cold.bench.ts (short ones) under one Node line. */
function runColdCli(name) {
  const [bin] = launch(name, 'x');
  process.stderr.write(`cold CLI under ${name}...\n`);
  const r = spawnSync(bin, ['node_modules/tsx/dist/cli.mjs', 'bench/cli-cold.bench.ts'], {
    encoding: 'utf8',
    env: { ...env, BENCH_SHORT: '1', BENCH_ONLY: 'hash,channels,store' },
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`bench/cli-cold.bench.ts failed under ${name} (exit ${r.status})`);
  const json = JSON.parse(readFileSync('bench/results/cli-cold.partial.json', 'utf8'));
  return { name, rows: json.results ?? [], startupMs: json.startupMs };
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

function shapeTable(results) {
  const shapes = results[0].shapes.map((s) => s.shape);
  let md = `| shape (1M keys; one key per call: 100k calls) | ${results.map((r) => r.runtime).join(' | ')} |\n|---|${results.map(() => '---:').join('|')}|\n`;
  for (const shape of shapes) {
    const cells = results.map((r) => {
      const s = r.shapes.find((x) => x.shape === shape);
      return `${fmt(s.assignorMs)} vs ${fmt(s.bestPlainMs)} ms: **${s.ratio.toFixed(2)}x**`;
    });
    md += `| ${shape} | ${cells.join(' | ')} |\n`;
  }
  md += '\nEach cell: assignor\'s batch call vs the best plain-JS loop on that runtime (medians of interleaved rounds, same run); ratio = plain / assignor, at least 1.00x means assignor is as fast or faster.\n';
  md += `Best plain loop per shape: ${results[0].shapes.map((s) => `${s.shape}: ${s.bestPlain}`).join('; ')} (on ${results[0].runtime}).\n`;
  return md;
}

/** The string shapes against the Java-exact loop (plain-loops.mjs), one row per runtime; with
 * BENCH_BEFORE, the older build's ratio from the same rounds beside it. */
function javaExactTable(results) {
  const shapes = results[0].shapes.filter((s) => s.javaExactMs !== undefined).map((s) => s.shape);
  if (shapes.length === 0) return '';
  let md = `| runtime | ${shapes.join(' | ')} |\n|---|${shapes.map(() => '---:').join('|')}|\n`;
  for (const r of results) {
    const cells = shapes.map((shape) => {
      const s = r.shapes.find((x) => x.shape === shape);
      const before = s.beforeMs === undefined ? '' : ` (before: ${fmt(s.beforeMs)} ms, ${s.beforeJavaExactRatio.toFixed(2)}x)`;
      return `${fmt(s.assignorMs)} vs ${fmt(s.javaExactMs)} ms: **${s.javaExactRatio.toFixed(2)}x**${before}`;
    });
    md += `| ${r.runtime} | ${cells.join(' | ')} |\n`;
  }
  md += '\nEach cell: partitionsForKeys vs the Java-exact loop (bench/plain-loops.mjs) in the same rounds; ratio = loop / assignor.\n';
  return md;
}

function subsetTable(results) {
  const cases = results[0].subset.map((s) => s.case);
  let md = `| benchmark | ${results.map((r) => r.runtime).join(' | ')} |\n|---|${results.map(() => '---:').join('|')}|\n`;
  for (const c of cases) md += `| ${c} | ${results.map((r) => `${fmt(r.subset.find((x) => x.case === c).ms)} ms`).join(' | ')} |\n`;
  return md;
}

function coldTable(cold) {
  if (cold.length === 0) return '';
  const commands = cold[0].rows.map((r) => r.command);
  let md = `| command: cold CLI / in-process (ratio; bound) | ${cold.map((c) => c.name).join(' | ')} |\n|---|${cold.map(() => '---:').join('|')}|\n`;
  for (const cmd of commands) {
    const cells = cold.map((c) => {
      const r = c.rows.find((x) => x.command === cmd);
      return r === undefined ? '-' : `${fmt(r.coldCliMs)} / ${fmt(r.inProcessMs)} ms (${r.ratio.toFixed(2)}x; ${r.bound.toFixed(2)}x)`;
    });
    md += `| ${cmd} | ${cells.join(' | ')} |\n`;
  }
  md += `| start-up: node -e 0 / assignor --version | ${cold.map((c) => `${fmt(c.startupMs.nodeE0)} / ${fmt(c.startupMs.cliVersion)} ms`).join(' | ')} |\n`;
  md += '\nbound = 1 + (node -e 0) / in-process: the ratio no CLI can go under on this machine (its NODE_EXTRA_CA_CERTS makes node start slowly).\n';
  return md;
}

const results = chosen.map(runShapes);
const cold = process.env.BENCH_CLI_COLD === '0' ? [] : chosen.filter((n) => n.startsWith('node')).map(runColdCli);
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/runtimes.json', `${JSON.stringify({ date: new Date().toISOString(), machine, results, cold }, null, 2)}\n`);
let md = `### Per runtime (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${machine})\n\n${shapeTable(results)}\n${javaExactTable(results)}\n`;
if (results[0].subset !== undefined) md += `${subsetTable(results)}\n`;
if (cold.length > 0) md += `${coldTable(cold)}\n`;
process.stdout.write(md);
