// Turning user-facing key representations into the bytes Kafka's serializers
// produce: StringSerializer (UTF-8, Java-exact), IntegerSerializer (4 bytes
// big-endian), LongSerializer (8 bytes big-endian), or raw bytes given as hex/base64.
import { AssignorError } from '../errors.js';
import { javaUtf8Bytes } from './java-utf8.js';
import { INT32_MAX, INT32_MIN } from '../basics.js';

export type KeyEncoding = 'utf8' | 'hex' | 'base64' | 'int32' | 'int64';
export const KEY_ENCODINGS: readonly KeyEncoding[] = ['utf8', 'hex', 'base64', 'int32', 'int64'];

export function int32Bytes(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, value, false);
  return out;
}

export function int64Bytes(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, value, false);
  return out;
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;
const INT = /^[+-]?\d+$/;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/**
 * Decodes one textual key (as read from a line or --key) to its serialized bytes.
 * `where` names the place for errors (`line 17`, `--key #2`).
 */
export function decodeKey(text: string, encoding: KeyEncoding, where: string): Uint8Array {
  switch (encoding) {
    case 'utf8':
      return javaUtf8Bytes(text);
    case 'hex':
      if (!HEX.test(text)) {
        const bad = /[^0-9a-fA-F]/u.exec(text);
        const why = bad !== null ? `${JSON.stringify(bad[0])} is not a hex digit (0-9, a-f, A-F)` : `expected an even number of hex digits, got ${text.length}`;
        throw new AssignorError('E_KEY_HEX', `malformed hex key ${clip(text)} at ${where}: ${why}`, where);
      }
      return Uint8Array.from(Buffer.from(text, 'hex'));
    case 'base64':
      if (!BASE64.test(text)) throw new AssignorError('E_KEY_BASE64', `malformed base64 key ${clip(text)} at ${where}`, where);
      return Uint8Array.from(Buffer.from(text, 'base64'));
    case 'int32': {
      const v = INT.test(text) ? Number(text) : NaN;
      if (!Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) {
        throw new AssignorError('E_KEY_INT32', `key ${clip(text)} at ${where} is not a 32-bit integer (IntegerSerializer takes [-2147483648, 2147483647])`, where);
      }
      return int32Bytes(v);
    }
    case 'int64': {
      const v = INT.test(text) ? BigInt(text) : null;
      if (v === null || v < INT64_MIN || v > INT64_MAX) {
        throw new AssignorError('E_KEY_INT64', `key ${clip(text)} at ${where} is not a 64-bit integer (LongSerializer takes [-2^63, 2^63-1])`, where);
      }
      return int64Bytes(v);
    }
  }
}

function clip(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}
