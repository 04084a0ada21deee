// The sticky planner alone (planGroup: decoded input -> partition lists), for a before/after of a
// change to the planner (issue 30 moved its decisions into WebAssembly). Uses only planGroup's
// public-to-the-repo shape, so the same file runs in an older checkout:
//   npx tsx bench/group-planner.timing.ts [topics] [partitions] [members] [runs]
// Scenarios on T topics x P partitions, M members subscribed to all: the first assignment, one
// member leaves (the others claim what they own), 10% of the topics double (every claim kept).
// Prints one JSON line per scenario: the median and every run in ms (engine 'wasm').
import { planGroup, type PlanMember, type PlanTopic } from '../src/group/sticky/plan.js';
import type { Claims } from '../src/group/sticky/claims.js';

const [T, P, M, RUNS] = process.argv.slice(2).map(Number) as [number?, number?, number?, number?];
const topics = T ?? 1000;
const partitions = P ?? 1000;
const members = M ?? 1000;
const runs = RUNS ?? 7;

const names = Array.from({ length: topics }, (_, t) => `topic-${String(t).padStart(5, '0')}`);
const ids = Array.from({ length: members }, (_, m) => `member-${String(m).padStart(6, '0')}`);
const options = { growthSkew: 2, coPartitioned: [], engine: 'wasm' as const };

/** Every member's claims from a plan (per member, per topic, its partitions), at the plan's counts. */
function claimsOf(plan: ReturnType<typeof planGroup>, generation: number): Map<string, Claims> {
  const out = new Map<string, Claims>();
  plan.memberIds.forEach((id, m) => {
    const topic: number[] = [];
    const count: number[] = [];
    const start = [0];
    const parts: number[] = [];
    for (let e = plan.entryStart[m]!; e < plan.entryStart[m + 1]!; e++) {
      const t = plan.entryTopic[e]!;
      topic.push(t);
      count.push(plan.counts[t]!);
      for (let i = plan.entryFrom[e]!; i < plan.entryTo[e]!; i++) parts.push(plan.partitionsByOwner[t]![i]!);
      start.push(parts.length);
    }
    out.set(id, { generation, rack: null, fingerprint: '', topic: Int32Array.from(topic), count: Int32Array.from(count), start: Int32Array.from(start), partitions: Int32Array.from(parts) });
  });
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(name: string, planMembers: PlanMember[], topicInfo: PlanTopic[]): void {
  planGroup(planMembers, topicInfo, options);
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    planGroup(planMembers, topicInfo, options);
    ms.push(performance.now() - t0);
  }
  console.log(JSON.stringify({ scenario: name, topics, partitions, members, medianMs: Number(median(ms).toFixed(1)), ms: ms.map((x) => Number(x.toFixed(1))) }));
}

const topicInfo: PlanTopic[] = names.map((name) => ({ name, partitions }));
const fresh: PlanMember[] = ids.map((memberId) => ({ memberId, topics: names, claims: null, readable: true }));
time('first assignment', fresh, topicInfo);
const claims = claimsOf(planGroup(fresh, topicInfo, options), 1);
time('one member leaves', ids.slice(1).map((memberId) => ({ memberId, topics: names, claims: claims.get(memberId)!, readable: true })), topicInfo);
const grown = names.map((name, t) => ({ name, partitions: t % 10 === 0 ? 2 * partitions : partitions }));
time('10% of topics double', ids.map((memberId) => ({ memberId, topics: names, claims: claims.get(memberId)!, readable: true })), grown);
