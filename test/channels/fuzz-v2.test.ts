// A hostile user's fuzz of version-2 channel plans (issue 34): seeded random plans written with runs
// of idle channels as one entry (`{"channel", "lastChannel", "partitions": []}`), each channel as an
// object, a bare array or SPL text, then bent: ids out of range (2^31 and beyond included), repeats,
// a partition on two channels, a partition left out, runs that do not start where they stand.
// validate, expand and rewidth must end in a result or an AssignorError (0 crashes) in time (0
// hangs), and every result is checked against an oracle written here from the channel lists: the
// findings, the place of the first out-of-range id as written, the expansion's fold, and a balanced
// rewidth that moves nothing from a balanced custom plan.
//
//   default: 150 plans;  ASSIGNOR_LONG=1: 5,000 plans;  ASSIGNOR_FUZZ_SEED=<n> replays a run
import { describe, expect, it } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import { channelPartitions, expandPlan, rewidthPlan, validatePlan, type ChannelPlan } from '../../src/channels/index.js';
import { random } from '../group/random-groups.js';

const LONG = Boolean(Number(process.env.ASSIGNOR_LONG ?? 0));
const CASES = LONG ? 5000 : 150;
const SEED = process.env.ASSIGNOR_FUZZ_SEED !== undefined ? Number(process.env.ASSIGNOR_FUZZ_SEED) : 34_2026;
const HANG_MS = 5000;

type R = (n: number) => number;

/** A plan as lists per channel (the truth the oracle reads) and as written (runs folded, mixed forms). */
interface Case {
  n: number;
  lists: number[][];
  written: unknown[];
  /** Entry index of each channel as written. */
  entryOf: number[];
}

const WIDE = [2147483647, 2147483648, 4294967296, -1, -2147483649];

/** Random lists: each partition on one channel (a random layout, with idle runs), then bent. */
function listsOf(r: R, n: number, w: number): number[][] {
  const lists: number[][] = Array.from({ length: w }, () => []);
  // Few busy channels now and then, so runs of idle channels are common.
  const busy = r(2) === 0 ? Math.max(1, r(w)) : w;
  for (let p = 0; p < n; p++) lists[r(busy) * Math.floor(w / busy) + 0]!.push(p);
  const bends = r(3);
  for (let i = 0; i < bends; i++) {
    const c = r(w);
    const kind = r(4);
    if (kind === 0) lists[c]!.push(r(2) === 0 ? n + r(5) : WIDE[r(WIDE.length)]!); // out of range
    else if (kind === 1 && n > 0) lists[c]!.push(r(n)); // duplicate (maybe a repeat on the same channel)
    else if (kind === 2) for (const l of lists) l.splice(0, r(2)); // some partitions left out
    else lists[c]!.reverse();
  }
  return lists;
}

/** The lists as a version-2 file: runs of 2+ idle channels as one entry; others in a random form. */
function write(r: R, lists: number[][]): { written: unknown[]; entryOf: number[] } {
  const written: unknown[] = [];
  const entryOf: number[] = [];
  for (let c = 0; c < lists.length; c++) {
    let last = c;
    while (lists[c]!.length === 0 && last + 1 < lists.length && lists[last + 1]!.length === 0) last++;
    if (last > c && r(5) !== 0) {
      for (let k = c; k <= last; k++) entryOf[k] = written.length;
      written.push({ channel: c, lastChannel: last, partitions: [] });
      c = last;
      continue;
    }
    entryOf[c] = written.length;
    const l = lists[c]!;
    const form = r(4);
    const wide = l.some((p) => p < -2147483648 || p > 2147483647);
    if (form === 0 && !wide) written.push(`partition: ${l.join(', ')};`);
    else if (form === 1) written.push(l);
    else if (form === 2) written.push({ channel: c, partitions: l });
    else written.push({ partitions: l });
  }
  return { written, entryOf };
}

function caseOf(r: R): Case {
  const n = 1 + r(r(4) === 0 ? 300 : 24);
  const w = 1 + r(r(3) === 0 ? 2 * n + 10 : n + 2);
  const lists = listsOf(r, n, w);
  return { n, lists, ...write(r, lists) };
}

/** What validate must find, from the lists alone. */
function findingsOracle(c: Case, n: number) {
  const seen = new Map<number, number[]>();
  const outOfRange: { channel: number; index: number; partition: number }[] = [];
  c.lists.forEach((l, ch) =>
    l.forEach((p, i) => {
      if (p < 0 || p >= n) outOfRange.push({ channel: ch, index: i, partition: p });
      else if (!(seen.get(p) ?? []).includes(ch)) seen.set(p, [...(seen.get(p) ?? []), ch]);
    }),
  );
  const missing = Array.from({ length: n }, (_, p) => p).filter((p) => !seen.has(p));
  const duplicated = [...seen].filter(([, chs]) => chs.length > 1).sort((a, b) => a[0] - b[0]).map(([partition, channels]) => ({ partition, channels }));
  const idleChannels = c.lists.map((l, ch) => (l.some((p) => p >= 0 && p < n) ? -1 : ch)).filter((ch) => ch >= 0);
  return { sound: missing.length === 0 && duplicated.length === 0 && outOfRange.length === 0, missing, duplicated, outOfRange, idleChannels };
}

const lists = (plan: ChannelPlan): number[][] => Array.from({ length: plan.width }, (_, c) => Array.from(channelPartitions(plan, c)));

/** Channel of every partition of a plan; -1 when none, -2 when two. */
function channelOf(plan: ChannelPlan): number[] {
  const out = new Array<number>(plan.partitions).fill(-1);
  lists(plan).forEach((l, c) => l.forEach((p) => (out[p] = out[p] === -1 ? c : -2)));
  return out;
}

function checkValidate(c: Case, file: object): boolean {
  const report = validatePlan(file as never, c.n);
  const want = findingsOracle(c, c.n);
  expect({ sound: report.sound, missing: report.missing, duplicated: report.duplicated, outOfRange: report.outOfRange, idleChannels: report.idleChannels }).toEqual(want);
  const first = want.outOfRange[0];
  if (first !== undefined) expect(report.summary).toContain(`(e.g. ${first.partition} at channels[${c.entryOf[first.channel]}].partitions[${first.index}])`);
  return report.sound;
}

function checkExpand(c: Case, file: object, r: R): void {
  const to = c.n * (1 + r(3));
  const x = expandPlan(file as never, to);
  expect(x.keepsEveryKey).toBe(true);
  const before = channelOf(x.plan).slice(0, c.n);
  const after = channelOf(x.plan);
  const truth = findingsOracle(c, c.n);
  expect(truth.sound).toBe(true);
  for (let q = 0; q < to; q++) expect(after[q]).toBe(before[q % c.n]);
  c.lists.forEach((l, ch) => l.forEach((p) => expect(after[p]).toBe(ch)));
  if (x.plan.width <= to) expect(x.plan.warnings.join(' ')).not.toMatch(/is more than the/);
}

function checkRewidth(c: Case, file: object, r: R): void {
  const w2 = r(2) === 0 ? c.lists.length : 1 + r(c.n + 3);
  const x = rewidthPlan(file as never, w2);
  const got = channelOf(x.plan);
  expect(got.every((ch) => ch >= 0 && ch < w2)).toBe(true);
  const sizes = lists(x.plan).map((l) => l.length);
  expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  const balanced = c.lists.map((l) => new Set(l).size);
  const wasBalanced = Math.max(...balanced) - Math.min(...balanced) <= 1;
  if (w2 === c.lists.length && wasBalanced) expect(x.moved.partitions.length).toBe(0);
  const was = new Map<number, number>();
  c.lists.forEach((l, ch) => l.forEach((p) => was.set(p, ch))); // sound: one channel per partition (repeats on it allowed)
  let moved = 0;
  for (const [p, ch] of was) moved += got[p] === ch ? 0 : 1;
  expect(x.moved.partitions.length).toBe(moved);
}

describe(`version-2 channel plan fuzz (${CASES} plans, seed ${SEED}${LONG ? ', long mode' : ''})`, () => {
  it('validate, expand and rewidth end in a result or an AssignorError, in time; every result passes the oracle', () => {
    const r = random(SEED + 1);
    const counts = { plans: 0, validated: 0, sound: 0, expanded: 0, rewidthed: 0, refusals: 0, crashes: 0, hangs: 0 };
    for (let i = 0; i < CASES; i++) {
      const c = caseOf(r);
      const file = { partitions: c.n, version: 2, channels: c.written };
      const run = c.written.findIndex((e) => typeof e === 'object' && e !== null && 'lastChannel' in e);
      if (run >= 0 && r(8) === 0) {
        // A run that does not start where it stands: refused, naming the entry as written.
        const bent = { ...file, channels: c.written.map((e, k) => (k === run ? { ...(e as object), channel: (e as { channel: number }).channel + 1 } : e)) };
        const e = (() => {
          try {
            validatePlan(bent as never, c.n);
          } catch (err) {
            return err;
          }
          return undefined;
        })();
        expect(e instanceof AssignorError && e.code === 'E_PLAN' && e.path === `channels[${run}].channel`).toBe(true);
        counts.refusals++;
      }
      const steps: [keyof typeof counts, (() => void) | (() => boolean)][] = [
        ['validated', () => checkValidate(c, file)],
        ['expanded', () => checkExpand(c, file, r)],
        ['rewidthed', () => checkRewidth(c, file, r)],
      ];
      let sound = true;
      for (const [name, step] of steps) {
        if (name !== 'validated' && !sound) {
          // An unsound plan must be refused, naming the first out-of-range id where the file has it.
          const first = findingsOracle(c, c.n).outOfRange[0];
          const e = (() => {
            try {
              (name === 'expanded' ? () => expandPlan(file as never, 2 * c.n) : () => rewidthPlan(file as never, 2))();
            } catch (err) {
              return err;
            }
            return undefined;
          })();
          expect(e instanceof AssignorError && e.code === 'E_UNSOUND_PLAN').toBe(true);
          if (first !== undefined) expect((e as AssignorError).message).toContain(`at channels[${c.entryOf[first.channel]}].partitions[${first.index}]`);
          counts.refusals++;
          continue;
        }
        const t0 = performance.now();
        try {
          const out = step();
          if (name === 'validated') sound = out === true;
          counts[name]++;
        } catch (e) {
          if (!(e instanceof AssignorError)) {
            counts.crashes++;
            throw new Error(`plan ${i} (seed ${SEED}), ${name}: ${(e as Error).stack}\n${JSON.stringify(file).slice(0, 2000)}`);
          }
          throw new Error(`plan ${i} (seed ${SEED}), ${name}: refused a plan the oracle accepts: ${e.oneLine()}\n${JSON.stringify(file).slice(0, 2000)}`);
        }
        const ms = performance.now() - t0;
        if (ms > HANG_MS) counts.hangs++;
      }
      if (sound) counts.sound++;
      counts.plans++;
    }
    console.log(`channel plan fuzz: ${JSON.stringify(counts)}`);
    expect([counts.crashes, counts.hangs]).toEqual([0, 0]);
    expect(counts.sound).toBeGreaterThan(CASES / 5);
    expect(counts.plans - counts.sound).toBeGreaterThan(CASES / 5);
  }, LONG ? 1_800_000 : 60_000);
});
