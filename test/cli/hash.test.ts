// `assignor hash` run as a user would: the built binary, keys on stdin or --key.
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';
import { partitionsForKeys, partitionForKey, toPositive } from '../../src/hashing/index.js';

describe('assignor hash', () => {
  it('hashes --key arguments, one partition per line', () => {
    const r = cli(['hash', '--partitions', '12', '--key', '100:48069', '--key', 'foobar']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`9\n${toPositive(-790332482) % 12}\n`);
  });

  it('reads stdin one key per line: CRLF, empty lines, no final newline', () => {
    const r = cli(['hash', '--partitions', '1000'], 'foobar\r\n\nabc');
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n').slice(0, -1).map(Number)).toEqual([
      toPositive(-790332482) % 1000,
      toPositive(275646681) % 1000,
      toPositive(479470107) % 1000,
    ]);
  });

  it('streams 300,000 keys across many read chunks with the same answers as the API', () => {
    const keys = Array.from({ length: 300_000 }, (_, i) => (i % 7 === 0 ? `ключ-${i}-🙂` : `user-${i}`));
    const r = cli(['hash', '--partitions', '97'], `${keys.join('\n')}\n`);
    expect(r.status).toBe(0);
    const got = Int32Array.from(r.stdout.trimEnd().split('\n').map(Number));
    expect(got).toEqual(partitionsForKeys(keys, 97));
  });

  it('hashes non-UTF-8 input lines as Java would hash the decoded string', () => {
    const r = cli(['hash', '--partitions', '1000'], Buffer.from([0x61, 0xff, 0x0a]));
    expect(r.status).toBe(0);
    expect(Number(r.stdout)).toBe(partitionForKey('a\ufffd', 1000));
  });

  it('--json prints one object per key', () => {
    const r = cli(['hash', '--partitions', '12', '--json'], '100:48069\n"quoted"\n');
    expect(r.status).toBe(0);
    expect(r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([
      { key: '100:48069', partition: 9 },
      { key: '"quoted"', partition: partitionForKey('"quoted"', 12) },
    ]);
  });

  it('--stats counts keys per partition and reports the skew', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `k${i}`);
    const r = cli(['hash', '--partitions', '8', '--stats', '--json'], keys.join('\n'));
    expect(r.status).toBe(0);
    const s = JSON.parse(r.stdout);
    const want = new Array(8).fill(0);
    for (const p of partitionsForKeys(keys, 8)) want[p]++;
    expect(s.counts).toEqual(want);
    expect(s.keys).toBe(10_000);
    expect(s.skew).toBeCloseTo(Math.max(...want) / (10_000 / 8), 10);
    const text = cli(['hash', '--partitions', '8', '--stats'], keys.join('\n'));
    expect(text.stdout).toMatch(/skew \(max\/mean\) \d\.\d{4}/);
  });

  it('decodes hex, base64, int32 and int64 keys', () => {
    const hex = cli(['hash', '--partitions', '1000', '--key-encoding', 'hex'], '616263\n\n');
    expect(hex.stdout).toBe(`${toPositive(479470107) % 1000}\n${toPositive(275646681) % 1000}\n`);
    const b64 = cli(['hash', '--partitions', '1000', '--key-encoding', 'base64', '--key', 'YWJj']);
    expect(b64.stdout).toBe(`${toPositive(479470107) % 1000}\n`);
    const i32 = cli(['hash', '--partitions', '1000', '--key-encoding', 'int32'], '1\n-1\n');
    expect(i32.stdout).toBe(`${partitionForKey(new Uint8Array([0, 0, 0, 1]), 1000)}\n${partitionForKey(new Uint8Array([255, 255, 255, 255]), 1000)}\n`);
    const i64 = cli(['hash', '--partitions', '1000', '--key-encoding', 'int64', '--key', '1']);
    expect(i64.stdout).toBe(`${partitionForKey(new Uint8Array([0, 0, 0, 0, 0, 0, 0, 1]), 1000)}\n`);
  });

  it('gives the same answers on the reference engine', () => {
    const input = Array.from({ length: 5000 }, (_, i) => `key-${i}`).join('\n');
    const a = cli(['hash', '--partitions', '31'], input);
    const b = cli(['hash', '--partitions', '31', '--engine', 'reference'], input);
    const c = cli(['hash', '--partitions', '31'], input, { ASSIGNOR_ENGINE: 'wasm-scalar' });
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toBe(c.stdout);
  });

  describe('bad input: exit 2 with one line naming the problem', () => {
    const cases: Array<[string, string[], string | undefined, RegExp]> = [
      ['non-integer partitions', ['hash', '--partitions', 'x'], '', /--partitions must be an integer in \[1, 2147483647\], got "x"/],
      ['zero partitions', ['hash', '--partitions', '0'], '', /--partitions must be an integer/],
      ['too many partitions', ['hash', '--partitions', '2147483648'], '', /--partitions must be an integer/],
      ['missing partitions', ['hash'], '', /--partitions is required/],
      ['malformed hex on line 3', ['hash', '--partitions', '4', '--key-encoding', 'hex'], '00\nff\nabc\n', /malformed hex key "abc" at line 3/],
      ['bad int32 on line 2', ['hash', '--partitions', '4', '--key-encoding', 'int32'], '1\n2147483648\n', /line 2/],
      ['unknown encoding', ['hash', '--partitions', '4', '--key-encoding', 'utf16'], '', /--key-encoding must be one of/],
      ['unknown option', ['hash', '--partitions', '4', '--bogus'], '', /unknown option --bogus \(options: /],
      ['unknown command', ['nope'], '', /unknown command "nope"/],
    ];
    for (const [name, args, input, msg] of cases) {
      it(name, () => {
        const r = cli(args, input);
        expect(r.status).toBe(2);
        expect(r.stderr).toMatch(msg);
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      });
    }
  });
});
