// One write as a frame body: records in order, then the SSP rows, encoded as the sections
// docs/store.md describes. The file store appends it; the memory store applies it as a reopened
// file store would read it back.
import { fail } from '../errors.js';
import { encodeBody, MAX_BODY, Sink, writeFields, writeMessages, writeSsps, type Body, type EncodedBody, type KeyTableMemo, type Section, type SspColumns } from './body.js';
import { SSP_TYPE } from './state.js';
import { encodeEnvelope, encodeKey, envelopeHead, singleField, type EnvelopeMeta } from '../coordinator-stream/messages.js';
import { markDistinct } from './key-repeats.js';
import { StringIndex } from '../columns/string-index.js';
import { canonicalSspKey } from '../coordinator-stream/ssp-key.js';
import { checkNames } from './replayed-state.js';
import type { SspRows, StoreRecord } from './backend.js';
import { sameItems } from '../basics.js';

/**
 * Encodes records in order as sections: runs of single-field values of one type and field become
 * a fields section; anything else a messages section (tombstones join the run of their type).
 * `isEmpty(type)`: the store holds no live record of the type, so a type's first fields run with
 * distinct keys is marked fresh (loaded later without hashing its keys).
 */
function encodeRecords(out: Sink, records: ReadonlyArray<StoreRecord>, meta: EnvelopeMeta, isEmpty?: (type: string) => boolean): Section[] {
  const sections: Section[] = [];
  const touched = new Set<string>();
  checkRecords(records);
  // Types are independent, so records are encoded grouped by type (types in order of first
  // appearance, each type's records in their order): long runs, few sections, the same state.
  const order = groupByType(records);
  let run: { kind: 'fields' | 'messages'; type: string; field: string } | undefined;
  let keys: string[] = [];
  let values: Array<string | null> = [];
  let messages: Array<{ key: string; value: string | null }> = [];
  // The last key column seen to repeat no key, and the last key table: Samza's per-task types write the same task keys.
  let distinct: readonly string[] = [];
  const keyTable: KeyTableMemo = { keys: [], table: undefined };
  const noRepeats = (k: readonly string[]): boolean => {
    if (sameItems(k, distinct)) return true;
    // (A typed-array index: a Set of a million names costs seconds of hashing and garbage.)
    if (new StringIndex(k, k.length).repeated >= 0) return false;
    distinct = k;
    return true;
  };
  const flush = (): void => {
    if (run?.kind === 'fields') {
      const fresh = isEmpty !== undefined && !touched.has(run.type) && isEmpty(run.type) && noRepeats(keys);
      touched.add(run.type);
      const section = writeFields(out, { type: run.type, field: run.field, keys, values, meta: null, fresh }, keyTable);
      if (fresh && section.kind === 'fields') markDistinct(section.keys as readonly string[]);
      sections.push(section);
    } else if (run?.kind === 'messages') sections.push(writeMessages(out, messages));
    run = undefined;
    keys = [];
    values = [];
    messages = [];
  };
  // A lower bound of the bytes (one per UTF-16 unit), so a write far over the limit fails before it is built.
  let units = 0;
  const grow = (n: number): void => {
    units += n;
    if (units > MAX_BODY) fail('E_STORE_TOO_LARGE', `a single write of ${records.length} records is more than ${MAX_BODY} bytes, the limit`);
  };
  for (let j = 0; j < order.length; j++) {
    const i = order[j]!;
    const r = records[i]!;
    grow(r.type.length + r.key.length + 16);
    const names = r.type.isWellFormed() && r.key.isWellFormed();
    if (r.value === null) {
      if (names && run?.kind === 'fields' && run.type === r.type) {
        keys.push(r.key);
        values.push(null);
        continue;
      }
      if (run?.kind !== 'messages') flush();
      run = { kind: 'messages', type: '', field: '' };
      touched.add(r.type);
      messages.push({ key: encodeKey(r.type, r.key), value: null });
      continue;
    }
    const single = names ? singleField(r.value) : undefined;
    if (single !== undefined) {
      if (run?.kind !== 'fields' || run.type !== r.type || run.field !== single.field) {
        flush();
        run = { kind: 'fields', type: r.type, field: single.field };
      }
      keys.push(r.key);
      values.push(single.value);
      grow(single.value.length);
      continue;
    }
    const envelope = encodeEnvelope(r.value, meta, `${r.type} ${JSON.stringify(r.key)}`);
    grow(envelope.length);
    if (run?.kind !== 'messages') flush();
    run = { kind: 'messages', type: '', field: '' };
    touched.add(r.type);
    messages.push({ key: encodeKey(r.type, r.key), value: envelope });
  }
  flush();
  return sections;
}

/**
 * One write as a frame body (records in order, then the SSP rows; `rows` of them, checked) and the
 * body the state applies: the file store appends the one and applies the other, the memory store
 * applies the same body read back. `isEmpty`: see encodeRecords.
 */
export function encodeBatch(records: ReadonlyArray<StoreRecord>, ssps: SspRows | undefined, rows: number, meta: EnvelopeMeta, isEmpty: (type: string) => boolean): { body: EncodedBody; decoded: Body } {
  const sink = new Sink();
  const sections = encodeRecords(sink, records, meta, isEmpty);
  if (ssps !== undefined && rows > 0) sections.push(...encodeSspRows(sink, ssps, meta));
  const metas = [envelopeHead(meta)];
  const body = encodeBody(metas, sink, records.length + rows);
  // The state takes its own copies of the caller's columns (it keeps them, and may change `list`).
  const own = sections.map((x) =>
    x.kind !== 'ssps'
      ? x
      : { ...x, stream: x.stream.slice(0, x.n), partition: x.partition.slice(0, x.n), bucket: x.bucket?.slice(0, x.n) ?? null, list: x.list.slice(0, x.n), meta: x.meta?.slice(0, x.n) ?? null },
  );
  return { body, decoded: { metas, sections: own, records: records.length + rows } };
}

function checkRecords(records: ReadonlyArray<StoreRecord>): void {
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    const where = `records[${i}]`;
    if (typeof r !== 'object' || r === null) fail('E_STORE_ARG', `${where} must be an object { type, key, value }`, where);
    checkNames(r.type, r.key, where);
  }
}

/** Record indices grouped by type, stably (types in order of first appearance). */
function groupByType(records: ReadonlyArray<StoreRecord>): Int32Array {
  const order = new Int32Array(records.length);
  const next = new Int32Array(records.length).fill(-1); // a linked list of each type's records
  const tail = new Map<string, number>();
  const heads: number[] = [];
  for (let i = 0; i < records.length; i++) {
    const t = records[i]!.type;
    const last = tail.get(t);
    if (last === undefined) heads.push(i);
    else next[last] = i;
    tail.set(t, i);
  }
  let w = 0;
  for (const h of heads) for (let i = h; i >= 0; i = next[i]!) order[w++] = i;
  return order;
}


/** SSP rows as an ssps section; rows whose names or list text are not well-formed strings go as plain messages. */
function encodeSspRows(out: Sink, r: SspRows, meta: EnvelopeMeta): Section[] {
  const plainStream = r.streams.map((s) => !s.system.isWellFormed() || !s.stream.isWellFormed());
  const plainList = r.lists.map((l) => !l.isWellFormed());
  const odd: StoreRecord[] = [];
  let keep = r.n;
  for (let i = 0; i < r.n; i++) if (plainStream[r.stream[i]!] || (r.list[i]! >= 0 && plainList[r.list[i]!])) keep--;
  let cols: SspColumns = { streams: r.streams, lists: r.lists, n: r.n, stream: r.stream, partition: r.partition, bucket: r.bucket, list: r.list, meta: null };
  if (keep < r.n) {
    const pick = (a: Int32Array): Int32Array => {
      const o = new Int32Array(keep);
      let w = 0;
      for (let i = 0; i < r.n; i++) if (!(plainStream[r.stream[i]!] || (r.list[i]! >= 0 && plainList[r.list[i]!]))) o[w++] = a[i]!;
      return o;
    };
    for (let i = 0; i < r.n; i++) {
      if (!(plainStream[r.stream[i]!] || (r.list[i]! >= 0 && plainList[r.list[i]!]))) continue;
      const s = r.streams[r.stream[i]!]!;
      const key = canonicalSspKey(s.system, s.stream, r.partition[i]!, r.bucket === null ? -1 : r.bucket[i]!);
      odd.push({ type: SSP_TYPE, key, value: r.list[i]! < 0 ? null : { taskNames: r.lists[r.list[i]!]! } });
    }
    cols = { ...cols, n: keep, stream: pick(r.stream), partition: pick(r.partition), bucket: r.bucket === null ? null : pick(r.bucket), list: pick(r.list) };
  }
  const sections: Section[] = [];
  if (cols.n > 0) sections.push(writeSsps(out, cols));
  if (odd.length > 0) sections.push(...encodeRecords(out, odd, meta));
  return sections;
}
