// Standby-selection kernels (issue 5): the interface and its pure-TS twin live here.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface StandbyKernels {}

export function referenceStandby(): StandbyKernels {
  return {};
}
