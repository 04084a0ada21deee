// The public API (re-exports only).
export { AssignorError, EXIT_OK, EXIT_FINDING, EXIT_BAD_INPUT, ERROR_CODES, type ErrorCode } from './errors.js';
export { getKernels, type Kernels, type EngineOptions, type EngineChoice, type EngineName } from './engine/kernels.js';
export * from './hashing/index.js';
export * from './expansion/index.js';
export * from './samza/index.js';
export * from './store/index.js';
export * from './channels/index.js';
export * from './standby/index.js';
export * from './coordinator/index.js';
