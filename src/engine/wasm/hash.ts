import type { WasmCore } from '../core.js';
import type { HashKernels } from '../abi.js';

interface HashExports {
  hashVar(data: number, offsets: number, count: number, n: number, out: number): void;
  hashFixed(data: number, keyLen: number, count: number, n: number, out: number): void;
  /** `buffers`: two i32, the run's units and the room for its bytes. */
  hashUtf16Run(buffers: number, offsets: number, count: number, n: number, out: number): number;
}

export function wasmHash(core: WasmCore): HashKernels {
  const raw = core.raw as unknown as HashExports;
  return {
    hashVar(data, offsets, count, n) {
      core.begin();
      const dp = core.put(data);
      const op = core.put(offsets);
      const out = core.alloc(count * 4);
      raw.hashVar(dp, op, count, n, out);
      return core.takeI32(out, count);
    },
    hashFixed(data, keyLen, count, n) {
      core.begin();
      const dp = core.put(data);
      const out = core.alloc(count * 4);
      raw.hashFixed(dp, keyLen, count, n, out);
      return core.takeI32(out, count);
    },
    hashRuns(count, runUnits, n, produce) {
      core.begin();
      const op = core.alloc((count + 1) * 4);
      const out = core.alloc(count * 4);
      const up = core.alloc(runUnits * 2);
      const dp = core.alloc(runUnits * 3 + 4);
      const buffers = core.alloc(8);
      // Views after the last allocation: the producer writes straight into kernel memory.
      core.i32(buffers, 2).set([up, dp]);
      produce({
        units: core.u8(up, runUnits * 2),
        bytes: core.u8(dp, runUnits * 3 + 4),
        offsets: core.i32(op, count + 1),
        out: core.i32(out, count),
        hashUnits: (from, to) => raw.hashUtf16Run(buffers, op + from * 4, to - from, n, out + from * 4),
        hashBytes: (from, to) => raw.hashVar(dp, op + from * 4, to - from, n, out + from * 4),
      });
      return core.takeI32(out, count);
    },
    pinKeys(maxBytes, maxKeys) {
      // An instance of its own: the shared one resets its arena on every call.
      const own = core.fork();
      const ownRaw = own.raw as unknown as HashExports;
      const dp = own.alloc(maxBytes);
      const op = own.alloc((maxKeys + 1) * 4);
      const out = own.alloc(maxKeys * 4);
      // Nothing is allocated in this instance again, so these views never detach.
      return {
        bytes: own.u8(dp, maxBytes),
        offsets: own.i32(op, maxKeys + 1),
        out: own.i32(out, maxKeys),
        hashFixed: (keyLen, count, n) => ownRaw.hashFixed(dp, keyLen, count, n, out),
        hashVar: (count, n) => ownRaw.hashVar(dp, op, count, n, out),
      };
    },
  };
}
