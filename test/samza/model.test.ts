import { describe, expect, it } from 'vitest';
import { compareSsp, parseSystemStream, ssp, sspToString } from '../../src/samza/model.js';
import { SamzaError } from '../../src/samza/errors.js';
import { byCodeUnits } from '../../src/basics.js';

describe('SystemStreamPartition', () => {
  it('toString has no key bucket when the bucket is -1, and shows it otherwise', () => {
    expect(sspToString(ssp('kafka', 'topic', 0))).toBe('SystemStreamPartition [kafka, topic, 0]');
    expect(sspToString(ssp('kafka', 'topic', 0, 1))).toBe('SystemStreamPartition [kafka, topic, 0, 1]');
  });

  it('orders by system, stream, partition, then key bucket', () => {
    const list = [ssp('b', 'a', 0), ssp('a', 'b', 0), ssp('a', 'a', 10), ssp('a', 'a', 2, 1), ssp('a', 'a', 2), ssp('a', 'a', 2, 0)];
    expect(list.sort(compareSsp).map(sspToString)).toEqual([
      'SystemStreamPartition [a, a, 2]',
      'SystemStreamPartition [a, a, 2, 0]',
      'SystemStreamPartition [a, a, 2, 1]',
      'SystemStreamPartition [a, a, 10]',
      'SystemStreamPartition [a, b, 0]',
      'SystemStreamPartition [b, a, 0]',
    ]);
  });

  it('compares strings by UTF-16 code units like Java (so "Partition 10" < "Partition 2", and surrogates sort below U+FFFF)', () => {
    expect(byCodeUnits('Partition 10', 'Partition 2')).toBeLessThan(0);
    expect(byCodeUnits('\u{1F600}', '\uFFFF')).toBeLessThan(0);
    expect(byCodeUnits('Z', 'a')).toBeLessThan(0);
  });
});

describe('stream names', () => {
  it('split at the first dot', () => {
    expect(parseSystemStream('kafka.foo.bar')).toEqual({ system: 'kafka', stream: 'foo.bar' });
  });

  it('without a dot throw Samza\'s IllegalArgumentException text', () => {
    try {
      parseSystemStream('nodot');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SamzaError);
      expect((e as SamzaError).samzaType).toBe('IllegalArgumentException');
      expect((e as Error).message).toBe("No '.' in stream name 'nodot'. Stream names should be in the form 'system.stream'");
    }
  });
});
