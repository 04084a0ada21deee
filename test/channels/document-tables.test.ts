// Issue 25: every layout the IBM Streams "Assigned Partitions" document shows
// must come out as the document writes it, through the built CLI, with and
// without --fixed-arity. --fixed-arity pads only when the channels' lists differ
// in length (the document's `4, 4` for five partitions), plus the document's
// `0, 0`: its 2-to-1 form evaluated for a one-partition topic. A 1-to-1 layout
// stays `getChannel()` / `0`. Each @parallel form is also evaluated per channel,
// without collapsing repeats, and compared with the document's table.
import { describe, expect, it } from 'vitest';
import { compileSpl } from '../../src/channels/spl-eval.js';
import { cli } from '../helpers.js';

function spl(partitions: number, width: number, ...more: string[]): string {
  const r = cli(['channels', 'plan', '--partitions', String(partitions), '--width', String(width), '--topic', 'myTopic', '--emit', 'spl', ...more]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** The `partition:` expressions of the @parallel consumer (plain form). */
function parallelItems(text: string): string[] {
  const at = text.indexOf('@parallel (width');
  expect(at).toBeGreaterThanOrEqual(0);
  return splitTop(/\n\s+partition: (.*);/.exec(text.slice(at))![1]!);
}

/** The `partitionK:` values of the composite's @parallel invocation. */
function compositeItems(text: string): string[] {
  const at = text.indexOf('@parallel (width');
  const body = text.slice(at, text.indexOf('config placement', at));
  const one = /\n\s+partition: (.*);/.exec(body);
  if (one !== null) return [one[1]!];
  return [...body.matchAll(/\n\s+partition\d+: (.*);/g)].map((m) => m[1]!);
}

function splitTop(line: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    if ('[('.includes(line[i]!)) depth++;
    else if ('])'.includes(line[i]!)) depth--;
    else if (line[i] === ',' && depth === 0) {
      out.push(line.slice(start, i).trim());
      start = i + 1;
    }
  }
  return [...out, line.slice(start).trim()];
}

/** The document's table: `partition: ...;` of each manual consumer, as written. */
function manualTable(text: string): string[] {
  const manual = text.slice(text.indexOf('// Manual invocation'));
  return [...manual.matchAll(/\n\s+partition: (.*);/g)].map((m) => `partition: ${m[1]!};`);
}

/** What each channel's @parallel entries evaluate to, repeats kept, as `partition: a, b;`. */
function evaluatedTable(items: string[], width: number, n: number): string[] {
  const fs = items.map((t) => compileSpl(t));
  return Array.from({ length: width }, (_, c) => `partition: ${fs.map((f) => f({ channel: c, width, nPartitions: n })).join(', ')};`);
}

describe("the document's layouts, exactly as written (issue 25)", () => {
  for (const fixed of [[], ['--fixed-arity']]) {
    const label = fixed.length > 0 ? 'with --fixed-arity' : 'without --fixed-arity';

    it(`3 partitions on 3 channels, 1-to-1, ${label}: partition: getChannel(); and partition: 0;`, () => {
      const text = spl(3, 3, ...fixed);
      expect(text).toContain('        partition: getChannel();\n');
      expect(parallelItems(text)).toEqual(['getChannel()']);
      expect(manualTable(text)).toEqual(['partition: 0;', 'partition: 1;', 'partition: 2;']);
      expect(text).not.toContain('padded');
    });

    it(`3 partitions on 3 channels as the document's composites, ${label}: SinglePartitionConsumer with partition: getChannel();`, () => {
      const text = spl(3, 3, '--composite', ...fixed);
      expect(text).toContain('public composite SinglePartitionConsumer {');
      expect(text).toContain('    expression <int32> $partition;\n');
      expect(text).toContain('            partition: $partition;\n');
      expect(text).toContain('    () as PartitionChannel = SinglePartitionConsumer() {');
      expect(compositeItems(text)).toEqual(['getChannel()']);
      expect(text).not.toContain('TwoPartitionConsumer');
    });

    it(`6 partitions on 3 channels, 2-to-1, ${label}: the document's table 0, 1 / 2, 3 / 4, 5`, () => {
      const text = spl(6, 3, ...fixed);
      const table = ['partition: 0, 1;', 'partition: 2, 3;', 'partition: 4, 5;'];
      expect(manualTable(text)).toEqual(table);
      expect(parallelItems(text)).toEqual(['getChannel() * 2', 'getChannel() * 2 + 1']);
      expect(evaluatedTable(parallelItems(text), 3, 6)).toEqual(table);
      const composite = spl(6, 3, '--composite', ...fixed);
      expect(composite).toContain('public composite TwoPartitionConsumer {');
      expect(evaluatedTable(compositeItems(composite), 3, 6)).toEqual(table);
    });

    it(`5 partitions on 3 channels, 2-to-1, ${label}: the @parallel form gives the document's 4, 4`, () => {
      const text = spl(5, 3, ...fixed);
      const table = ['partition: 0, 1;', 'partition: 2, 3;', 'partition: 4, 4;'];
      const items = parallelItems(text);
      expect(items).toEqual(['getChannel() * 2', 'getChannel() * 2 + ((getChannel() * 2 + 1) > 4 ? 0 : 1)']);
      expect(evaluatedTable(items, 3, 5)).toEqual(table);
      // The manual lists are padded only under --fixed-arity (the lists differ in length).
      expect(manualTable(text)).toEqual(fixed.length > 0 ? table : ['partition: 0, 1;', 'partition: 2, 3;', 'partition: 4;']);
      const composite = spl(5, 3, '--composite', ...fixed);
      expect(evaluatedTable(compositeItems(composite), 3, 5)).toEqual(table);
      expect(composite).toContain('    () as Channel2 = TwoPartitionConsumer() {\n        param\n            topic: "myTopic";\n            partition1: 4;\n            partition2: 4;');
    });

    it(`the 2-to-1 form of a one-partition topic, ${label}: 0, 0 only with --fixed-arity`, () => {
      const text = spl(1, 1, ...fixed);
      const want = fixed.length > 0 ? ['partition: 0, 0;'] : ['partition: 0;'];
      expect(manualTable(text)).toEqual(want);
      expect(evaluatedTable(parallelItems(text), 1, 1)).toEqual(want);
    });
  }

  it('--fixed-arity leaves every even layout unpadded and pads uneven ones to the longest list only', () => {
    for (const [n, w] of [[3, 3], [6, 3], [12, 4], [8, 8], [2, 2], [10, 5]] as const) {
      expect(spl(n, w, '--fixed-arity'), `${n} on ${w}`).toBe(spl(n, w));
    }
    const uneven = manualTable(spl(7, 3, '--fixed-arity'));
    expect(uneven).toEqual(['partition: 0, 1, 2;', 'partition: 3, 4, 3;', 'partition: 5, 6, 5;']);
    // One partition on more channels than partitions is still the one-partition topic.
    expect(manualTable(spl(1, 2, '--fixed-arity'))).toEqual(['partition: 0, 0;']);
  });
});
