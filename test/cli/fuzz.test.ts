// Fuzzing every CLI command with random and mutated input (issue 13, defect 9).
//
// Every command line ends in exit 0, 1 or 2, never prints a stack trace or an
// internal error, says what is wrong in exactly one stderr line when it exits 2,
// and finishes within a time limit. Inputs: valid command lines and documents
// mutated with wrong types, NaN/Infinity, 2^31, 2^53, 1e309, a BOM, binary
// garbage, 10,000-deep nesting, __proto__/constructor as names, 100,000-character
// strings and repeated flags. Commands are discovered from `assignor --help`, so
// a new command or option is fuzzed without editing this file.
//
// Most cases run in one worker process through runCli, the function the binary
// calls (test/cli/fuzz-worker.mjs; stdin is /dev/null there); a smaller share,
// including every case that feeds stdin, runs as real processes of the binary.
//
//   ASSIGNOR_FUZZ_RUNS=5000   cases in the worker (default 300; the spawned share grows with it)
//   ASSIGNOR_FUZZ_SEED=123    replay a run (the seed is printed on failure)
//   ASSIGNOR_FUZZ_TIME_LIMIT_MS=20000   per case, in the worker (spawned cases get 3x)
import { spawn, fork, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers.js';
import { planChannels } from '../../src/channels/plan.js';
import { planToJson } from '../../src/channels/json.js';

const RUNS = Number(process.env.ASSIGNOR_FUZZ_RUNS ?? 300);
const SPAWNED = Math.max(16, Math.round(RUNS / 15));
const SEED = process.env.ASSIGNOR_FUZZ_SEED !== undefined ? Number(process.env.ASSIGNOR_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const TIME_LIMIT_MS = Number(process.env.ASSIGNOR_FUZZ_TIME_LIMIT_MS ?? 20_000);
const WORKER = fileURLToPath(new URL('./fuzz-worker.mjs', import.meta.url));
const DEEP = 10_000;
const VERBOSE = process.env.ASSIGNOR_FUZZ_VERBOSE === '1';
// The current directory of every run: fuzzed option values become file names (--html, --store).
const SCRATCH = mkdtempSync(join(tmpdir(), 'assignor-fuzz-cwd-'));

// ---- what to fuzz: commands, subcommands and options, read from the help texts

interface CommandSpec {
  /** ['channels', 'validate'] */
  path: string[];
  /** Option names without dashes, from the help text. */
  options: string[];
  /** A command line that works, to mutate from (files as {file: kind} placeholders). */
  base: Arg[];
}
type Arg = string | { file: FileKind } | { store: true };
type FileKind = 'job' | 'cluster' | 'plan' | 'handPlan' | 'group';


function optionsIn(help: string): string[] {
  return [...new Set([...help.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!))].sort();
}

/** Working command lines for the commands we know; a command found only in --help starts from its bare name. */
const BASES = new Map<string, Arg[]>([
  ['hash', ['--partitions', '12', '--key', 'a', '--key', 'b']],
  ['samza plan', ['--job', { file: 'job' }]],
  ['samza expansion', ['--from', '4', '--to', '8']],
  ['channels plan', ['--partitions', '8', '--width', '3']],
  ['channels validate', [{ file: 'handPlan' }, '--partitions', '8']],
  ['channels expand', [{ file: 'plan' }, '--partitions', '16']],
  ['channels rewidth', [{ file: 'plan' }, '--width', '4']],
  ['standby', ['--input', { file: 'cluster' }]],
  ['group', ['--input', { file: 'group' }, '--protocol', 'consumer']],
  ['store inspect', ['--store', { store: true }]],
  ['store compact', ['--store', { store: true }]],
  ['store export', ['--store', { store: true }]],
]);

async function discover(worker: Worker): Promise<CommandSpec[]> {
  const helpOf = async (args: string[]): Promise<string> => (await worker.run([...args, '--help'], TIME_LIMIT_MS)).stdoutHead;
  const top = await helpOf([]);
  const commands = [...top.slice(top.indexOf('commands:')).matchAll(/^ {2}([a-z][a-z-]*) {2,}/gm)].map((m) => m[1]!);
  const specs: CommandSpec[] = [];
  for (const command of commands) {
    const help = await helpOf([command]);
    // Subcommands: `assignor channels <plan|validate|expand>` or lines `assignor samza plan ...`.
    const subs = new Set<string>();
    for (const m of help.matchAll(new RegExp(`assignor ${command} <([a-z|-]+)>`, 'g'))) for (const s of m[1]!.split('|')) subs.add(s);
    for (const m of help.matchAll(new RegExp(`assignor ${command} ([a-z][a-z-]*)`, 'g'))) subs.add(m[1]!);
    const paths = subs.size === 0 ? [[command]] : [...subs].sort().map((s) => [command, s]);
    for (const path of paths) {
      const options = optionsIn(subs.size === 0 ? help : `${help}\n${await helpOf(path)}`).filter((o) => o !== 'help');
      specs.push({ path, options, base: BASES.get(path.join(' ')) ?? [] });
    }
  }
  return specs;
}

// ---- values

const NUMBER_TEXTS = [
  '0', '1', '2', '3', '4', '7', '8', '12', '16', '100', '1000', '-1', '-0', '+5', ' 12', '12 ', '1.5', '1e3', '0x10', '012',
  '2147483647', '2147483648', '-2147483648', '4294967296', '67108865', '9007199254740992', '9007199254740993', '1e309', '-1e309',
  'NaN', 'Infinity', '-Infinity', '１２', '',
];
const LONG = 'x'.repeat(100_000);
const WORDS = [
  '-', '--', '-x', '-abc', '--json', '-h', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', LONG,
  '\ufeff', '\ufeff12', '\ud800', 'a\r', 'a\nb', '🙂', 'ß', 'null', 'true', '[]', '{}', 'wasm', 'WASM', 'reference',
  'wasm-simd', 'wasm-scalar', 'bogus', 'base', 'samza', 'flink', 'contiguous', 'round-robin', 'json', 'table', 'spl', 'kafka',
  'balanced', 'utf8', 'hex', 'base64', 'int32', 'int64', 'zz', '0g', 'orders', 'classic', 'consumer', 'uniform', 'sticky', '/nonexistent/file.json', '.', '/dev/null',
];
/** Argument text: no NUL (a process argument cannot hold one). */
const argText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NUMBER_TEXTS) },
  { weight: 4, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12, unit: 'binary' }).map((s) => s.replace(/\0/g, '')) },
  { weight: 1, arbitrary: fc.integer().map(String) },
);

// ---- documents: a valid one per kind, then mutated

const PLAN = planToJson(planChannels({ partitions: 8, width: 3, strategy: 'flink', topic: 't' })) as unknown;
const DOCS: Record<FileKind, unknown> = {
  job: JSON.parse(readFileSync(join(ROOT, 'examples/job.json'), 'utf8')),
  cluster: JSON.parse(readFileSync(join(ROOT, 'examples/cluster.json'), 'utf8')),
  plan: PLAN,
  handPlan: { channels: [[0, 1], [2, 3], [4, 5], [6, 7]] },
  group: JSON.parse(readFileSync(join(ROOT, 'examples/group.json'), 'utf8')),
};

// Values JSON.stringify cannot write (1e309, deep nesting) go in as marker strings, replaced in the text.
const MARK = '\u0001M:';
const SPECIAL_TEXT: Record<string, string> = {
  [`${MARK}1e309`]: '1e309',
  [`${MARK}-1e309`]: '-1e309',
  [`${MARK}deep`]: `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`,
  [`${MARK}deepObject`]: `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`,
  [`${MARK}2^53+1`]: '9007199254740993',
};
const withProto = JSON.parse('{"__proto__": {"constructor": 1}, "constructor": "x"}') as unknown;
const REPLACEMENTS: unknown[] = [
  ...Object.keys(SPECIAL_TEXT), 2 ** 31, 2 ** 31 - 1, -(2 ** 31), 2 ** 32, 2 ** 53, -1, 0, -0.5, 0.5, 1, 3, 1e20, null, true, false,
  '', '__proto__', 'constructor', 'toString', LONG, '\ud800', '\ufeff', '12', 'NaN', 'Infinity', [], {}, [[]], [0, 0, 0], [-1], withProto,
  Array.from({ length: 1000 }, (_, i) => i), ['__proto__', 'constructor'],
];

interface Mutation {
  path: number[];
  op: 'replace' | 'delete' | 'renameProto' | 'renameConstructor' | 'duplicate';
  value: number;
}
const mutation = fc.record({
  path: fc.array(fc.nat(), { maxLength: 6 }),
  op: fc.constantFrom<Mutation['op']>('replace', 'replace', 'replace', 'delete', 'renameProto', 'renameConstructor', 'duplicate'),
  value: fc.nat(),
});

/** Applies one mutation to a copy-on-write walk of the document: indices pick children modulo their count. */
function mutate(doc: unknown, m: Mutation): unknown {
  const root = { v: structuredClone(doc) };
  let parent: Record<string, unknown> | unknown[] = root as unknown as Record<string, unknown>;
  let key: string | number = 'v';
  for (const step of m.path) {
    const node: unknown = (parent as Record<string | number, unknown>)[key];
    if (node === null || typeof node !== 'object') break;
    const keys: Array<string | number> = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    parent = node as Record<string, unknown>;
    key = keys[step % keys.length]!;
  }
  const value = REPLACEMENTS[m.value % REPLACEMENTS.length];
  const p = parent as Record<string | number, unknown>;
  if (m.op === 'replace' || parent === (root as unknown)) p[key] = structuredClone(value);
  else if (m.op === 'delete') {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete p[key];
  } else if (m.op === 'duplicate') {
    if (Array.isArray(parent)) parent.push(structuredClone(parent[key as number]));
    else p[`${key}`] = p[key];
  } else if (!Array.isArray(parent)) {
    const name = m.op === 'renameProto' ? '__proto__' : 'constructor';
    const v = p[key];
    delete p[key];
    Object.defineProperty(p, name, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return root.v;
}

function documentText(doc: unknown): string {
  let text = JSON.stringify(doc) ?? 'null';
  for (const [mark, real] of Object.entries(SPECIAL_TEXT)) text = text.split(JSON.stringify(mark)).join(real);
  return text;
}

type Content = { kind: 'doc'; mutations: Mutation[]; bom: boolean; cut: number | null } | { kind: 'garbage'; bytes: Uint8Array } | { kind: 'deep' } | { kind: 'empty' };
const content: fc.Arbitrary<Content> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('doc' as const),
      mutations: fc.oneof(fc.constant<Mutation[]>([]), fc.array(mutation, { minLength: 1, maxLength: 3 })),
      bom: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      cut: fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('garbage' as const), bytes: fc.uint8Array({ maxLength: 300 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'deep' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'empty' as const }) },
);

function render(kind: FileKind, c: Content): Buffer {
  if (c.kind === 'garbage') return Buffer.from(c.bytes);
  if (c.kind === 'empty') return Buffer.alloc(0);
  if (c.kind === 'deep') return Buffer.from(SPECIAL_TEXT[`${MARK}deep`]!);
  let doc = DOCS[kind];
  for (const m of c.mutations) doc = mutate(doc, m);
  let text = documentText(doc);
  if (c.cut !== null) text = text.slice(0, c.cut % (text.length + 1));
  return Buffer.from(c.bom ? `\ufeff${text}` : text);
}

// ---- command lines: a working base, then mutations of its arguments

type Edit =
  | { op: 'value'; at: number; text: string }
  | { op: 'drop'; at: number }
  | { op: 'repeat'; at: number }
  | { op: 'option'; at: number; name: number; text: string; inline: boolean }
  | { op: 'bogus'; at: number; text: string }
  | { op: 'file'; at: number; kind: FileKind }
  | { op: 'store'; at: number };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('value' as const), at: fc.nat(), text: argText }),
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('repeat' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('option' as const), at: fc.nat(), name: fc.nat(), text: argText, inline: fc.boolean() }),
  fc.record({ op: fc.constant('option' as const), at: fc.nat(), name: fc.nat(), text: argText, inline: fc.boolean() }),
  fc.record({ op: fc.constant('bogus' as const), at: fc.nat(), text: fc.constantFrom('-p', '--bogus', '-', '--', '-V', '--version', '--help=1', '--json=x', 'extra', '--__proto__', '--constructor') }),
  fc.record({ op: fc.constant('file' as const), at: fc.nat(), kind: fc.constantFrom<FileKind>('job', 'cluster', 'plan', 'handPlan', 'group') }),
  fc.record({ op: fc.constant('store' as const), at: fc.nat() }),
);

function applyEdits(spec: CommandSpec, edits: Edit[]): Arg[] {
  const args: Arg[] = [...spec.base];
  for (const e of edits) {
    const at = args.length === 0 ? 0 : e.at % (args.length + 1);
    switch (e.op) {
      case 'value':
        if (args.length > 0) args[Math.min(at, args.length - 1)] = e.text;
        break;
      case 'drop':
        if (args.length > 0) args.splice(Math.min(at, args.length - 1), 1);
        break;
      case 'repeat': {
        // Repeat an option with its value (a repeated flag).
        const i = args.findIndex((a, j) => j >= at % Math.max(1, args.length) && typeof a === 'string' && a.startsWith('--'));
        if (i !== -1) args.push(...args.slice(i, i + 2));
        break;
      }
      case 'option': {
        if (spec.options.length === 0) break;
        const name = `--${spec.options[e.name % spec.options.length]}`;
        args.splice(at, 0, ...(e.inline ? [`${name}=${e.text}`] : [name, e.text]));
        break;
      }
      case 'bogus':
        args.splice(at, 0, e.text);
        break;
      case 'file':
        args.splice(at, 0, { file: e.kind });
        break;
      case 'store':
        args.splice(at, 0, '--store', { store: true });
        break;
    }
  }
  return args;
}

// A coordinator store directory: the log a real `samza plan --store` wrote, with bytes flipped or cut off,
// or garbage, or no log at all.
type StoreContent = { kind: 'log'; flips: Array<[number, number]>; cut: number | null } | { kind: 'garbage'; bytes: Uint8Array } | { kind: 'none' };
const storeContent: fc.Arbitrary<StoreContent> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('log' as const), flips: fc.oneof(fc.constant<Array<[number, number]>>([]), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 3 })), cut: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('garbage' as const), bytes: fc.uint8Array({ maxLength: 300 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
);

/** The log of a store written by `samza plan --store` from examples/job.json (made once per run). */
let storeTemplate = Buffer.alloc(0);

function renderStore(c: StoreContent, dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (c.kind === 'none') return;
  let log = c.kind === 'garbage' ? Buffer.from(c.bytes) : Buffer.from(storeTemplate);
  if (c.kind === 'log') {
    for (const [at, byte] of c.flips) if (log.length > 0) log[at % log.length] = byte;
    if (c.cut !== null) log = log.subarray(0, c.cut % (log.length + 1));
  }
  writeFileSync(join(dir, 'coordinator.log'), log);
}

interface Case {
  command: string[];
  args: Arg[];
  files: Map<FileKind, Content>;
  store: StoreContent;
  stdin: Uint8Array | null;
}

function caseArbitrary(specs: CommandSpec[], withStdin: boolean): fc.Arbitrary<Case> {
  const top: CommandSpec = { path: [], options: ['help', 'version'], base: [] };
  const spec = fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...specs) }, { weight: 1, arbitrary: fc.constant(top) });
  const stdin = withStdin
    ? fc.oneof(
        fc.uint8Array({ maxLength: 2000 }),
        fc.array(fc.constantFrom('a', 'a\r', '\r', '', '🙂', '\ufeffk', '0g', 'ff', '-1', '2147483648', LONG, '\ud800'), { maxLength: 50 }).map((l) => new TextEncoder().encode(l.join('\n'))),
        fc.constant(new TextEncoder().encode(SPECIAL_TEXT[`${MARK}deep`]!)),
      )
    : fc.constant(null);
  return fc
    .record({
      spec,
      edits: fc.oneof({ weight: 3, arbitrary: fc.constant<Edit[]>([]) }, { weight: 3, arbitrary: fc.array(edit, { minLength: 1, maxLength: 1 }) }, { weight: 2, arbitrary: fc.array(edit, { maxLength: 4 }) }),
      job: content,
      cluster: content,
      plan: content,
      handPlan: content,
      group: content,
      stdin,
      dashFile: fc.boolean(),
      store: storeContent,
    })
    .map((r) => {
      let args = applyEdits(r.spec, r.edits);
      // With stdin, some file arguments become `-` and read the document from stdin instead.
      let stdinBytes: Uint8Array | null = r.stdin;
      if (withStdin && r.dashFile) {
        const i = args.findIndex((a) => typeof a !== 'string' && 'file' in a);
        if (i !== -1) {
          const kind = (args[i] as { file: FileKind }).file;
          stdinBytes = render(kind, r[kind]);
          args = args.map((a, j) => (j === i ? '-' : a));
        }
      }
      return {
        command: r.spec.path,
        args,
        files: new Map<FileKind, Content>([['job', r.job], ['cluster', r.cluster], ['plan', r.plan], ['handPlan', r.handPlan], ['group', r.group]]),
        store: r.store,
        stdin: stdinBytes,
      };
    });
}

/** Writes the case's files into a fresh directory; returns the argv with their paths. */
function materialize(c: Case, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const written = new Map<FileKind, string>();
  const argv = [...c.command];
  for (const a of c.args) {
    if (typeof a === 'string') {
      argv.push(a);
      continue;
    }
    if ('store' in a) {
      const store = join(dir, 'store');
      renderStore(c.store, store);
      argv.push(store);
      continue;
    }
    let path = written.get(a.file);
    if (path === undefined) {
      path = join(dir, `${a.file}.json`);
      writeFileSync(path, render(a.file, c.files.get(a.file)!));
      written.set(a.file, path);
    }
    argv.push(path);
  }
  return argv;
}

// ---- running and judging

interface Outcome {
  code: number | null;
  signal?: string | null;
  stderr: string;
  stdoutHead: string;
  ms: number;
  timedOut: boolean;
  escaped: string[];
}

function problems(o: Outcome, limitMs: number): string[] {
  const p: string[] = [];
  if (o.timedOut) p.push(`did not finish within ${limitMs} ms`);
  else if (o.code !== 0 && o.code !== 1 && o.code !== 2) p.push(`exit ${o.code}${o.signal ? ` (${o.signal})` : ''}`);
  if (/^\s+at .+[:(]\d+:\d+\)?$/m.test(o.stderr) || /\bat .+\.(m?js|ts):\d+:\d+/.test(o.stderr)) p.push('stack trace on stderr');
  if (/internal error|FATAL ERROR|Maximum call stack|Invalid string length|heap out of memory/i.test(o.stderr)) p.push('internal error on stderr');
  if (o.code === 2) {
    const lines = o.stderr.split('\n');
    if (!(lines.length === 2 && lines[1] === '' && lines[0]!.startsWith('assignor: '))) p.push(`exit 2 without exactly one "assignor: ..." line on stderr (${lines.length - 1} lines)`);
  }
  for (const e of o.escaped) p.push(`escaped the command: ${e.split('\n')[0]}`);
  return p;
}

class Worker {
  private proc: ChildProcess | null = null;
  private next = 0;

  private async start(): Promise<ChildProcess> {
    const proc = fork(WORKER, [], { cwd: SCRATCH, execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, ASSIGNOR_DEBUG: '' } });
    // Anything the worker prints outside a case (it should print nothing) shows in the test output.
    proc.stdout!.on('data', (b: Buffer) => process.stdout.write(`[fuzz worker stdout] ${b}`));
    proc.stderr!.on('data', (b: Buffer) => process.stdout.write(`[fuzz worker stderr] ${b}`));
    await new Promise<void>((resolve, reject) => {
      proc.once('message', () => resolve());
      proc.once('exit', (code) => reject(new Error(`fuzz worker exited (${code}) before it was ready`)));
    });
    return proc;
  }

  async run(argv: string[], limitMs: number): Promise<Outcome & { died: boolean }> {
    this.proc ??= await this.start();
    const proc = this.proc;
    const id = this.next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        cleanup();
        this.kill();
        resolve({ code: null, stderr: '', stdoutHead: '', ms: limitMs, timedOut: true, escaped: [], died: false });
      }, limitMs);
      const onMessage = (m: { id: number; code: number; ms: number; stderr: string; stdoutHead: string; escaped: string[]; stdinOk: boolean }): void => {
        if (m.id !== id) return;
        cleanup();
        // A case that closed the worker's stdin (hash reading it to the end) would leak into the next one.
        if (!m.stdinOk) this.kill();
        resolve({ code: m.code, stderr: m.stderr, stdoutHead: m.stdoutHead, ms: m.ms, timedOut: false, escaped: m.escaped, died: false });
      };
      const onExit = (code: number | null, signal: string | null): void => {
        cleanup();
        this.proc = null;
        resolve({ code, signal, stderr: '', stdoutHead: '', ms: 0, timedOut: false, escaped: [], died: true });
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        proc.off('message', onMessage);
        proc.off('exit', onExit);
      };
      proc.on('message', onMessage);
      proc.on('exit', onExit);
      proc.send({ id, argv });
    });
  }

  kill(): void {
    this.proc?.kill('SIGKILL');
    this.proc = null;
  }
}

/** The binary, as a user runs it. */
function runSpawned(argv: string[], stdin: Uint8Array | null, limitMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...argv], { cwd: SCRATCH, env: { ...process.env, ASSIGNOR_DEBUG: '' } });
    let stderr = '';
    let stdoutHead = '';
    let timedOut = false;
    child.stdout.on('data', (b: Buffer) => {
      if (stdoutHead.length < 4096) stdoutHead += b.toString('utf8', 0, 4096);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.length < 1 << 20) stderr += b.toString();
    });
    child.stdin.on('error', () => {}); // the command may exit before reading its input
    child.stdin.end(stdin ?? undefined);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr, stdoutHead, ms: performance.now() - started, timedOut, escaped: [] });
    });
  });
}

function shellQuote(a: string): string {
  const shown = a.length > 200 ? `${a.slice(0, 60)}…(${a.length} chars)` : a;
  return /^[\w@%+=:,./-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
}

interface Failure {
  where: 'worker' | 'spawned';
  argv: string[];
  dir: string;
  problems: string[];
  stderr: string;
}

describe('fuzzing every command', () => {
  afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

  it(`${RUNS} cases in one process through runCli, ${SPAWNED} as real processes (seed ${SEED})`, async () => {
    const t0 = performance.now();
    const worker = new Worker();
    const specs = await discover(worker);
    const templateDir = mkdtempSync(join(tmpdir(), 'assignor-fuzz-store-'));
    const made = await worker.run(['samza', 'plan', '--job', join(ROOT, 'examples/job.json'), '--store', templateDir, '--quiet'], TIME_LIMIT_MS);
    expect(made.code, made.stderr).toBe(0);
    storeTemplate = readFileSync(join(templateDir, 'coordinator.log'));
    const tDiscovered = performance.now();
    expect(specs.map((s) => s.path.join(' '))).toEqual(expect.arrayContaining(['hash', 'samza plan', 'samza expansion', 'channels plan', 'channels validate', 'channels expand', 'standby']));
    const root = mkdtempSync(join(tmpdir(), 'assignor-fuzz-'));
    const failures: Failure[] = [];
    // Failures are also appended here as they happen, for long runs.
    const record = (f: Failure): void => {
      failures.push(f);
      appendFileSync(join(root, 'failures.txt'), `${JSON.stringify(f)}\n`);
    };
    const codes = new Map<string, number>();
    const tally = (c: number | null): void => void codes.set(String(c), (codes.get(String(c)) ?? 0) + 1);

    const inProcess = fc.sample(caseArbitrary(specs, false), { numRuns: RUNS, seed: SEED });
    try {
      for (let i = 0; i < inProcess.length; i++) {
        const dir = join(root, `w${i}`);
        const argv = materialize(inProcess[i]!, dir);
        let o: Outcome = await worker.run(argv, TIME_LIMIT_MS);
        // The worker died (a V8 abort, a process.exit): replay the case as the real binary to see what a user sees.
        if ((o as Outcome & { died: boolean }).died) o = await runSpawned(argv, null, TIME_LIMIT_MS * 3);
        tally(o.code);
        if (VERBOSE) console.log(`${o.code} ${o.ms.toFixed(0)}ms ${argv.map(shellQuote).join(' ').slice(0, 150)} :: ${o.stderr.split('\n')[0]!.slice(0, 150)}`);
        const p = problems(o, TIME_LIMIT_MS);
        if (p.length > 0) record({ where: 'worker', argv, dir, problems: p, stderr: o.stderr.slice(0, 500) });
      }
    } finally {
      worker.kill();
    }

    const tWorker = performance.now();
    const spawned = fc.sample(caseArbitrary(specs, true), { numRuns: SPAWNED, seed: SEED + 1 });
    const limit = TIME_LIMIT_MS * 3;
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < spawned.length) {
        const i = next++;
        const c = spawned[i]!;
        const dir = join(root, `s${i}`);
        const argv = materialize(c, dir);
        if (c.stdin !== null) writeFileSync(join(dir, 'stdin'), c.stdin);
        const o = await runSpawned(argv, c.stdin, limit);
        tally(o.code);
        const p = problems(o, limit);
        if (p.length > 0) record({ where: 'spawned', argv, dir, problems: p, stderr: o.stderr.slice(0, 500) });
      }
    };
    await Promise.all([lane(), lane()]);

    const report = failures.map((f) => `- ${f.problems.join('; ')}\n  assignor ${f.argv.map(shellQuote).join(' ')}${f.where === 'spawned' ? ` < ${join(f.dir, 'stdin')}` : ''}\n  files: ${f.dir}\n  stderr: ${JSON.stringify(f.stderr)}`).join('\n');
    const secs = (a: number, b: number): string => `${((b - a) / 1000).toFixed(1)} s`;
    const summary =
      `seed ${SEED}; exit codes ${JSON.stringify(Object.fromEntries([...codes].sort()))}; commands: ${specs.map((s) => s.path.join(' ')).join(', ')}; ` +
      `discovery ${secs(t0, tDiscovered)}, worker ${secs(tDiscovered, tWorker)}, spawned ${secs(tWorker, performance.now())}`;
    console.log(`fuzz: ${summary}`);
    expect(failures.length, `${failures.length} failing cases (${summary}); replay with ASSIGNOR_FUZZ_SEED=${SEED}\n${report}`).toBe(0);
    // Reproducers are kept only when something failed.
    for (const d of [root, templateDir]) rmSync(d, { recursive: true, force: true });
    // The run reached past argument parsing: some cases succeeded and some were refused.
    expect(codes.get('0') ?? 0, summary).toBeGreaterThan(0);
    expect(codes.get('2') ?? 0, summary).toBeGreaterThan(0);
  }, Math.max(600_000, (RUNS + SPAWNED * 20) * 500));

  it('10,000-deep nesting, 1e309 and a __proto__ object at every position of every input document', async () => {
    // Where the random cases may miss a spot, this walks every node of each document.
    const commands: Array<[FileKind, (file: string) => string[]]> = [
      ['job', (f) => ['samza', 'plan', '--job', f]],
      ['cluster', (f) => ['standby', '--input', f]],
      ['handPlan', (f) => ['channels', 'validate', f, '--partitions', '8']],
      ['plan', (f) => ['channels', 'expand', f, '--partitions', '16']],
      ['group', (f) => ['group', '--input', f, '--protocol', 'consumer']],
    ];
    const root = mkdtempSync(join(tmpdir(), 'assignor-fuzz-sweep-'));
    const worker = new Worker();
    const failures: string[] = [];
    let cases = 0;
    try {
      for (const [kind, argv] of commands) {
        for (const path of nodePaths(DOCS[kind])) {
          for (const value of [`${MARK}deep`, `${MARK}deepObject`, `${MARK}1e309`, withProto]) {
            const file = join(root, `${cases++}.json`);
            writeFileSync(file, documentText(replaceAt(DOCS[kind], path, value)));
            const o = await worker.run(argv(file), TIME_LIMIT_MS);
            const p = problems(o, TIME_LIMIT_MS);
            if (p.length > 0) failures.push(`${p.join('; ')}: assignor ${argv(file).join(' ')} (${kind} at ${JSON.stringify(path)}): ${o.stderr.slice(0, 200)}`);
          }
        }
      }
    } finally {
      worker.kill();
    }
    expect(cases).toBeGreaterThan(200);
    expect(failures, failures.join('\n')).toEqual([]);
    rmSync(root, { recursive: true, force: true });
  }, 600_000);
});

/** The path (keys and indices) of every node of a JSON document, the root included. */
function nodePaths(doc: unknown): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [];
  const stack: Array<{ v: unknown; path: Array<string | number> }> = [{ v: doc, path: [] }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    out.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, path: [...path, i] }));
    else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) stack.push({ v: (v as Record<string, unknown>)[k], path: [...path, k] });
  }
  return out;
}

function replaceAt(doc: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}
