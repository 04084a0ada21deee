// Kafka's published murmur2 vectors, KafkaJS's Java-generated set, and strings
// encoded by the JDK itself (test/fixtures/java-vectors.json, made by
// JavaVectors.java), on every engine.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { engines } from '../helpers.js';
import {
  javaUtf8Bytes,
  murmur2,
  murmur2Batch,
  partitionForInt32,
  partitionForInt64,
  partitionForKey,
  partitionsForKeys,
  toPositive,
} from '../../src/hashing/index.js';

const KAFKA: Array<[string, number]> = [
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
  ['abc', 479470107],
  ['', 275646681],
];

// kafkajs src/producer/partitioners/default/murmur2.spec.js (generated with Java).
const KAFKAJS: Array<[string, number]> = [
  ['0', 971027396], ['1', -1993445489], ['128', -326012175], ['2187', -1508407203],
  ['16384', -325739742], ['78125', -1654490814], ['279936', 1462227128], ['823543', -2014198330],
  ['2097152', 607668903], ['4782969', -1182699775], ['10000000', -1830336757], ['19487171', -1603849305],
  ['35831808', -857013643], ['62748517', -1167431028], ['105413504', -381294639], ['170859375', -1658323481],
  ['100:48069', 1009543857],
];

interface JavaVector { units: number[]; utf8: string; murmur2: number }
const JAVA: JavaVector[] = JSON.parse(readFileSync(new URL('../fixtures/java-vectors.json', import.meta.url), 'utf8'));
const str = (v: JavaVector) => String.fromCharCode(...v.units);

describe.each(engines().map((k) => [k.name, k] as const))('engine %s', (_name, k) => {
  const opts = { engine: k.name };

  it("reproduces Kafka's UtilsTest murmur2 vectors and the empty key", () => {
    for (const [key, h] of KAFKA) expect(murmur2(key, opts)).toBe(h);
    expect(murmur2(new Uint8Array([0x61, 0x62, 0x63]), opts)).toBe(479470107);
    expect(murmur2(new Uint8Array(0), opts)).toBe(275646681);
  });

  it("reproduces KafkaJS's Java-generated vectors (single and batch)", () => {
    for (const [key, h] of KAFKAJS) expect(murmur2(key, opts)).toBe(h);
    expect(Array.from(murmur2Batch(KAFKAJS.map(([key]) => key), opts))).toEqual(KAFKAJS.map(([, h]) => h));
  });

  it('puts key 100:48069 on partition 9 of 12, as Java does (KafkaJS issue #357)', () => {
    expect(partitionForKey('100:48069', 12, opts)).toBe(9);
    expect(partitionsForKeys(['100:48069'], 12, opts)[0]).toBe(9);
  });

  it('matches the JDK: String.getBytes(UTF_8) bytes and murmur2, lone surrogates included', () => {
    for (const v of JAVA) {
      const s = str(v);
      expect(Buffer.from(javaUtf8Bytes(s)).toString('hex')).toBe(v.utf8);
      expect(murmur2(s, opts)).toBe(v.murmur2);
    }
    const batch = murmur2Batch(JAVA.map(str), opts);
    expect(Array.from(batch)).toEqual(JAVA.map((v) => v.murmur2));
    const parts = partitionsForKeys(JAVA.map(str), 1000, opts);
    expect(Array.from(parts)).toEqual(JAVA.map((v) => toPositive(v.murmur2) % 1000));
  });

  it('gives null keys no partition and hashes empty keys', () => {
    expect(partitionForKey(null, 7, opts)).toBe(-1);
    expect(partitionForKey(undefined, 7, opts)).toBe(-1);
    expect(partitionForKey('', 7, opts)).toBe(toPositive(275646681) % 7);
    const r = partitionsForKeys([null, '', 'foobar', null, new Uint8Array([0x61, 0x62, 0x63])], 7, opts);
    expect(Array.from(r)).toEqual([-1, toPositive(275646681) % 7, toPositive(-790332482) % 7, -1, toPositive(479470107) % 7]);
  });

  it('hashes int32/int64 keys as IntegerSerializer/LongSerializer bytes (big-endian)', () => {
    // 1 as int32 is 00 00 00 01; as int64 00..01.
    expect(partitionForInt32(1, 1000, opts)).toBe(partitionForKey(new Uint8Array([0, 0, 0, 1]), 1000, opts));
    expect(partitionForInt64(1n, 1000, opts)).toBe(partitionForKey(new Uint8Array([0, 0, 0, 0, 0, 0, 0, 1]), 1000, opts));
    expect(partitionForInt32(-1, 1000, opts)).toBe(partitionForKey(new Uint8Array([255, 255, 255, 255]), 1000, opts));
  });

  it('uses toPositive, not Math.abs, and the full 2^31-1 range of partition counts', () => {
    expect(toPositive(-973932308)).toBe(1173551340);
    expect(toPositive(-2147483648)).toBe(0);
    expect(toPositive(-1)).toBe(2147483647);
    expect(partitionForKey('21', 2147483647, opts)).toBe(1173551340);
    expect(partitionForKey('21', 1, opts)).toBe(0);
  });
});

describe('a port with the legacy KafkaJS bugs would fail these vectors', () => {
  it('"0" must not hash to the legacy partitioner value 272173970', () => {
    expect(murmur2('0')).not.toBe(272173970);
    expect(murmur2('0')).toBe(971027396);
  });
});
