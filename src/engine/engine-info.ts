// The package's public view of the engine: which one runs, not the kernel ABI behind it
// (that stays internal, in ./kernels.ts and ./abi.ts).
import { loadKernels } from './kernels.js';
import type { EngineName, EngineOptions } from './abi.js';

/** What `getKernels` tells a user: the engine that runs for these options. */
export interface EngineInfo {
  readonly name: EngineName;
}

/** The engine from options, else ASSIGNOR_ENGINE, else WASM (SIMD when available); refuses an unknown one (E_ENGINE). */
export function getKernels(options?: EngineOptions): EngineInfo {
  return { name: loadKernels(options).name };
}
