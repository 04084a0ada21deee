// The sticky planner through the built package (dist/), so every runtime runs the same file:
// assignGroup(spec, { protocol: 'consumer', strategy: 'sticky' }) on T topics x P partitions and
// M members subscribed to all: the first assignment, one member leaves, one member joins (each
// from the first answer). Prints one JSON line: the median and every run in ms per scenario.
//   node bench/group-planner-runtimes.mjs [dist/index.js] [topics partitions members runs]
//   bun bench/group-planner-runtimes.mjs ...; deno run -A bench/group-planner-runtimes.mjs ...
// The first argument lets an older checkout's build race this one (interleave the two yourself).
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [distArg, ...rest] = (globalThis.Deno ? Deno.args : process.argv.slice(2));
const [T, P, M, RUNS] = (rest.length ? rest : ['1000', '500', '10000', '5']).map(Number);
const { assignGroup } = await import(pathToFileURL(resolve(distArg ?? 'dist/index.js')).href);
const options = { protocol: 'consumer', strategy: 'sticky' };
const names = Array.from({ length: T }, (_, t) => `topic-${t}`);
const topics = names.map((name) => ({ name, partitions: P }));
const ids = Array.from({ length: M }, (_, m) => `member-${String(m).padStart(6, '0')}`);

/** The members ids (all subscribed to every topic), owning what `result` gave them. */
function members(memberIds, result) {
  return memberIds.map((id) => {
    const owned = result?.assignment.get(id);
    return { id, topics: names, ...(owned ? { owned: Object.fromEntries(owned), generation: 1 } : {}) };
  });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(spec) {
  assignGroup(spec, options);
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    assignGroup(spec, options);
    ms.push(performance.now() - t0);
  }
  return { medianMs: Number(median(ms).toFixed(1)), ms: ms.map((x) => Number(x.toFixed(1))) };
}

const fresh = { topics, members: members(ids, null) };
const first = assignGroup(fresh, options);
const out = { topics: T, partitions: P, members: M };
out.first = time(fresh);
out.leave = time({ topics, members: members(ids.slice(1), first) });
out.join = time({ topics, members: [...members(ids, first), { id: 'member-joiner', topics: names }] });
console.log(JSON.stringify(out));
