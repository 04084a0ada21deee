import type { WasmCore } from '../core.js';
import type { ChannelKernels } from '../reference/channels.js';

export function wasmChannels(_core: WasmCore): ChannelKernels {
  return {};
}
