// The two batch paths (hashKeysInJs, hashKeysInWasm) stay inside: partitionsForKeys picks between them.
export {
  MAX_PARTITIONS,
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
export { decodeKey, int32Bytes, int64Bytes, parseKeyEncoding, KEY_ENCODINGS, type KeyEncoding } from './key-encoding.js';
export { partitionForString, partitionForBytes, murmur2OfString, murmur2OfBytes, murmur2OfInt32, murmur2OfInt64, type StringEncoding } from './single-key.js';
export { KeyBatch, createKeyBatch, type KeyBatchOptions } from './key-batch.js';
