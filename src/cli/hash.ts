// `assignor hash`: keys -> Kafka partitions. Keys come from --key arguments or
// from stdin, one per line, streamed in chunks so 50 million lines run in flat
// memory. Lines are split on \n; a \r right before a \n is dropped (CRLF
// files), and a last line without \n is a line like any other (its \r is kept).
import { createReadStream, fstatSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { AssignorError } from '../errors.js';
import { partitionsForPacked } from '../hashing/partitioner.js';
import { encodeJavaUtf8Into } from '../hashing/java-utf8.js';
import { decodeKey, KEY_ENCODINGS, type KeyEncoding } from '../hashing/key-encoding.js';
import type { EngineChoice } from '../engine/kernels.js';
import { choiceOption, engineOption, intOption, parse } from './args.js';
import { Output } from './output.js';
import { startProgress, type Progress } from './progress.js';
import { INT32_MAX } from '../basics.js';

const HELP = `usage: assignor hash --partitions N [--key K ...] [options]  (keys from stdin when no --key)

  --partitions N       number of partitions of the topic, 1..2147483647 (required)
  --key K              a key; repeat for several. Without --key, keys are read from stdin, one per line
  --key-encoding E     how each key is written: utf8 (default; hashed as Java's UTF-8),
                       hex, base64 (raw bytes), int32, int64 (IntegerSerializer/LongSerializer, decimal)
  --json               one JSON object per key: {"key": ..., "partition": ...}
  --stats              instead of per-key output: keys per partition and the skew (max/mean)
  --engine E           wasm (default; ASSIGNOR_ENGINE sets another default), wasm-simd, wasm-scalar or reference
  --no-progress        no progress bar (it only shows when stderr is a terminal, after 2 s)

Output: one partition per line, in input order. Exit 2 on bad input, naming the line.`;

const OPTIONS = {
  partitions: { type: 'string' },
  key: { type: 'string', multiple: true },
  'key-encoding': { type: 'string' },
  json: { type: 'boolean' },
  stats: { type: 'boolean' },
  engine: { type: 'string' },
  'no-progress': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface Sink {
  /** Called per batch with the key texts' source and their partitions. */
  batch(partitions: Int32Array, keyText: (i: number) => string): Promise<void>;
  end(progress: (label: string, total: number, unit: string) => Progress): Promise<void>;
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const n = intOption(values.partitions, '--partitions', 1, INT32_MAX);
  const encoding = choiceOption<KeyEncoding>(values['key-encoding'], '--key-encoding', KEY_ENCODINGS, 'utf8');
  const engine = engineOption(values.engine);
  const out = new Output(process.stdout);
  const sink = values.stats ? statsSink(n, out, !!values.json) : values.json ? jsonSink(out) : plainSink(out);
  // Per-key output to the same terminal would mix with the bar; --stats prints at the end.
  const enabled = !values['no-progress'] && (values.stats === true || process.stdout.isTTY !== true);

  if (values.key !== undefined) {
    const keys = values.key;
    const packer = new Packer(encoding);
    keys.forEach((k, i) => packer.addText(k, `--key #${i + 1}`));
    await sink.batch(packer.hash(n, engine), (i) => keys[i]!);
  } else {
    await streamStdin(n, encoding, engine, sink, enabled);
  }
  await sink.end((label, total, unit) => startProgress(label, { total, unit, enabled }));
  await out.close();
  return 0;
}

/** Collects keys of one batch as packed bytes + offsets, the kernel's input. */
class Packer {
  private bytes = new Uint8Array(1 << 16);
  private offsets = new Int32Array(1 << 12);
  count = 0;
  private pos = 0;

  constructor(private readonly encoding: KeyEncoding) {}

  private reserve(bytes: number): void {
    if (this.pos + bytes > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.pos + bytes));
      grown.set(this.bytes.subarray(0, this.pos));
      this.bytes = grown;
    }
    if (this.count + 2 > this.offsets.length) {
      const grown = new Int32Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
  }

  addText(text: string, where: string): void {
    if (this.encoding === 'utf8') {
      this.reserve(text.length * 3);
      this.pos = encodeJavaUtf8Into(text, this.bytes, this.pos);
    } else {
      const b = decodeKey(text, this.encoding, where);
      this.reserve(b.length);
      this.bytes.set(b, this.pos);
      this.pos += b.length;
    }
    this.offsets[++this.count] = this.pos;
  }

  hash(n: number, engine: EngineChoice | undefined): Int32Array {
    const r = partitionsForPacked(this.bytes.subarray(0, this.pos), this.offsets.subarray(0, this.count + 1), n, { engine });
    this.count = 0;
    this.pos = 0;
    return r;
  }
}

const LF = 0x0a;
const CR = 0x0d;

async function streamStdin(n: number, encoding: KeyEncoding, engine: EngineChoice | undefined, sink: Sink, showProgress: boolean): Promise<void> {
  let total = 0;
  try {
    const st = fstatSync(0);
    if (st.isFile()) total = st.size;
  } catch {
    /* not a file: size unknown */
  }
  // Counted in bytes of stdin when it is a file (the bar then has an end), in keys otherwise.
  const progress = startProgress('hashing', { enabled: showProgress, ...(total > 0 ? { total, unit: 'bytes' } : { unit: 'keys' }) });
  let bytesDone = 0;
  const input = createReadStream('', { fd: 0, highWaterMark: 1 << 20 });
  let carry: Buffer = Buffer.alloc(0);
  let lineNo = 0;
  const packer = new Packer(encoding);

  let starts: Int32Array = new Int32Array(1 << 16);
  let stops: Int32Array = new Int32Array(1 << 16);
  let offsets: Int32Array = new Int32Array((1 << 16) + 1);

  const handle = async (buf: Buffer, final: boolean): Promise<Buffer> => {
    // [start, stop) of every complete line in buf (and of a last unterminated one when final).
    let count = 0;
    let start = 0;
    // `end` is the index of the line's \n, or buf.length for a last line without one.
    const addLine = (end: number, terminated: boolean): void => {
      if (count === starts.length) {
        starts = grow(starts);
        stops = grow(stops);
        offsets = new Int32Array(starts.length + 1);
      }
      starts[count] = start;
      stops[count] = terminated && end > start && buf[end - 1] === CR ? end - 1 : end;
      count++;
      start = end + 1;
    };
    for (let i = buf.indexOf(LF); i !== -1; i = buf.indexOf(LF, i + 1)) addLine(i, true);
    if (final && start < buf.length) addLine(buf.length, false);
    if (count === 0) return buf.subarray(start);
    const firstLine = lineNo + 1;
    const text = (i: number): string => buf.toString('utf8', starts[i]!, stops[i]!);
    let partitions: Int32Array;
    if (encoding === 'utf8' && isUtf8(buf.subarray(0, stops[count - 1]))) {
      // Valid UTF-8 lines are already the bytes Java's encoder produces: hash them in place.
      partitions = hashRanges(buf, { starts, stops, offsets, count }, n, engine);
    } else {
      for (let i = 0; i < count; i++) packer.addText(text(i), `line ${firstLine + i}`);
      partitions = packer.hash(n, engine);
    }
    await sink.batch(partitions, text);
    lineNo += count;
    bytesDone += Math.min(start, buf.length);
    progress.tick(total > 0 ? bytesDone : lineNo);
    return buf.subarray(start);
  };

  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      const buf = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
      carry = Buffer.from(await handle(buf, false));
    }
    await handle(carry, true);
  } finally {
    progress.end();
  }
}

function grow(a: Int32Array): Int32Array {
  const g = new Int32Array(a.length * 2);
  g.set(a);
  return g;
}

/** Lines 0 .. count) of a chunk, line i at [starts[i], stops[i]); offsets (count + 1) is scratch for the packed keys. */
interface LineTable {
  starts: Int32Array;
  stops: Int32Array;
  offsets: Int32Array;
  count: number;
}

/** Hashes the lines of buf by compacting them into one packed buffer (their ranges are updated to the packed ones). */
function hashRanges(buf: Buffer, lines: LineTable, n: number, engine: EngineChoice | undefined): Int32Array {
  const { starts, stops, offsets, count } = lines;
  // Compact in place: key bytes move left over the separators; buf is ours (a chunk copy).
  let pos = 0;
  offsets[0] = 0;
  for (let i = 0; i < count; i++) {
    const s = starts[i]!;
    const e = stops[i]!;
    if (s !== pos) buf.copyWithin(pos, s, e);
    pos += e - s;
    offsets[i + 1] = pos;
    starts[i] = pos - (e - s);
    stops[i] = pos;
  }
  return partitionsForPacked(buf.subarray(0, pos), offsets.subarray(0, count + 1), n, { engine });
}

function plainSink(out: Output): Sink {
  return {
    async batch(partitions) {
      await out.write(`${partitions.join('\n')}\n`);
    },
    async end() {},
  };
}

function jsonSink(out: Output): Sink {
  return {
    async batch(partitions, keyText) {
      let s = '';
      for (let i = 0; i < partitions.length; i++) s += `{"key":${JSON.stringify(keyText(i))},"partition":${partitions[i]}}\n`;
      await out.write(s);
    },
    async end() {},
  };
}

/** Partitions per piece of --stats output: bounded memory however many partitions there are. */
const STATS_ROWS_PER_WRITE = 1 << 16;

function statsSink(n: number, out: Output, json: boolean): Sink {
  if (n > 1 << 26) throw new AssignorError('E_USAGE', `--stats keeps one counter per partition; ${n} partitions is more than the 67108864 it supports`, '--partitions');
  const counts = new Float64Array(n);
  let keys = 0;
  return {
    async batch(partitions) {
      for (let i = 0; i < partitions.length; i++) counts[partitions[i]!]!++;
      keys += partitions.length;
    },
    async end(startBar) {
      let max = 0;
      let min = Number.POSITIVE_INFINITY;
      for (let p = 0; p < n; p++) {
        max = Math.max(max, counts[p]!);
        min = Math.min(min, counts[p]!);
      }
      const mean = keys / n;
      const skew = keys === 0 ? 0 : max / mean;
      // Written a piece at a time: 67 million rows are more text than one JS string can hold.
      // The bytes are exactly those of JSON.stringify({ keys, partitions, counts, min, max, mean, skew }).
      const progress = startBar('writing stats', n, 'partitions');
      try {
        await out.write(json ? `{"keys":${keys},"partitions":${n},"counts":[` : 'partition\tkeys\n');
        for (let from = 0; from < n; from += STATS_ROWS_PER_WRITE) {
          const to = Math.min(n, from + STATS_ROWS_PER_WRITE);
          await out.write(json ? countsJsonPiece(counts, from, to) : countsTablePiece(counts, from, to));
          progress.tick(to);
        }
      } finally {
        progress.end();
      }
      if (json) {
        await out.write(`],"min":${JSON.stringify(min)},"max":${JSON.stringify(max)},"mean":${JSON.stringify(mean)},"skew":${JSON.stringify(skew)}}\n`);
      } else {
        await out.write(`keys ${keys}, partitions ${n}, min ${min}, max ${max}, mean ${mean.toFixed(2)}, skew (max/mean) ${skew.toFixed(4)}\n`);
      }
    },
  };
}

// The --stats rows are written as ASCII bytes straight into a buffer: 3-4x faster
// than building the same text as strings (67 million rows: the bulk of the run).
const TAB = 0x09;
const COMMA = 0x2c;

/** `p<TAB>count\n` for p in [from, to). */
function countsTablePiece(counts: Float64Array, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe((to - from) * 40); // a fresh buffer: the stream may still hold the last one
  let pos = 0;
  for (let p = from; p < to; p++) {
    pos = writeDecimal(buf, pos, p);
    buf[pos++] = TAB;
    pos = writeDecimal(buf, pos, counts[p]!);
    buf[pos++] = LF;
  }
  return buf.subarray(0, pos);
}

/** The counts from..to as JSON array elements, with a leading comma unless from is 0. */
function countsJsonPiece(counts: Float64Array, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe((to - from) * 24);
  let pos = 0;
  for (let p = from; p < to; p++) {
    if (p > 0) buf[pos++] = COMMA;
    pos = writeDecimal(buf, pos, counts[p]!);
  }
  return buf.subarray(0, pos);
}

/** Writes a non-negative integer (as String(v) would print it) at pos; returns the end. */
function writeDecimal(buf: Buffer, pos: number, v: number): number {
  if (v < 10) {
    buf[pos] = 0x30 + v;
    return pos + 1;
  }
  if (v > 0x7fffffff) return pos + buf.write(String(v), pos, 'latin1');
  const end = pos + (v < 100 ? 2 : v < 1e3 ? 3 : v < 1e4 ? 4 : v < 1e5 ? 5 : v < 1e6 ? 6 : v < 1e7 ? 7 : v < 1e8 ? 8 : v < 1e9 ? 9 : 10);
  for (let i = end - 1; i >= pos; i--) {
    const q = (v / 10) | 0;
    buf[i] = 0x30 + v - q * 10;
    v = q;
  }
  return end;
}
