// The shared option parser and input reader, called directly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { intOption, nearestOption, parse, readJsonInput, docPath } from '../../src/cli/args.js';
import { caught } from '../helpers.js';
import { existsSync } from 'node:fs';

const OPTIONS = {
  partitions: { type: 'string' },
  key: { type: 'string', multiple: true },
  topic: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

describe('parse', () => {
  it('reads --name value, --name=value, booleans, -h, repeated values and positionals after --', () => {
    const r = parse(['--partitions', '4', '--key=a', '--key', 'b', '--json', '-h', 'file', '--', '--json'], OPTIONS, true);
    expect(r.values).toEqual({ partitions: '4', key: ['a', 'b'], json: true, help: true });
    expect(r.positionals).toEqual(['file', '--json']);
  });

  it('the last of a repeated single-value option wins', () => {
    expect(parse(['--partitions', '4', '--partitions', '5'], OPTIONS).values.partitions).toBe('5');
  });

  it('takes values starting with - unless they are this command\'s own options', () => {
    expect(parse(['--topic', '-abc', '--key', '-x', '--key', '-', '--key', '--other'], OPTIONS).values).toEqual({ topic: '-abc', key: ['-x', '-', '--other'] });
    expect(caught(() => parse(['--key', '--json'], OPTIONS)).message).toBe('option --key needs a value, got the option --json (write --key=--json if that is the value)');
    expect(caught(() => parse(['--key', '-h'], OPTIONS)).message).toMatch(/got the option -h/);
    expect(parse(['--key=--json'], OPTIONS).values.key).toEqual(['--json']);
  });

  it('refuses unknown options in house style, with the nearest real one', () => {
    const e = caught(() => parse(['-p', '3'], OPTIONS));
    expect([e.code, e.message, e.path]).toEqual(['E_USAGE', 'unknown option -p (did you mean --partitions?)', '-p']);
    expect(caught(() => parse(['--partitons=3'], OPTIONS)).message).toBe('unknown option --partitons (did you mean --partitions?)');
    expect(caught(() => parse(['--zzz'], OPTIONS)).message).toBe('unknown option --zzz (options: --help, --json, --key, --partitions, --topic)');
    expect(caught(() => parse(['--__proto__'], OPTIONS)).message).toMatch(/^unknown option --__proto__ \(options: /);
    expect(caught(() => parse(['--constructor'], OPTIONS)).message).toMatch(/^unknown option --constructor/);
    expect(caught(() => parse([`--${'x'.repeat(100_000)}`], OPTIONS)).oneLine().length).toBeLessThan(300);
  });

  it('refuses positionals where there are none, and a value on a boolean', () => {
    expect(caught(() => parse(['x'], OPTIONS)).message).toBe('unexpected argument "x": this command takes options only');
    expect(caught(() => parse(['--json=1'], OPTIONS)).message).toBe('option --json takes no value, got "1"');
    expect(caught(() => parse(['--topic'], OPTIONS)).message).toBe('option --topic needs a value');
  });
});

describe('nearestOption', () => {
  const names = ['partitions', 'width', 'strategy', 'topic', 'emit', 'fixed-arity', 'allow-key-movement', 'engine', 'help'];
  it.each([
    ['-p', 'partitions'],
    ['--WIDTH', 'width'],
    ['--strat', 'strategy'],
    ['--fixed-arty', 'fixed-arity'],
    ['--allow-key-moves', 'allow-key-movement'],
    ['--enigne', 'engine'],
    ['-e', undefined], // emit or engine: no guess
    ['--xyzzy', undefined],
  ])('%s -> %s', (typed, want) => expect(nearestOption(typed, names)).toBe(want));
});

describe('intOption', () => {
  it('accepts decimal integers in range only, quoting what it got', () => {
    expect(intOption(' 12 ', '--n', 1, 100)).toBe(12);
    expect(caught(() => intOption('1e3', '--n', 1, 100)).message).toBe('--n must be an integer in [1, 100], got "1e3"');
    expect(caught(() => intOption('101', '--n', 1, 100)).message).toBe('--n must be an integer in [1, 100], got 101');
    expect(caught(() => intOption('9'.repeat(400), '--n', 1, 100)).message).toMatch(/got "9{78}"… \(400 characters\)$/);
    expect(caught(() => intOption('NaN', '--n', 1, 100)).code).toBe('E_USAGE');
  });
});

describe('readJsonInput', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assignor-args-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('reads a file, skips a BOM, and names the file in errors', () => {
    const good = join(dir, 'good.json');
    writeFileSync(good, '\ufeff{"a":[1]}');
    expect(readJsonInput(good, '--job')).toEqual({ a: [1] });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"a":');
    const e = caught(() => readJsonInput(bad, '--job'));
    expect([e.code, e.path]).toEqual(['E_JSON', 'line 1, column 6']);
    expect(e.message).toMatch(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not valid JSON: `));
    const missing = caught(() => readJsonInput(join(dir, 'nope.json'), '--job'));
    expect([missing.code, missing.message]).toEqual(['E_INPUT', `cannot read ${join(dir, 'nope.json')}: ENOENT`]);
    expect(caught(() => readJsonInput('', '--job')).message).toBe('--job needs a file name, or - for stdin, got an empty string');
  });

  it('parses input nested 100,000 levels deep (JSON.parse does not recurse)', () => {
    const p = join(dir, 'deep.json');
    writeFileSync(p, `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(Array.isArray(readJsonInput(p, 'x'))).toBe(true);
  });
});

describe('docPath', () => {
  it('resolves a page of the package docs from the CLI code, not from the current directory', () => {
    for (const page of ['formats.md', 'samza.md', 'channels.md', 'standby.md', 'store.md']) expect(existsSync(docPath(page)), page).toBe(true);
  });
});
