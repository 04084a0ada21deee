// Random streams groups for the oracle and property tests: processes with UUID or plain ids and one
// to three members, numeric subtopologies (stateful or not), and a previous assignment with
// actives (no task claimed twice), standbys off the active's process, and reported offsets.
import type { StreamsGroupSpec, StreamsMemberSpec } from '../../src/streams/input.js';
export { rng } from '../standby/generators.js';

const ZONES = ['z1', 'z2', 'z3'];
const CLUSTERS = ['c1', 'c2', 'c3'];

function uuid(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** scale: up to 8 x scale processes of up to 3 x scale members, subtopologies of up to 12 x scale partitions. */
export function randomStreamsGroup(rand: () => number, n: number, uuidsOnly = false, scale = 1): StreamsGroupSpec {
  const pick = (k: number): number => Math.floor(rand() * k);
  const P = 1 + pick((uuidsOnly ? 12 : 8) * scale);
  const subtopologies = Array.from({ length: 1 + pick(3) }, (_, s) => ({ id: String(s), partitions: 1 + pick(12 * scale), stateful: rand() < 0.6 }));
  const numStandbys = pick(3);
  const processes = Array.from({ length: P }, (_, q) => ({
    id: uuidsOnly || rand() < 0.5 ? uuid(rand) : `proc-${n}-${q}`,
    tags: { zone: ZONES[pick(3)]!, cluster: CLUSTERS[pick(3)]! },
    members: Array.from({ length: 1 + pick(3 * scale) }, (_, i): StreamsMemberSpec & { active: string[]; standby: string[]; offsets: Record<string, number> } => ({ id: `m-${n}-${q}-${i}`, active: [], standby: [], offsets: {} })),
  }));
  const members = processes.flatMap((p, q) => p.members.map((m) => ({ m, q })));
  const fresh = new Set(members.filter(() => rand() < 0.3).map((x) => x.m.id));
  const old = members.filter((x) => !fresh.has(x.m.id));
  for (const s of subtopologies) {
    for (let p = 0; p < s.partitions; p++) {
      const task = `${s.id}_${p}`;
      let activeProcess = -1;
      if (old.length > 0 && rand() < 0.75) {
        const o = old[pick(old.length)]!;
        o.m.active.push(task);
        activeProcess = o.q;
      }
      if (s.stateful && rand() < 0.5) {
        const o = members[pick(members.length)]!;
        if (o.q !== activeProcess) o.m.standby.push(task);
      }
      if (rand() < 0.2) members[pick(members.length)]!.m.offsets[task] = pick(3) === 0 ? 0 : pick(1000);
    }
  }
  return { numStandbys, tagKeys: ['zone', 'cluster'], subtopologies, processes };
}
