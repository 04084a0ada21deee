// Java's UTF-8 for many string keys at once. The producer joins a run of keys,
// writes the joined string's UTF-16 code units into kernel memory with one call
// (Buffer#write 'utf16le': a copy, no encoding) and knows each key's length in
// units; this kernel encodes each key on its own, as Java's String.getBytes(UTF_8)
// does: an unpaired surrogate is '?', and a high surrogate ending one key never
// pairs with a low surrogate starting the next.

const QUESTION_MARK: u32 = 0x3f;

/**
 * Encodes the `units` UTF-16 code units at u as Java's UTF-8 into dst; returns
 * the address after the last byte written. dst needs 3 bytes per unit, plus 1:
 * every character is stored as a 4-byte word and the cursor moves by its length.
 */
// @ts-ignore: decorator
@inline function encodeKey(u: usize, units: i32, dst: usize): usize {
  let i = 0;
  let q = dst;
  while (i < units) {
    // Four ASCII units at a time: each 16-bit unit below 0x80.
    if (i + 4 <= units) {
      const w = load<u64>(u + (<usize>i << 1));
      if ((w & 0xff80ff80ff80ff80) == 0) {
        store<u32>(q, <u32>((w & 0xff) | ((w >> 8) & 0xff00) | ((w >> 16) & 0xff0000) | ((w >> 24) & 0xff000000)));
        q += 4;
        i += 4;
        continue;
      }
    }
    const c = <u32>load<u16>(u + (<usize>i << 1));
    i++;
    if ((c & 0xf800) != 0xd800) {
      // One, two or three bytes, chosen without branches: mixed scripts would
      // mispredict a branch per character.
      const is2 = <u32>(c >= 0x80);
      const is3 = <u32>(c >= 0x800);
      const w2 = (0xc0 | (c >> 6)) | ((0x80 | (c & 0x3f)) << 8);
      const w3 = (0xe0 | (c >> 12)) | ((0x80 | ((c >> 6) & 0x3f)) << 8) | ((0x80 | (c & 0x3f)) << 16);
      store<u32>(q, select<u32>(select<u32>(w3, w2, is3), c, is2));
      q += 1 + is2 + is3;
      continue;
    }
    const d = i < units ? <u32>load<u16>(u + (<usize>i << 1)) : 0;
    if (c <= 0xdbff && (d & 0xfc00) == 0xdc00) {
      const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      store<u32>(q, (0xf0 | (cp >> 18)) | ((0x80 | ((cp >> 12) & 0x3f)) << 8) | ((0x80 | ((cp >> 6) & 0x3f)) << 16) | ((0x80 | (cp & 0x3f)) << 24));
      q += 4;
      i++;
    } else {
      store<u8>(q++, <u8>QUESTION_MARK); // unpaired, as Java's encoder writes it
    }
  }
  return q;
}

/**
 * `count` keys have their UTF-16 units at `units`, back to back, and
 * offsets[0 .. count] hold cumulative unit counts (key i has offsets[i+1] -
 * offsets[i] units; only differences matter). Writes each key's Java UTF-8
 * into data from its start and rewrites offsets[0 .. count] as byte offsets
 * into data. data needs 3 bytes per unit, plus 4. Returns the bytes written.
 */
export function javaUtf8Keys(units: usize, offsets: usize, count: i32, data: usize): i32 {
  let o = offsets;
  let prev = load<i32>(o);
  store<i32>(o, 0);
  let u = units;
  let q = data;
  for (let i = 0; i < count; i++) {
    o += 4;
    const next = load<i32>(o);
    const n = next - prev;
    q = encodeKey(u, n, q);
    u += <usize>n << 1;
    store<i32>(o, <i32>(q - data));
    prev = next;
  }
  return <i32>(q - data);
}
