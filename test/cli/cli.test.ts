// The CLI plumbing every command shares, run as a user would (the built binary):
// usage errors, options, the engine setting, stdin as `-`, help that names real
// files, and error lines that stay one bounded line.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, cli } from '../helpers.js';
import { partitionForKey } from '../../src/hashing/index.js';
import { itUnlessDeno } from '../support/runtime.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const tmp = mkdtempSync(join(tmpdir(), 'assignor-cli-'));
const file = (name: string, text: string): string => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const PLAN = file('plan.json', JSON.stringify({ channels: [[0, 1], [2, 3]] }));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Exit 2, exactly one line on stderr starting `assignor: `, no stack trace. */
function expectUsageError(r: ReturnType<typeof cli>, message: RegExp): void {
  expect(r.stderr).toMatch(message);
  expect(r.stderr.endsWith('\n')).toBe(true);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^assignor: /);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.status).toBe(2);
}

describe('a command line without its command is a usage error', () => {
  for (const [args, msg] of [
    [[], /^assignor: missing command: hash, samza, channels, standby/],
    [['samza'], /^assignor: samza needs a subcommand: plan, expansion, watch, import or export/],
    [['store'], /^assignor: store needs a subcommand: inspect, compact or export/],
    [['channels'], /^assignor: channels needs a (sub)?command: plan, validate, /],
  ] as Array<[string[], RegExp]>) {
    it(`assignor ${args.join(' ')}: exit 2, one line on stderr, nothing on stdout`, () => {
      const r = cli(args);
      expectUsageError(r, msg);
      expect(r.stdout).toBe('');
    });
  }

  for (const args of [['--help'], ['-h'], ['samza', '--help'], ['channels', '--help'], ['hash', '--help'], ['standby', '--help'], ['store', '--help']]) {
    it(`assignor ${args.join(' ')}: usage on stdout, exit 0`, () => {
      const r = cli(args);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^usage: assignor/);
      expect(r.stderr).toBe('');
    });
  }
});

describe('--version', () => {
  it('prints the package version for --version and -V', () => {
    for (const flag of ['--version', '-V']) {
      const r = cli([flag]);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${VERSION}\n`);
    }
  });
});

describe('options: house style for every command', () => {
  const commands: Array<[string, string[], RegExp]> = [
    ['hash', ['hash', '-p', '3'], /unknown option -p \(did you mean --partitions\?\)/],
    ['hash', ['hash', '--partitons', '3'], /unknown option --partitons \(did you mean --partitions\?\)/],
    ['hash', ['hash', '--partitions', '4', '--bogus'], /unknown option --bogus \(options: --engine, --help, --json, --key, --key-encoding, --no-progress, --partitions, --stats\)/],
    ['samza plan', ['samza', 'plan', '--jobs', 'x'], /unknown option --jobs \(did you mean --job\?\)/],
    ['samza expansion', ['samza', 'expansion', '-f', '2'], /unknown option -f \(did you mean --from\?\)/],
    ['channels plan', ['channels', 'plan', '-w', '3'], /unknown option -w \(did you mean --width\?\)/],
    ['channels validate', ['channels', 'validate', PLAN, '--Partitions', '4'], /unknown option --Partitions \(did you mean --partitions\?\)/],
    ['channels expand', ['channels', 'expand', PLAN, '--partition', '8'], /unknown option --partition \(did you mean --partitions\?\)/],
    ['standby', ['standby', '--inptu', 'x'], /unknown option --inptu \(did you mean --input\?\)/],
    ['top level', ['--verison'], /unknown option --verison \(did you mean --version\?\)/],
  ];
  for (const [name, args, msg] of commands) {
    it(`${name}: ${args.slice(-2).join(' ')}`, () => expectUsageError(cli(args), msg));
  }

  it('a boolean flag given a value, and a string option missing its value, are one-line errors', () => {
    expectUsageError(cli(['hash', '--partitions', '4', '--json=yes', '--key', 'a']), /option --json takes no value, got "yes"/);
    expectUsageError(cli(['hash', '--key', 'a', '--partitions']), /option --partitions needs a value \(at --partitions\)$/m);
    expectUsageError(cli(['hash', '--partitions', '--json']), /option --partitions needs a value, got the option --json \(write --partitions=--json if that is the value\)/);
    expectUsageError(cli(['hash', '--partitions', '4', 'stray']), /unexpected argument "stray"/);
  });

  it('takes option values that start with - (topic names, keys)', () => {
    const k = cli(['hash', '--partitions', '1000', '--key', '-x', '--key=--json', '--key', '-']);
    expect(k.status).toBe(0);
    expect(k.stdout).toBe(`${partitionForKey('-x', 1000)}\n${partitionForKey('--json', 1000)}\n${partitionForKey('-', 1000)}\n`);
    const t = cli(['channels', 'plan', '--partitions', '8', '--width', '2', '--strategy', 'flink', '--topic', '-abc']);
    expect(t.stderr).toBe('');
    expect(t.status).toBe(0);
    expect(JSON.parse(t.stdout).topic).toBe('-abc');
  });

  it('hex keys with characters that are not hex say so; an odd digit count says that', () => {
    expectUsageError(cli(['hash', '--partitions', '4', '--key-encoding', 'hex', '--key', 'zz']), /malformed hex key "zz" at --key #1: "z" is not a hex digit/);
    expectUsageError(cli(['hash', '--partitions', '4', '--key-encoding', 'hex'], '00\n0g\n'), /malformed hex key "0g" at line 2: "g" is not a hex digit/);
    expectUsageError(cli(['hash', '--partitions', '4', '--key-encoding', 'hex', '--key', 'abc']), /expected an even number of hex digits, got 3/);
  });
});

describe('ASSIGNOR_ENGINE', () => {
  it('sets the engine the CLI runs and reports', () => {
    const cluster = join(ROOT, 'examples/cluster.json');
    expect(JSON.parse(cli(['standby', '--input', cluster], undefined, { ASSIGNOR_ENGINE: 'reference' }).stdout).engine).toBe('reference');
    expect(JSON.parse(cli(['standby', '--input', cluster], undefined, { ASSIGNOR_ENGINE: 'wasm-scalar' }).stdout).engine).toBe('wasm-scalar');
    // --engine still wins over the variable.
    expect(JSON.parse(cli(['standby', '--input', cluster, '--engine', 'wasm-simd'], undefined, { ASSIGNOR_ENGINE: 'reference' }).stdout).engine).toBe('wasm-simd');
  });

  const commands = [
    ['hash', '--partitions', '4', '--key', 'a'],
    ['samza', 'plan', '--job', join(ROOT, 'examples/job.json')],
    ['channels', 'plan', '--partitions', '4', '--width', '2'],
    ['channels', 'validate', PLAN, '--partitions', '4'],
    ['standby', '--input', join(ROOT, 'examples/cluster.json')],
  ];
  for (const value of ['bogus', 'WASM', '__proto__', 'toString']) {
    it(`refuses ${JSON.stringify(value)} in every command with the list of valid engines`, () => {
      for (const args of commands) {
        const r = cli(args, undefined, { ASSIGNOR_ENGINE: value });
        expectUsageError(r, new RegExp(`unknown engine "${value}" in ASSIGNOR_ENGINE: expected one of wasm, reference, wasm-scalar, wasm-simd`));
        expect(r.stdout).toBe('');
      }
    });
  }

  it('refuses an unknown --engine with the list', () => {
    expectUsageError(cli(['hash', '--partitions', '4', '--key', 'a', '--engine', 'toString']), /--engine must be one of wasm, reference, wasm-scalar, wasm-simd, got "toString"/);
  });
});

describe('hash: the last line is a line like any other', () => {
  it('keeps a \\r at the end of input without \\n as part of the key', () => {
    const r = cli(['hash', '--partitions', '2147483647', '--json'], 'a\r');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ key: 'a\r', partition: 2027396860 });
  });

  itUnlessDeno('Deno 2.9 drops a trailing \\r from every command-line argument')('keeps a \\r at the end of a --key argument as part of the key', () => {
    expect(cli(['hash', '--partitions', '2147483647', '--key', 'a\r']).stdout).toBe('2027396860\n');
  });

  it('drops only a \\r right before \\n, on the last line too', () => {
    const r = cli(['hash', '--partitions', '1000', '--json'], 'a\r\nb\r\r\nc\r');
    expect(r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l).key)).toEqual(['a', 'b\r', 'c\r']);
    // Non-UTF-8 input takes the other path through the reader; same rule.
    const bin = cli(['hash', '--partitions', '1000'], Buffer.from([0xff, 0x0d, 0x0a, 0xff, 0x0d]));
    expect(bin.stdout).toBe(`${partitionForKey('\ufffd', 1000)}\n${partitionForKey('\ufffd\r', 1000)}\n`);
  });
});

describe('hash --stats streams its output', () => {
  it('writes 67,108,864 rows (more text than one JS string holds) in bounded memory', async () => {
    const n = 67_108_864;
    const child = spawn(process.execPath, [CLI, 'hash', '--partitions', String(n), '--stats', '--key', 'a'], { cwd: ROOT });
    let lines = 0;
    let head = '';
    let tail = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      if (head.length < 64) head += b.toString('latin1', 0, 64);
      for (let i = b.indexOf(0x0a); i !== -1; i = b.indexOf(0x0a, i + 1)) lines++;
      tail = (tail + b.toString('latin1', Math.max(0, b.length - 200))).slice(-200);
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(lines).toBe(n + 2);
    const p = partitionForKey('a', n);
    expect(head.startsWith(`partition\tkeys\n0\t${p === 0 ? 1 : 0}\n`)).toBe(true);
    expect(tail.endsWith(`${n - 1}\t${p === n - 1 ? 1 : 0}\nkeys 1, partitions ${n}, min 0, max 1, mean 0.00, skew (max/mean) ${n}.0000\n`)).toBe(true);
  }, 300_000);

  it('--stats --json is byte for byte JSON.stringify of the summary', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}`);
    const n = 200_003; // more than one piece of output
    const r = cli(['hash', '--partitions', String(n), '--stats', '--json'], keys.join('\n'));
    const counts = new Array<number>(n).fill(0);
    for (const k of keys) counts[partitionForKey(k, n)]!++;
    const max = counts.reduce((a, b) => Math.max(a, b), 0);
    expect(r.stdout).toBe(`${JSON.stringify({ keys: 5000, partitions: n, counts, min: 0, max, mean: 5000 / n, skew: max / (5000 / n) })}\n`);
    const text = cli(['hash', '--partitions', String(n), '--stats'], keys.join('\n')).stdout.split('\n');
    expect(text.length).toBe(n + 3);
    expect(text[1 + partitionForKey('k0', n)]).toMatch(/^\d+\t[1-9]\d*$/);
  });
});

describe('- means stdin for every file argument', () => {
  it('samza plan --job -, channels validate/expand -, standby --input -', () => {
    const job = readFileSync(join(ROOT, 'examples/job.json'), 'utf8');
    const byFile = cli(['samza', 'plan', '--job', join(ROOT, 'examples/job.json'), '--quiet']);
    const byStdin = cli(['samza', 'plan', '--job', '-', '--quiet'], job);
    expect(byStdin.status).toBe(0);
    expect(byStdin.stdout).toBe(byFile.stdout);
    const plan = readFileSync(PLAN, 'utf8');
    expect(cli(['channels', 'validate', '-', '--partitions', '4'], plan).stdout).toBe(cli(['channels', 'validate', PLAN, '--partitions', '4']).stdout);
    expect(cli(['channels', 'expand', '-', '--partitions', '8'], plan).stdout).toBe(cli(['channels', 'expand', PLAN, '--partitions', '8']).stdout);
    const cluster = readFileSync(join(ROOT, 'examples/cluster.json'), 'utf8');
    expect(cli(['standby', '--input', '-'], cluster).stdout).toBe(cli(['standby', '--input', join(ROOT, 'examples/cluster.json')]).stdout);
  });

  it('skips a UTF-8 byte-order mark; bad JSON on stdin is named as stdin', () => {
    const r = cli(['channels', 'validate', '-', '--partitions', '4'], `\ufeff${readFileSync(PLAN, 'utf8')}`);
    expect(r.status).toBe(0);
    expectUsageError(cli(['samza', 'plan', '--job', '-'], '{"config": '), /^assignor: stdin is not valid JSON: /);
  });
});

describe('help names only files the package ships', () => {
  it('every docs/ or examples/ path in every help text exists and is in package.json "files"', () => {
    const shipped = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    let seen = 0;
    for (const args of [['--help'], ['hash', '--help'], ['samza', '--help'], ['channels', '--help'], ['standby', '--help'], ['store', '--help']]) {
      const text = cli(args).stdout;
      for (const m of text.matchAll(/\S*\b(?:docs|examples)\/[\w.-]*\w/g)) {
        // Absolute (resolved from the installed package, see docPath) or relative to the package root.
        const path = m[0].replace(/^[(`'"]+/, '');
        const inPackage = path.startsWith('/') ? path.slice(ROOT.length).replace(/^\//, '') : path;
        expect(existsSync(join(ROOT, inPackage)), `${args.join(' ')}: ${path}`).toBe(true);
        expect(shipped.some((f) => inPackage === f || inPackage.startsWith(`${f}/`)), `${path} is not in package.json files`).toBe(true);
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(0);
    expect(cli(['samza', '--help']).stdout).toContain(join(ROOT, 'docs/samza.md'));
  });
});

describe('error lines stay one bounded line', () => {
  it('a 5 MB bad value is quoted in about 80 characters with its length', () => {
    const big = file('big-config.json', JSON.stringify({ config: { 'job.name': 'j', 'task.inputs': 'k.a' }, partitions: { 'k.a': 1 }, mapper: 'x'.repeat(5_000_000) }));
    const r = cli(['samza', 'plan', '--job', big]);
    expectUsageError(r, /mapper must be "base" or "samza", got "x{78}"… \(5000000 characters\)/);
    expect(r.stderr.length).toBeLessThan(300);
  });

  it('input nested 10,000 levels deep is refused in one line naming the path, not a stack overflow', () => {
    const deep = file('deep.json', `${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    expectUsageError(cli(['samza', 'plan', '--job', deep]), /job must be a JSON object, got \[{80}… \(array of 1 item\)/);
    const deepMapper = file('deep-mapper.json', `{"config":{},"mapper":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    expectUsageError(cli(['samza', 'plan', '--job', deepMapper]), /mapper must be "base" or "samza", got \[{80}… \(array of 1 item\) \(at mapper\)$/m);
  });
});

describe("'-' in an output or re-read argument (issue 8: '-' means stdin/stdout, or a clear refusal)", () => {
  it('samza export --out - writes the dump to stdout (no file named -)', () => {
    const store = join(tmp, 'export-store');
    const job = join(ROOT, 'examples/job.json');
    expect(cli(['samza', 'plan', '--job', job, '--store', store]).status).toBe(0);
    const r = cli(['samza', 'export', '--store', store, '--out', '-'], undefined, {});
    expect(r.status).toBe(0);
    expect(existsSync(join(ROOT, '-'))).toBe(false);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.parse(lines[0]!)).toHaveProperty('key');
  });

  it('standby --html - is refused: stdout carries the JSON', () => {
    expectUsageError(cli(['standby', '--input', join(ROOT, 'examples/cluster.json'), '--html', '-']), /--html needs a file name/);
    expect(existsSync(join(ROOT, '-'))).toBe(false);
  });

  it('samza watch --job - without --brokers is refused (the job file is re-read on every poll)', () => {
    const r = cli(['samza', 'watch', '--job', '-', '--store', join(tmp, 'watch-store')], readFileSync(join(ROOT, 'examples/job.json'), 'utf8'));
    expectUsageError(r, /--job - \(stdin\) needs --brokers/);
  });
});

describe('samza watch honours ASSIGNOR_ENGINE like every other command', () => {
  it('a bad ASSIGNOR_ENGINE is refused before anything is read or written', () => {
    const store = join(tmp, 'watch-engine-store');
    const r = cli(['samza', 'watch', '--job', join(ROOT, 'examples/job.json'), '--store', store], undefined, { ASSIGNOR_ENGINE: 'bogus' });
    expectUsageError(r, /ASSIGNOR_ENGINE/);
    expect(existsSync(store)).toBe(false);
  });
});
