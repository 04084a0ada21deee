import type { WasmCore } from '../core.js';
import type { HashKernels } from '../kernels.js';

export function wasmHash(core: WasmCore): HashKernels {
  const raw = core.raw;
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
    hashEncoded(encode, count, byteBound, n) {
      core.begin();
      const op = core.alloc((count + 1) * 4);
      const out = core.alloc(count * 4);
      const dp = core.alloc(byteBound);
      // Views after the last allocation: the producer writes straight into kernel memory.
      encode(core.u8(dp, byteBound), core.i32(op, count + 1));
      raw.hashVar(dp, op, count, n, out);
      return core.takeI32(out, count);
    },
  };
}
