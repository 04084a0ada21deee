// Error codes are a closed, documented list, and error text stays one bounded
// line whatever the bad value looks like (huge, deeply nested, binary).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe as group, expect, it } from 'vitest';
import { AssignorError, ERROR_CODES, describe, requireInt, QUOTE_LIMIT, type ErrorCode } from '../../src/errors.js';
import { ROOT, caught } from '../helpers.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

group('error codes', () => {
  it('docs/formats.md documents exactly the codes in ERROR_CODES, one row each', () => {
    const doc = readFileSync(join(ROOT, 'docs/formats.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Error codes'));
    const documented = [...section.matchAll(/^\| `(E_[A-Z0-9_]+)` \| \S.*\|$/gm)].map((m) => m[1]);
    expect(documented).toEqual([...ERROR_CODES]);
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('every code written in src/ is in ERROR_CODES', () => {
    const known = new Set<string>(ERROR_CODES);
    const used = new Set<string>();
    for (const f of sourceFiles(join(ROOT, 'src')).filter((f) => !f.endsWith(join('src', 'errors.ts')))) {
      for (const m of readFileSync(f, 'utf8').matchAll(/'(E_[A-Z0-9_]*[A-Z0-9])'/g)) used.add(m[1]!);
    }
    expect([...used].filter((c) => !known.has(c))).toEqual([]);
    expect(used.size).toBeGreaterThan(40);
  });

  it('the compiler refuses a code that is not documented', () => {
    // `npm run typecheck` fails if this line ever compiles.
    // @ts-expect-error E_NOT_DOCUMENTED is not an ErrorCode
    const e = new AssignorError('E_NOT_DOCUMENTED', 'x');
    const code: ErrorCode = 'E_USAGE';
    expect([e.code, code]).toEqual(['E_NOT_DOCUMENTED', 'E_USAGE']);
  });
});

group('quoting bad values in errors', () => {
  it('quotes input nested 100,000 levels deep without recursion', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const q = describe(deep);
    expect(q).toBe(`${'['.repeat(QUOTE_LIMIT)}… (array of 1 item)`);
    const obj = JSON.parse(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`);
    expect(describe(obj)).toMatch(/^\{"a":\{"a":.*… \(object with 1 key\)$/);
    expect(caught(() => requireInt(deep, 0, 1, 'x')).message).toMatch(/^x must be an integer in \[0, 1\], got \[\[\[/);
  });

  it('clips a 5 MB string to about 80 characters with an ellipsis and the length', () => {
    const q = describe('x'.repeat(5_000_000));
    expect(q).toBe(`"${'x'.repeat(QUOTE_LIMIT - 2)}"… (5000000 characters)`);
    expect(describe('\u0001'.repeat(100)).length).toBeLessThan(QUOTE_LIMIT + 30);
    // A surrogate pair is never cut in two.
    expect(describe('🙂'.repeat(100))).toMatch(/^"(🙂)+"… \(200 characters\)$/);
  });

  it('shows short values exactly as JSON would, and what JSON cannot show as JS does', () => {
    expect(describe('a"b')).toBe('"a\\"b"');
    expect(describe({ a: 1, b: [1, 'x', { c: null }] })).toBe('{"a":1,"b":[1,"x",{"c":null}]}');
    expect(describe(JSON.parse('{"__proto__":{"constructor":1}}'))).toBe('{"__proto__":{"constructor":1}}');
    expect(describe([NaN, Infinity, undefined, 2n ** 64n])).toBe('[NaN,Infinity,null,18446744073709551616n]');
    expect([describe(undefined), describe(null), describe(1e309), describe(-0), describe(true)]).toEqual(['nothing', 'null', 'Infinity', '0', 'true']);
  });

  it('summarizes a huge object by its key count, reading only the keys it shows', () => {
    const big: Record<string, number> = {};
    for (let i = 0; i < 100_000; i++) big[`k${i}`] = i;
    expect(describe(big)).toMatch(/^\{"k0":0,"k1":1,.*… \(object with 100000 keys\)$/);
  });

  it('keeps an error line bounded and on one line whatever the message and path hold', () => {
    const line = new AssignorError('E_USAGE', `bad ${'y'.repeat(50_000)}\r\nend`, `p\n${'z'.repeat(10_000)}`).oneLine();
    expect(line.length).toBeLessThan(1100);
    expect(line).not.toMatch(/[\r\n]/);
    expect(line).toMatch(/^bad y+… \(\d+ characters\) …/);
  });
});
