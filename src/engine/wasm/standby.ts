import type { WasmCore } from '../core.js';
import { referenceStandby, type StandbyKernels } from '../reference/standby.js';

// Temporary: the WASM kernel lands next; until then this engine runs the twin.
export function wasmStandby(_core: WasmCore): StandbyKernels {
  return referenceStandby();
}
