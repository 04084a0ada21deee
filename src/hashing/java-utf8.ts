// UTF-8 exactly as Java's String.getBytes(StandardCharsets.UTF_8) writes it,
// which is what Kafka's StringSerializer hashes. It equals the WHATWG encoding
// (TextEncoder) except for unpaired surrogates: Java writes '?' (0x3F), one
// byte, where TextEncoder writes U+FFFD (EF BF BD).

const QUESTION_MARK = 0x3f;
const utf8 = new TextEncoder();

/** Upper bound of the encoded size: 3 bytes per UTF-16 unit covers every case. */
export function javaUtf8Bound(s: string): number {
  return s.length * 3;
}

/** Writes `s` into `dst` at `pos` and returns the position after it. `dst` must have javaUtf8Bound(s) bytes free. */
export function encodeJavaUtf8Into(s: string, dst: Uint8Array, pos: number): number {
  const n = s.length;
  // Long well-formed strings: the native encoder is fastest and agrees with Java.
  if (n > 32 && s.isWellFormed()) return pos + utf8.encodeInto(s, dst.subarray(pos)).written;
  // Most keys are ASCII: a tight loop until the first other unit (measured ~2x faster).
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) break;
    dst[pos++] = c;
  }
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      dst[pos++] = c;
    } else if (c < 0x800) {
      dst[pos++] = 0xc0 | (c >> 6);
      dst[pos++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      dst[pos++] = 0xe0 | (c >> 12);
      dst[pos++] = 0x80 | ((c >> 6) & 0x3f);
      dst[pos++] = 0x80 | (c & 0x3f);
    } else {
      const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        dst[pos++] = 0xf0 | (cp >> 18);
        dst[pos++] = 0x80 | ((cp >> 12) & 0x3f);
        dst[pos++] = 0x80 | ((cp >> 6) & 0x3f);
        dst[pos++] = 0x80 | (cp & 0x3f);
        i++;
      } else {
        dst[pos++] = QUESTION_MARK; // unpaired surrogate, as Java's encoder replaces it
      }
    }
  }
  return pos;
}

/** The bytes Java's `s.getBytes(UTF_8)` returns. */
export function javaUtf8Bytes(s: string): Uint8Array {
  const buf = new Uint8Array(javaUtf8Bound(s));
  return buf.slice(0, encodeJavaUtf8Into(s, buf, 0));
}
