// Small shared helpers for the CLI commands: strict option parsing with errors
// that name the option, and integer/enum checks that say what was expected.
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { AssignorError } from '../errors.js';

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

export function parse<T extends Options>(argv: string[], options: T, allowPositionals = false): { values: Values<T>; positionals: string[] } {
  try {
    const r = parseArgs({ args: argv, options, strict: true, allowPositionals });
    return { values: r.values as Values<T>, positionals: r.positionals };
  } catch (e) {
    throw new AssignorError('E_USAGE', (e as Error).message.split('\n')[0]!);
  }
}

/** Parses a decimal integer option in [min, max]; `name` is the flag as the user typed it. */
export function intOption(value: string | undefined, name: string, min: number, max: number): number {
  if (value === undefined) throw new AssignorError('E_USAGE', `${name} is required`, name);
  if (!/^[+-]?\d+$/.test(value.trim())) {
    throw new AssignorError('E_USAGE', `${name} must be an integer in [${min}, ${max}], got ${JSON.stringify(value)}`, name);
  }
  const n = Number(value.trim());
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new AssignorError('E_USAGE', `${name} must be an integer in [${min}, ${max}], got ${value}`, name);
  }
  return n;
}

export function choiceOption<T extends string>(value: string | undefined, name: string, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new AssignorError('E_USAGE', `${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(value)}`, name);
}

/** Reads and parses a JSON file; errors name the file (and the position JSON.parse reports). */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new AssignorError('E_INPUT', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, path);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AssignorError('E_JSON', `${path} is not valid JSON: ${(e as Error).message}`, path);
  }
}
