// Model test: any sequence of put/delete/batch/compact/reopen/torn-append gives the state of a plain Map.
import fs from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CoordinatorStore } from '../../src/store/index.js';
import { cleanupTempDirs, snapshot, tempDir } from './helpers.js';

afterEach(() => cleanupTempDirs());

type Model = Map<string, Map<string, unknown>>;

const typeArb = fc.constantFrom('set-task-partition-assignment', 'set-changelog', 'set-config', '__proto__', 'x');
const keyArb = fc.oneof(fc.constantFrom('__proto__', 'constructor', '', 'Partition 0', 'Partition 1', 'k'), fc.string({ maxLength: 6, unit: 'grapheme' }));
const valueArb = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 8 })));
const recordArb = fc.record({ type: typeArb, key: keyArb, value: fc.option(valueArb, { freq: 4 }) });

const opArb = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('put' as const), type: typeArb, key: keyArb, value: valueArb }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), type: typeArb, key: keyArb }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('batch' as const), records: fc.array(recordArb, { maxLength: 8 }) }) },
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
  for (const [t, m] of model) if (m.size > 0) out[t] = [...m];
  return out;
}

describe('store vs Map model', () => {
  it('random operation sequences', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const dir = tempDir();
        const model: Model = new Map();
        let s = CoordinatorStore.open(dir);
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
                s.writeBatch(o.records);
                for (const r of o.records) setModel(model, r.type, r.key, r.value);
                break;
              case 'compact':
                s.compact();
                break;
              case 'reopen':
                s.close();
                s = CoordinatorStore.open(dir);
                expect(s.truncatedBytes).toBe(0);
                break;
              case 'torn': {
                s.close();
                // Frames start with a big-endian length; a random prefix of a frame must be dropped.
                fs.appendFileSync(s.path, o.bytes);
                s = CoordinatorStore.open(dir);
                expect(s.truncatedBytes).toBe(o.bytes.length);
                break;
              }
            }
            expect(snapshot(s)).toEqual(modelSnapshot(model));
          }
          s.close();
          const ro = CoordinatorStore.open(dir, { readOnly: true });
          expect(snapshot(ro)).toEqual(modelSnapshot(model));
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
