// Issue 8, item 6: validatePlan and expandPlan take precise input types (no
// `| unknown`) and still check their input at run time. The @ts-expect-error
// lines are checked by `npm run typecheck` (tsconfig.check.json includes test/).
import { describe, expect, it } from 'vitest';
import { expandPlan, rewidthPlan, validatePlan, type PlanLike } from '../../src/channels/index.js';

describe('public input types', () => {
  it('accept plan JSON, bare channel arrays and SPL text', () => {
    const plans: PlanLike[] = [{ channels: [[0, 1], [2, 3]] }, [[0, 1], 'partition: 2, 3;'], { partitions: 4, channels: [{ channel: 0, partitions: [0, 1] }, { partitions: '2, 3' }] }];
    for (const p of plans) expect(validatePlan(p, 4).sound).toBe(true);
  });

  it('reject what is not a plan at compile time, and still at run time', () => {
    // @ts-expect-error a misspelt member is not a plan
    expect(() => validatePlan({ chanels: [[0]] }, 1)).toThrow(/"channels" must be an array/);
    // @ts-expect-error a misspelt optional member beside a valid one is a compile error too (no index signature)
    expect(validatePlan({ channels: [[0]], partitons: 3 }, 1).sound).toBe(true);
    // @ts-expect-error partition ids are numbers
    expect(() => validatePlan({ channels: [[0, '1']] }, 2)).toThrow(/must be an integer/);
    // @ts-expect-error a number is not a plan
    expect(() => expandPlan(42, 2)).toThrow(/a plan must be an object/);
    // @ts-expect-error the width is a number
    expect(() => rewidthPlan({ partitions: 2, channels: [[0, 1]] }, '2')).toThrow(/width must be an integer/);
  });
});
