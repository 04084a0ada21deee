// The two batch paths (hashKeysInJs, hashKeysInWasm) stay inside: partitionsForKeys picks between them.
export {
  NO_PARTITION,
  type Key,
  toPositive,
  murmur2,
  partitionForKey,
  partitionForInt32,
  partitionForInt64,
  partitionsForKeys,
  murmur2Batch,
  partitionsForPacked,
  partitionsForFixed,
  partitionsForInt32s,
  partitionsForInt64s,
} from './partitioner.js';
export { javaUtf8Bytes, encodeJavaUtf8Into, javaUtf8Bound } from './java-utf8.js';
export { int32Bytes, int64Bytes, type KeyEncoding } from './key-encoding.js';
export { partitionForString, partitionForBytes, type StringEncoding } from './single-key.js';
export { KeyBatch, createKeyBatch, type KeyBatchOptions } from './key-batch.js';
