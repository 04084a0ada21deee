// Memory stays flat: the arena is reset per call, so 10,000 consecutive batch
// calls leave WASM linear memory exactly the size the first call grew it to.
import { describe, expect, it } from 'vitest';
import { loadWasmCore } from '../../src/engine/core.js';
import { partitionsForKeys, partitionsForPacked } from '../../src/hashing/index.js';

describe('WASM memory across calls', () => {
  for (const simd of [false, true]) {
    it(`10,000 batch calls do not grow memory (${simd ? 'simd' : 'scalar'})`, () => {
      const engine = simd ? 'wasm-simd' : 'wasm-scalar';
      const core = loadWasmCore(simd);
      const keys = Array.from({ length: 2000 }, (_, i) => `user-${i}-é`);
      const bytes = new Uint8Array(64 * 1024);
      const offsets = Int32Array.from({ length: 1025 }, (_, i) => i * 64);
      partitionsForKeys(keys, 31, { engine });
      partitionsForPacked(bytes, offsets, 31, { engine });
      const size = core.memoryBytes();
      for (let i = 0; i < 10_000; i++) {
        partitionsForKeys(keys, 31, { engine });
        partitionsForPacked(bytes, offsets, 31, { engine });
      }
      expect(core.memoryBytes()).toBe(size);
    });
  }
});
