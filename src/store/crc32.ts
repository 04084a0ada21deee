// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the same function as zlib's crc32.
// Node 20.15+ ships `zlib.crc32` (native); older runtimes fall back to a table-driven version.
import zlib from 'node:zlib';

let table: Uint32Array | undefined;

function makeTable(): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}

/**
 * Table-driven CRC-32. `previous` is the CRC of the bytes before `data`, so
 * `crc32Table(b, crc32Table(a)) === crc32Table(a ++ b)`, exactly like `zlib.crc32(data, value)`.
 */
export function crc32Table(data: Uint8Array, previous = 0): number {
  const t = (table ??= makeTable());
  let c = ~previous >>> 0;
  for (let i = 0; i < data.length; i++) c = t[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

const native: ((data: Uint8Array, value?: number) => number) | undefined =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function' ? zlib.crc32 : undefined;

/** True when the runtime's native `zlib.crc32` is used. */
export const NATIVE_CRC32 = native !== undefined;

/** CRC-32 of `data`, continuing from `previous` (the CRC of the preceding bytes). Always unsigned. */
export function crc32(data: Uint8Array, previous = 0): number {
  return native ? native(data, previous) >>> 0 : crc32Table(data, previous);
}
