import type { WasmCore } from '../core.js';
import type { StandbyKernels } from '../reference/standby.js';

export function wasmStandby(_core: WasmCore): StandbyKernels {
  return {};
}
