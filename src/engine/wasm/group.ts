// WASM binding of the group-balancing kernel (assembly/group.ts): copy the flat problem into the
// arena, run, copy the owners out. Views are taken only after the last allocation.
import type { WasmCore } from '../core.js';
import type { GroupKernels, GroupProblem } from '../abi.js';

interface GroupExports {
  groupAssign(
    M: number, T: number, N: number, rackCount: number,
    memberRack: number, topicClass: number, topicWeight: number,
    subStart: number, subs: number, itemStart: number,
    prevOwner: number, softOwner: number, nSoft: number, rackStart: number, racks: number,
    owner: number,
  ): number;
}

export function wasmGroup(core: WasmCore): GroupKernels {
  const raw = core.raw as unknown as GroupExports;
  return {
    groupAssign(p: GroupProblem): Int32Array {
      const T = p.topicClass.length;
      const N = p.prevOwner.length;
      core.begin();
      const mr = core.put(p.memberRack);
      const tc = core.put(p.topicClass);
      const tw = core.put(p.topicWeight);
      const ss = core.put(p.subStart);
      const su = core.put(p.subs);
      const is = core.put(p.itemStart);
      const po = core.put(p.prevOwner);
      const so = p.softOwner.length > 0 ? core.put(p.softOwner) : 0;
      // The kernel reads racks only when there are racks: skip copying them otherwise.
      const rs = p.rackCount > 0 ? core.put(p.rackStart) : 0;
      const rk = p.rackCount > 0 ? core.put(p.racks) : 0;
      const out = core.alloc(N * 4);
      const status = raw.groupAssign(p.members, T, N, p.rackCount, mr, tc, tw, ss, su, is, po, so, p.softOwner.length > 0 ? 1 : 0, rs, rk, out);
      if (status !== 0) throw new Error('group kernel: extras flow is infeasible');
      return core.takeI32(out, N);
    },
  };
}
