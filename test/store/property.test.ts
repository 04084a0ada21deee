// Model test: any sequence of put/delete/batch/compact/reopen/torn-append gives the state of a plain Map.
import fs from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CoordinatorStore } from '../../src/store/index.js';
import { cleanupTempDirs, snapshot, tempDir } from './helpers.js';

afterEach(() => cleanupTempDirs());

type Model = Map<string, Map<string, unknown>>;

const typeArb = fc.constantFrom('set-task-partition-assignment', 'set-changelog', 'set-config', '__proto__', 'x');
const sspKey = (p: number, b = -1) => `{"system":"kafka","partition":${p},"stream":"PVE","keyBucket":${b}}`;
const keyArb = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', '', 'Partition 0', 'Partition 1', 'k', 'lone \ud800'),
  fc.string({ maxLength: 6, unit: 'grapheme' }),
  // canonical SSP keys (held in columns for set-task-partition-assignment) and an older form of one
  fc.constantFrom(sspKey(0), sspKey(1), sspKey(0, 2), '{"system":"kafka","partition":0,"stream":"PVE"}'),
);
const valueArb = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 8 })),
  // Samza's usual single-string-field values, stored compactly
  fc.record({ taskNames: fc.constantFrom('["Partition 0"]', '["a","b"]', '[]', 'x\ud800') }),
  fc.record({ Partition: fc.string({ maxLength: 3 }) }),
);
const sspRowArb = fc.record({ stream: fc.nat(1), partition: fc.nat(3), bucket: fc.constantFrom(-1, 0, 2), list: fc.integer({ min: -1, max: 2 }) });
const SSP_STREAMS = [{ system: 'kafka', stream: 'PVE' }, { system: 'kafka', stream: 'Ω "q"' }];
const SSP_LISTS = ['["Partition 0"]', '["Partition 1","Standby-Partition 1-0"]', '["a"]'];
const recordArb = fc.record({ type: typeArb, key: keyArb, value: fc.option(valueArb, { freq: 4 }) });

const opArb = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('put' as const), type: typeArb, key: keyArb, value: valueArb }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), type: typeArb, key: keyArb }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('batch' as const), records: fc.array(recordArb, { maxLength: 8 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('ssps' as const), rows: fc.array(sspRowArb, { maxLength: 10 }), records: fc.array(recordArb, { maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('compact' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reopen' as const) }) },
  // a crashed append: some bytes of a frame that never completed
  { weight: 1, arbitrary: fc.record({ op: fc.constant('torn' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }) }) },
);

function setModel(model: Model, type: string, key: string, value: unknown): void {
  let m = model.get(type);
  if (value === null) {
    m?.delete(key);
    return;
  }
  if (m === undefined) model.set(type, (m = new Map()));
  m.set(key, JSON.parse(JSON.stringify(value)));
}

function modelSnapshot(model: Model): Record<string, Array<[string, unknown]>> {
  const out: Record<string, Array<[string, unknown]>> = Object.create(null);
  for (const [t, m] of model) if (m.size > 0) out[t] = t === SSP_TYPE ? sorted([...m]) : [...m];
  return out;
}

// For the SSP assignment type the store lists canonical rows first (docs/store.md): compare as sets.
const SSP_TYPE = 'set-task-partition-assignment';
const sorted = (e: Array<[string, unknown]>): Array<[string, unknown]> => [...e].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
function storeSnapshot(s: CoordinatorStore): Record<string, Array<[string, unknown]>> {
  const out = snapshot(s);
  if (out[SSP_TYPE] !== undefined) out[SSP_TYPE] = sorted(out[SSP_TYPE]);
  return out;
}

describe('store vs Map model', () => {
  it('random operation sequences', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const dir = tempDir();
        const model: Model = new Map();
        const options = { autoCompactMinBytes: 0 }; // compaction may also happen on its own, at any size
        let s = CoordinatorStore.open(dir, options);
        try {
          for (const o of ops) {
            switch (o.op) {
              case 'put':
                s.put(o.type, o.key, o.value);
                setModel(model, o.type, o.key, o.value);
                break;
              case 'delete':
                s.delete(o.type, o.key);
                setModel(model, o.type, o.key, null);
                break;
              case 'batch':
                s.commit(o.records);
                for (const r of o.records) setModel(model, r.type, r.key, r.value);
                break;
              case 'ssps': {
                const n = o.rows.length;
                const col = (f: (r: { stream: number; partition: number; bucket: number; list: number }) => number) => Int32Array.from(o.rows, f);
                s.commit(o.records, { streams: SSP_STREAMS, lists: SSP_LISTS, n, stream: col((r) => r.stream), partition: col((r) => r.partition), bucket: col((r) => r.bucket), list: col((r) => r.list) });
                for (const r of o.records) setModel(model, r.type, r.key, r.value);
                for (const r of o.rows) {
                  const st = SSP_STREAMS[r.stream]!;
                  const key = `{"system":${JSON.stringify(st.system)},"partition":${r.partition},"stream":${JSON.stringify(st.stream)},"keyBucket":${r.bucket}}`;
                  setModel(model, SSP_TYPE, key, r.list < 0 ? null : { taskNames: SSP_LISTS[r.list] });
                }
                break;
              }
              case 'compact':
                s.compact();
                break;
              case 'reopen':
                s.close();
                s = CoordinatorStore.open(dir, options);
                expect(s.truncatedBytes).toBe(0);
                break;
              case 'torn': {
                s.close();
                // Frames start with a big-endian length; a random prefix of a frame must be dropped.
                fs.appendFileSync(s.path, o.bytes);
                s = CoordinatorStore.open(dir, options);
                expect(s.truncatedBytes).toBe(o.bytes.length);
                break;
              }
            }
            expect(storeSnapshot(s)).toEqual(modelSnapshot(model));
          }
          s.close();
          const ro = CoordinatorStore.open(dir, { readOnly: true });
          expect(storeSnapshot(ro)).toEqual(modelSnapshot(model));
          expect(new Map([...ro.messages()].map((m) => [m.key, JSON.parse(m.value).values]))).toEqual(new Map([...model].flatMap(([t, m]) => [...m].map(([k, v]) => [JSON.stringify([1, t, k]), v]))));
          for (const [t, m] of model) for (const [k, v] of m) expect(ro.get(t, k)).toEqual(v);
          ro.close();
        } finally {
          s.close();
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 150 },
    );
  });
});
