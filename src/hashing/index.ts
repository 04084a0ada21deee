export * from './partitioner.js';
export { javaUtf8Bytes, encodeJavaUtf8Into, javaUtf8Bound } from './java-utf8.js';
export { decodeKey, int32Bytes, int64Bytes, parseKeyEncoding, KEY_ENCODINGS, type KeyEncoding } from './key-encoding.js';
