// Channel-plan kernels (issue 4) are added here.
export const CHANNEL_KERNELS_VERSION: i32 = 0;
