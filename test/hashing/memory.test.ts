// Memory stays flat: the arena is reset per call, so 10,000 consecutive batch
// calls leave WASM linear memory exactly the size the first call grew it to.
import { describe, expect, it } from 'vitest';
import { loadWasmCore } from '../../src/engine/core.js';
import { createKeyBatch, partitionsForKeys, partitionsForPacked } from '../../src/hashing/index.js';

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

    it(`a KeyBatch's memory neither grows nor moves across 10,000 calls, nor does the shared instance's (${simd ? 'simd' : 'scalar'})`, () => {
      const engine = simd ? 'wasm-simd' : 'wasm-scalar';
      const core = loadWasmCore(simd);
      partitionsForKeys(['warm'], 31, { engine });
      const shared = core.memoryBytes();
      const batch = createKeyBatch({ engine, maxBytes: 64 * 1024, maxKeys: 4096 });
      const { bytes, offsets } = batch;
      const size = bytes.buffer.byteLength;
      for (let i = 0; i < 64 * 1024; i++) bytes[i] = i * 7;
      for (let i = 0; i <= 1024; i++) offsets[i] = i * 64;
      const first = batch.partitionsForFixed(16, 4096, 31).slice();
      for (let i = 0; i < 10_000; i++) {
        batch.partitionsForFixed(16, 4096, 31);
        batch.partitionsForPacked(1024, 31);
      }
      // A grown memory would have detached the views (byteLength 0) and given a new buffer.
      expect(bytes.buffer.byteLength).toBe(size);
      expect(batch.partitionsForFixed(16, 4096, 31).buffer).toBe(bytes.buffer); // results still in the same memory
      expect(core.memoryBytes()).toBe(shared);
      expect(Array.from(batch.partitionsForFixed(16, 4096, 31))).toEqual(Array.from(first));
    });
  }
});
