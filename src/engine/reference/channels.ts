// Channel-plan kernels (issue 4): the interface and its pure-TS twin live here.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ChannelKernels {}

export function referenceChannels(): ChannelKernels {
  return {};
}
