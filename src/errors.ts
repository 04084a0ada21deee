/**
 * Every error the engine raises on purpose. `code` is stable (tests and callers
 * match on it), `message` is for people, `path` says where in the input the
 * problem is (`clients[3].tags.zone`, `line 17`, `--partitions`).
 */
export class AssignorError extends Error {
  readonly code: string;
  readonly path: string | undefined;

  constructor(code: string, message: string, path?: string) {
    super(message);
    this.name = 'AssignorError';
    this.code = code;
    this.path = path;
  }

  /** One line for a terminal: `message (at path)`. */
  oneLine(): string {
    const text = this.message.replace(/\s*\n\s*/g, ' ');
    return this.path === undefined || text.includes(this.path) ? text : `${text} (at ${this.path})`;
  }
}

/** Exit codes of the CLI: 0 ok, 1 a finding (e.g. an unsound plan), 2 bad input or usage. */
export const EXIT_OK = 0;
export const EXIT_FINDING = 1;
export const EXIT_BAD_INPUT = 2;

export function fail(code: string, message: string, path?: string): never {
  throw new AssignorError(code, message, path);
}

/** Checks that `value` is an integer in [min, max]; `what` names it in the error. */
export function requireInt(value: unknown, min: number, max: number, what: string, path?: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail('E_RANGE', `${what} must be an integer in [${min}, ${max}], got ${describe(value)}`, path);
  }
  return value;
}

export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined) return 'nothing';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
