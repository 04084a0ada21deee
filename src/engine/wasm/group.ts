// WASM binding of the group planner (assembly/group-plan.ts): the problem's arrays and its header
// (PLAN_HEADER) into the arena, one call, the outputs copied out. Views only after the last allocation.
import type { WasmCore } from '../core.js';
import { PLAN_HEADER as H, PLAN_HEADER_BYTES, type GroupKernels, type GroupPlanProblem, type GroupPlanResult } from '../abi.js';

interface GroupExports {
  groupPlan(header: number): number;
}

export function wasmGroup(core: WasmCore): GroupKernels {
  const raw = core.raw as unknown as GroupExports;
  return {
    groupPlan(p: GroupPlanProblem): GroupPlanResult {
      const T = p.counts.length;
      const N = p.owner.length;
      const G = p.coStart.length - 1;
      core.begin();
      const header = core.alloc(PLAN_HEADER_BYTES);
      // The kernel reads racks only when there are racks, and `from` only without inferGrowth.
      const racks = p.rackCount > 0;
      const slots: [number, number][] = [
        [H.members, p.members], [H.topics, T], [H.rackCount, p.rackCount], [H.coSets, G], [H.inferGrowth, p.inferGrowth ? 1 : 0],
        [H.counts, core.put(p.counts)], [H.from, p.inferGrowth ? 0 : core.put(p.from)],
        [H.lists, p.listStart.length - 1], [H.listStart, core.put(p.listStart)], [H.listMembers, core.put(p.listMembers)],
        [H.topicList, core.put(p.topicList)], [H.owner, core.put(p.owner)],
        [H.memberRack, racks ? core.put(p.memberRack) : 0], [H.rackStart, racks ? core.put(p.rackStart) : 0], [H.racks, racks ? core.put(p.racks) : 0],
        [H.coStart, core.put(p.coStart)], [H.coTopics, core.put(p.coTopics)],
        [H.outOwner, core.alloc(N * 4)], [H.outGrowth, core.alloc(T * 12)], [H.outFrom, core.alloc(T * 4)], [H.outCoStatus, core.alloc(G * 8)],
      ];
      const view = new DataView(core.raw.memory.buffer, header, PLAN_HEADER_BYTES);
      for (const [at, v] of slots) view.setInt32(at, v, true);
      view.setFloat64(H.growthSkew, p.growthSkew, true);
      if (raw.groupPlan(header) !== 0) throw new Error('group kernel: extras flow is infeasible');
      const out = new DataView(core.raw.memory.buffer, header, PLAN_HEADER_BYTES);
      const growthN = out.getInt32(H.outGrowthCount, true);
      return {
        owner: core.takeI32(out.getInt32(H.outOwner, true), N),
        growth: core.takeI32(out.getInt32(H.outGrowth, true), 3 * growthN),
        from: core.takeI32(out.getInt32(H.outFrom, true), T),
        coStatus: core.takeI32(out.getInt32(H.outCoStatus, true), 2 * G),
      };
    },
  };
}
