// Self time per function and per source line of a .cpuprofile (Node's or Bun's --cpu-prof), as
// percentages of all samples: node bench/profile-summary.mjs FILE [TOP]. Lines come from the
// profile's positionTicks, so code V8 inlined into a caller is counted at its own line.
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 15);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const where = (f) => `${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
const byFunction = new Map();
const byLine = new Map();
let total = 0;
for (const node of profile.nodes) {
  const f = node.callFrame;
  const hits = node.hitCount ?? 0;
  total += hits;
  const name = `${f.functionName || '(anonymous)'} ${where(f)}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
  for (const t of node.positionTicks ?? []) {
    const line = `${f.url.split('/').pop()}:${t.line} in ${f.functionName || '(anonymous)'}`;
    byLine.set(line, (byLine.get(line) ?? 0) + t.ticks);
  }
}
const print = (title, map) => {
  process.stdout.write(`${title}\n`);
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}\n`);
};
process.stdout.write(`${file}: ${total} samples\n`);
print('self time by function', byFunction);
print('self time by line (inlined code at its own line where the profile says)', byLine);
