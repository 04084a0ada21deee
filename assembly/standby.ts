// Standby-selection kernels (issue 5) are added here.
export const STANDBY_KERNELS_VERSION: i32 = 0;
