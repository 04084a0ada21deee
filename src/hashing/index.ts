export * from './partitioner.js';
export { javaUtf8Bytes, encodeJavaUtf8Into, javaUtf8Bound } from './java-utf8.js';
export { decodeKey, int32Bytes, int64Bytes, parseKeyEncoding, KEY_ENCODINGS, type KeyEncoding } from './key-encoding.js';
export { partitionForString, partitionForBytes, murmur2OfString, murmur2OfBytes, murmur2OfInt32, murmur2OfInt64, type StringEncoding } from './single-key.js';
export { KeyBatch, createKeyBatch, type KeyBatchOptions } from './key-batch.js';
