// The public API (re-exports only). It runs anywhere (Node, browsers, bundlers) and its types
// need no @types/node. The Node-only parts have their own entry points: 'assignor/store' (the
// file and Kafka coordinator stores) and 'assignor/coordinator' (the live coordinator); see
// docs/design.md, "Packaging and loading".
export { AssignorError, EXIT_OK, EXIT_FINDING, EXIT_BAD_INPUT, ERROR_CODES, type ErrorCode } from './errors.js';
export { getKernels, type Kernels, type EngineOptions, type EngineChoice, type EngineName } from './engine/kernels.js';
export * from './hashing/index.js';
export * from './expansion/index.js';
export * from './samza/index.js';
export * from './channels/index.js';
export * from './standby/index.js';
