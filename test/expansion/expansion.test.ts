// The shared expansion arithmetic: key-movement analysis, the key-moving
// reassignment, and the fold's input checks on every engine.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatPercent } from '../../src/basics.js';
import { AssignorError } from '../../src/errors.js';
import { analyzeExpansion, foldPartitions, gcd, reassignWithKeyMovement, requireKeyPreserving } from '../../src/expansion/index.js';

describe('formatPercent, the one percentage every message uses', () => {
  it('writes whole percents bare and others to two decimals', () => {
    expect([0, 0.25, 1, 1 / 3, 2 / 3, 0.125].map((x) => formatPercent(x))).toEqual(['0%', '25%', '100%', '33.33%', '66.67%', '12.50%']);
  });
  it('scales before it divides, so an exact fraction keeps its whole percent', () => {
    expect(formatPercent(7 / 100)).toBe('7.00%');
    expect(formatPercent(7, { of: 100 })).toBe('7%');
  });
  it('writes a fixed number of decimals when asked', () => {
    expect(formatPercent(0.125, { digits: 1 })).toBe('12.5%');
    expect(formatPercent(1, { digits: 2 })).toBe('100.00%');
  });
});

describe('analyzeExpansion', () => {
  it('keeps every key when the new count is a multiple of the base', () => {
    const a = analyzeExpansion(4, 12);
    expect(a.keepsEveryKey).toBe(true);
    expect(a.movedShare).toBe(0);
    expect(a.nearestSafe).toEqual([12]);
  });
  it('states the exact share 1 - gcd(B, C)/B and the multiples of B around C', () => {
    const a = analyzeExpansion(4, 6);
    expect(a.moved).toEqual({ numerator: 1, denominator: 2 });
    expect(a.nearestSafe).toEqual([4, 8]);
    expect(a.summary).toContain('1/2 of keys (50%)');
    expect(analyzeExpansion(6, 4).nearestSafe).toEqual([6]);
    expect(analyzeExpansion(3, 7).moved).toEqual({ numerator: 2, denominator: 3 });
  });
  it('refuses, when asked to, with the share and the safe counts', () => {
    expect(() => requireKeyPreserving(4, 6)).toThrow(/1\/2 of keys .* 4 or 8/);
    expect(requireKeyPreserving(4, 8).keepsEveryKey).toBe(true);
  });
  it('matches a brute-force count of keys that change slot', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 }), (b, c) => {
        // Over one period lcm(B, C) of hash values, the best any assignment can keep is
        // what reassignWithKeyMovement keeps; count what it moves.
        const { slotOf, analysis } = reassignWithKeyMovement(b, c);
        const period = (b * c) / gcd(b, c);
        let moved = 0;
        for (let h = 0; h < period; h++) if (slotOf[h % c] !== h % b) moved++;
        expect(moved / period).toBeCloseTo(analysis.movedShare, 12);
        // Balanced: slot loads differ by at most one when C >= B.
        if (c >= b) {
          const load = new Array(b).fill(0);
          for (const s of slotOf) load[s]++;
          expect(Math.max(...load) - Math.min(...load)).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('foldPartitions input checks (every engine)', () => {
  for (const engine of ['reference', 'wasm-scalar', 'wasm-simd'] as const) {
    it(`names the bad item (${engine})`, () => {
      const bases = Int32Array.of(4, 3);
      expect(Array.from(foldPartitions(Int32Array.of(0, 1, 1), Int32Array.of(9, 9, 2), bases, { engine }) as Int32Array)).toEqual([1, 0, 2]);
      expect(() => foldPartitions(Int32Array.of(0, 2), Int32Array.of(1, 1), bases, { engine })).toThrow(/stream index 2 has no base count/);
      expect(() => foldPartitions(Int32Array.of(0, -1), Int32Array.of(1, 1), bases, { engine })).toThrow(AssignorError);
      try {
        foldPartitions(Int32Array.of(0, 0, 1), Int32Array.of(1, 2, -5), bases, { engine });
        throw new Error('expected a throw');
      } catch (e) {
        expect((e as AssignorError).path).toBe('partitions[2]');
      }
      expect(() => foldPartitions(Int32Array.of(0), Int32Array.of(1), Int32Array.of(0), { engine })).toThrow(/base partition count/);
    });
  }
});
