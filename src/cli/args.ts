// Small shared helpers for the CLI commands: strict option parsing with errors
// that name the option (and the nearest real one), integer/enum checks that say
// what was expected, the engine option, and JSON input from a file or stdin.
import { readSync, readFileSync } from 'node:fs';
import { constants as bufferConstants } from 'node:buffer';
import { fileURLToPath } from 'node:url';
import { AssignorError, describe } from '../errors.js';
import { ENGINE_CHOICES, loadKernels, type EngineChoice } from '../engine/kernels.js';
import { jsonError } from './json-text.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
}
export type Options = Record<string, OptionSpec>;
/** The parsed values, typed from the spec: strings, booleans, or arrays of them with `multiple`. */
export type Values<T extends Options> = {
  [K in keyof T]?: T[K]['type'] extends 'boolean'
    ? T[K]['multiple'] extends true ? boolean[] : boolean
    : T[K]['multiple'] extends true ? string[] : string;
};

/**
 * Parses `argv` against `options`: `--name value`, `--name=value`, boolean
 * `--flag`, the declared one-letter `-h`, and `--` before positionals. The
 * last of repeated single-value options wins.
 *
 * A value may start with `-` (Kafka topic names and keys can): the argument
 * after a string option is its value unless it is itself one of the command's
 * options, which almost always means the value was forgotten; `--key=--json`
 * then passes such a value. Every error is one E_USAGE line in house style:
 * `unknown option -p (did you mean --partitions?)`.
 */
export function parse<T extends Options>(argv: string[], options: T, allowPositionals = false): { values: Values<T>; positionals: string[] } {
  const values = new Map<string, string | boolean | Array<string | boolean>>();
  const positionals: string[] = [];
  const spec = (name: string): OptionSpec | undefined => (Object.hasOwn(options, name) ? options[name] : undefined);
  const shortName = (letter: string): string | undefined => Object.keys(options).find((k) => options[k]!.short === letter);
  const isOwnOption = (arg: string): boolean => {
    if (arg.startsWith('--')) return spec(arg.slice(2).split('=', 1)[0]!) !== undefined;
    return arg.length === 2 && arg[0] === '-' && shortName(arg[1]!) !== undefined;
  };
  const set = (name: string, s: OptionSpec, v: string | boolean): void => {
    if (!s.multiple) values.set(name, v);
    else {
      const list = (values.get(name) as Array<string | boolean> | undefined) ?? [];
      list.push(v);
      values.set(name, list);
    }
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
      if (spec(name) === undefined) throw unknownOption(eq === -1 ? arg : arg.slice(0, eq), Object.keys(options));
    } else if (arg.startsWith('-') && arg !== '-') {
      name = arg.length === 2 ? shortName(arg[1]!) : undefined;
      if (name === undefined) throw unknownOption(arg, Object.keys(options));
    } else {
      positionals.push(arg);
      continue;
    }
    const s = spec(name)!;
    const flag = `--${name}`;
    if (s.type === 'boolean') {
      if (inline !== undefined) throw new AssignorError('E_USAGE', `option ${flag} takes no value, got ${describe(inline)}`, flag);
      set(name, s, true);
    } else if (inline !== undefined) {
      set(name, s, inline);
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new AssignorError('E_USAGE', `option ${flag} needs a value`, flag);
      if (isOwnOption(next)) {
        throw new AssignorError('E_USAGE', `option ${flag} needs a value, got the option ${showFlag(next)} (write ${flag}=${showFlag(next)} if that is the value)`, flag);
      }
      set(name, s, next);
      i++;
    }
  }
  if (!allowPositionals && positionals.length > 0) {
    throw new AssignorError('E_USAGE', `unexpected argument ${describe(positionals[0])}: this command takes options only`);
  }
  return { values: Object.fromEntries(values) as Values<T>, positionals };
}

/** `unknown option -p (did you mean --partitions?)`, or the list of options when none is near. */
export function unknownOption(typed: string, names: readonly string[]): AssignorError {
  const near = nearestOption(typed, names);
  const hint = near !== undefined ? `did you mean --${near}?` : `options: ${[...names].sort().map((n) => `--${n}`).join(', ')}`;
  return new AssignorError('E_USAGE', `unknown option ${showFlag(typed)} (${hint})`, showFlag(typed));
}

/** An option as typed, bare when it is short and printable, else quoted and clipped. */
function showFlag(arg: string): string {
  return arg.length <= 40 && /^[\x21-\x7e]+$/.test(arg) ? arg : describe(arg);
}

/**
 * The option the user most likely meant: same name in another case, the only
 * option starting with a one-letter short flag (`-p`), the only option the typed
 * text is a prefix of, or the closest by edit distance when close enough.
 */
export function nearestOption(typed: string, names: readonly string[]): string | undefined {
  const t = typed.replace(/^-+/, '').toLowerCase();
  if (t === '' || t.length > 100) return undefined;
  const exact = names.find((n) => n.toLowerCase() === t);
  if (exact !== undefined) return exact;
  const prefixed = names.filter((n) => n.toLowerCase().startsWith(t));
  if (prefixed.length === 1) return prefixed[0];
  if (t.length === 1) return undefined;
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(t.length / 3)) + 1; // closer than this, or no hint
  for (const n of [...names].sort()) {
    const d = editDistance(t, n.toLowerCase());
    if (d < bestDistance) {
      best = n;
      bestDistance = d;
    }
  }
  return best;
}

/** Edit distance counting a swap of two neighbours as one edit (`inptu` is 1 from `input`). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** Parses a decimal integer option in [min, max]; `name` is the flag as the user typed it. */
export function intOption(value: string | undefined, name: string, min: number, max: number): number {
  if (value === undefined) throw new AssignorError('E_USAGE', `${name} is required`, name);
  const text = value.trim();
  if (!/^[+-]?\d+$/.test(text)) {
    throw new AssignorError('E_USAGE', `${name} must be an integer in [${min}, ${max}], got ${describe(value)}`, name);
  }
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new AssignorError('E_USAGE', `${name} must be an integer in [${min}, ${max}], got ${text.length <= 40 ? text : describe(text)}`, name);
  }
  return n;
}

export function choiceOption<T extends string>(value: string | undefined, name: string, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new AssignorError('E_USAGE', `${name} must be one of ${choices.join(', ')}, got ${describe(value)}`, name);
}

/**
 * The `--engine` option. Undefined when not given, so the API's default applies
 * (ASSIGNOR_ENGINE, else WASM) and reports say which engine really ran. Checks
 * the choice up front, so an unknown ASSIGNOR_ENGINE or a runtime without SIMD
 * is refused (exit 2, with the valid names) before any input is read.
 */
export function engineOption(value: string | undefined): EngineChoice | undefined {
  if (value !== undefined && !(ENGINE_CHOICES as readonly string[]).includes(value)) {
    throw new AssignorError('E_ENGINE', `--engine must be one of ${ENGINE_CHOICES.join(', ')}, got ${describe(value)}`, '--engine');
  }
  const engine = value as EngineChoice | undefined;
  loadKernels(engine === undefined ? {} : { engine });
  return engine;
}

/** For `assignor samza` with nothing after it: one usage line, exit 2. */
export function missingSubcommand(command: string, subcommands: readonly string[]): never {
  const list = subcommands.length > 1 ? `${subcommands.slice(0, -1).join(', ')} or ${subcommands.at(-1)}` : subcommands.join('');
  throw new AssignorError('E_USAGE', `${command} needs a subcommand: ${list} (see assignor ${command} --help)`);
}

/**
 * The absolute path of a page in the package's docs/ folder, resolved from this
 * file's own location (dist/cli/ or src/cli/), so help text names a file that
 * exists wherever the package is installed, whatever the current directory.
 */
export function docPath(page: string): string {
  return fileURLToPath(new URL(`../../docs/${page}`, import.meta.url));
}

/**
 * Reads and parses JSON input from a file, or from stdin when `source` is `-`.
 * `option` names the option or argument in errors (`--job`, `PLAN.json`). A
 * UTF-8 byte-order mark is skipped. Errors name the file, and the line and
 * column of the first character that is not JSON (json-text.ts).
 */
export function readJsonInput(source: string, option: string): unknown {
  return parseJsonInput(readInput(source, option), source, option);
}

/** The bytes of a file, or of stdin for `-` (readJsonInput's first half, with its errors). */
function readInput(source: string, option: string): Buffer {
  if (source === '') throw new AssignorError('E_USAGE', `${option} needs a file name, or - for stdin, got an empty string`, option);
  try {
    return source === '-' ? readStdin() : readFileSync(source);
  } catch (e) {
    const name = source === '-' ? 'stdin' : source;
    throw new AssignorError('E_INPUT', `cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, source === '-' ? option : source);
  }
}

/** Bytes read by readInput as JSON (readJsonInput's second half, with its errors): a UTF-8 BOM is skipped. */
function parseJsonInput(bytes: Buffer, source: string, option: string): unknown {
  const name = source === '-' ? 'stdin' : source;
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (bytes.length - start > bufferConstants.MAX_STRING_LENGTH) {
    throw new AssignorError('E_INPUT', `${name} is ${bytes.length} bytes, more than the ${bufferConstants.MAX_STRING_LENGTH} a JSON input can be`, option);
  }
  // The BOM is skipped here already, from the bytes: columns on line 1 count it as one character.
  try {
    return JSON.parse(bytes.toString('utf8', start));
  } catch {
    throw jsonError(bytes.toString('utf8', start), name, start === 0 ? 0 : 1);
  }
}

/** Reads and parses a JSON file (`-` reads stdin); errors name the file. */
export function readJsonFile(path: string): unknown {
  return readJsonInput(path, path === '-' ? 'stdin' : path === '' ? 'the input file' : path);
}

/** All of stdin, also when it is a non-blocking pipe (readFileSync(0) then fails with EAGAIN). */
export function readStdin(): Buffer {
  const chunks: Buffer[] = [];
  let chunk = Buffer.allocUnsafe(1 << 16);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, chunk, 0, chunk.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      if ((e as NodeJS.ErrnoException).code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
    if (n === chunk.length) chunk = Buffer.allocUnsafe(Math.min(chunk.length * 2, 1 << 24));
    else chunk = chunk.subarray(n);
  }
  return Buffer.concat(chunks);
}
