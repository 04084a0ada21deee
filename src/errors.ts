/**
 * Every error code assignor raises on purpose. Each one is documented, one line
 * each, in docs/formats.md ("Error codes"; a test keeps the two lists equal), so
 * `AssignorError` only accepts a code from this list: an undocumented code does
 * not compile.
 */
export const ERROR_CODES = [
  'E_CHOICES',
  'E_CONFIG',
  'E_COORDINATOR',
  'E_COUNTS_FILE',
  'E_COUNTS_KAFKA',
  'E_COUNTS_MISSING',
  'E_COUNTS_TOPIC',
  'E_ENGINE',
  'E_FOLD_INPUT',
  'E_IMPORT_DUMP',
  'E_IMPORT_NOT_EMPTY',
  'E_INPUT',
  'E_JOB',
  'E_JSON',
  'E_KAFKAJS_MISSING',
  'E_KEY_BASE64',
  'E_KEY_ENCODING',
  'E_KEY_HEX',
  'E_KEY_INT32',
  'E_KEY_INT64',
  'E_KEY_MOVEMENT',
  'E_KEY_TYPE',
  'E_OUTPUT',
  'E_PACKED',
  'E_PLAN',
  'E_RANGE',
  'E_SAMZA_ALLSSP_BROADCAST',
  'E_SAMZA_ARITHMETIC',
  'E_SAMZA_BROADCAST',
  'E_SAMZA_CHANGELOG',
  'E_SAMZA_CONFIG',
  'E_SAMZA_CONTAINERS',
  'E_SAMZA_DUPLICATE_TASK',
  'E_SAMZA_ELASTICITY',
  'E_SAMZA_GROUPER',
  'E_SAMZA_INPUT',
  'E_SAMZA_MAPPER',
  'E_SAMZA_NOT_MULTIPLE',
  'E_SAMZA_NO_SSPS',
  'E_SAMZA_NO_TASKS',
  'E_SAMZA_NULL',
  'E_SAMZA_PARTITIONS',
  'E_SAMZA_PREVIOUS',
  'E_SAMZA_PROCESSORS',
  'E_SAMZA_PROXY',
  'E_SAMZA_STORE_READ',
  'E_SAMZA_STREAM_NAME',
  'E_SAMZA_TOO_LARGE',
  'E_SHRINK',
  'E_SPL_CHECK',
  'E_STORE_ARG',
  'E_STORE_CLOSED',
  'E_STORE_CORRUPT',
  'E_STORE_FENCED',
  'E_STORE_FORMAT',
  'E_STORE_INTERNAL',
  'E_STORE_IO',
  'E_STORE_KAFKA',
  'E_STORE_KAFKA_TOPIC',
  'E_STORE_LINK',
  'E_STORE_LOCKED',
  'E_STORE_NOT_FOUND',
  'E_STORE_READONLY',
  'E_STORE_TOO_LARGE',
  'E_STORE_VALUE',
  'E_STORE_VERSION',
  'E_TASK_ID',
  'E_TOO_LARGE',
  'E_UNSOUND_PLAN',
  'E_USAGE',
] as const;

/** A documented error code (see ERROR_CODES). */
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Every error the engine raises on purpose. `code` is stable (tests and callers
 * match on it), `message` is for people, `path` says where in the input the
 * problem is (`clients[3].tags.zone`, `line 17`, `--partitions`).
 */
export class AssignorError extends Error {
  readonly code: ErrorCode;
  readonly path: string | undefined;

  constructor(code: ErrorCode, message: string, path?: string) {
    super(message);
    this.name = 'AssignorError';
    this.code = code;
    this.path = path;
  }

  /**
   * One line for a terminal: `message (at path)`, also when the message names the
   * place as its subject (`members must be a list`): only a message that already
   * says `at path` goes without. Line breaks become spaces, and
   * a line longer than MAX_LINE is clipped in the middle, so whatever a message
   * quotes, stderr gets one line of bounded length.
   */
  oneLine(): string {
    const text = this.message.replace(/\s*[\r\n]+\s*/g, ' ');
    const path = this.path === undefined ? undefined : clipText(this.path.replace(/\s*[\r\n]+\s*/g, ' '), QUOTE_LIMIT);
    // Every place is said the same way, ` (at place)`, unless the message already says `at place`.
    const line = path === undefined || path === '' || text.includes(`at ${path}`) ? text : `${text} (at ${path})`;
    return clipText(line, MAX_LINE);
  }
}

/** Exit codes of the CLI: 0 ok, 1 a finding (e.g. an unsound plan), 2 bad input or usage. */
export const EXIT_OK = 0;
export const EXIT_FINDING = 1;
export const EXIT_BAD_INPUT = 2;

export function fail(code: ErrorCode, message: string, path?: string): never {
  throw new AssignorError(code, message, path);
}

/** Checks that `value` is an integer in [min, max]; `what` names it in the error. */
export function requireInt(value: unknown, min: number, max: number, what: string, path?: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail('E_RANGE', `${what} must be an integer in [${min}, ${max}], got ${describe(value)}`, path);
  }
  return value;
}

/** About how many characters of a bad value an error message quotes. */
export const QUOTE_LIMIT = 80;
/** The longest error line, in characters; longer messages are clipped in the middle. */
export const MAX_LINE = 1000;

/**
 * A value quoted for an error message, in JSON notation, clipped to about
 * QUOTE_LIMIT characters with an ellipsis and the value's size:
 * `"aaaa"… (5000000 characters)`, `[[[[[… (array of 1 item)`.
 *
 * Built by a loop with its own stack, never by recursion and never by
 * serializing the whole value: input nested 100,000 levels deep or a 5 MB
 * string costs the same ~80 characters (JSON.stringify and String() both
 * overflow the call stack on deep nesting).
 */
export function describe(value: unknown, limit = QUOTE_LIMIT): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') {
    const q = value.length <= limit ? JSON.stringify(value) : '';
    return q !== '' && q.length <= limit + 2 ? q : clipString(value, limit);
  }
  if (value === null || typeof value !== 'object') return scalar(value);
  const preview = previewCompound(value, limit);
  return preview.complete ? preview.text : `${preview.text.slice(0, limit)}… (${sizeOf(value)})`;
}

/** A scalar (not an object, not a string) as JSON would show it, or as JS does when JSON cannot. */
function scalar(v: unknown): string {
  switch (typeof v) {
    case 'number': // NaN and Infinity too, which JSON has no notation for
      return String(v);
    case 'bigint':
      return `${v}n`;
    case 'boolean':
      return String(v);
    case 'symbol':
      return v.toString();
    case 'function':
      return 'a function';
    default:
      return v === null ? 'null' : typeof v;
  }
}

/** JSON-quotes at most `limit + 1` characters of s (so the caller can tell it was clipped). */
function quoteString(s: string, limit: number): string {
  let end = Math.min(s.length, limit + 1);
  // Do not cut a surrogate pair in two.
  if (end < s.length && end > 0 && isHighSurrogate(s.charCodeAt(end - 1))) end--;
  return JSON.stringify(end === s.length ? s : s.slice(0, end));
}

/** `"the first characters"… (N characters)`, the quoted part at most `limit` characters long. */
function clipString(s: string, limit: number): string {
  let raw = s.slice(0, Math.min(s.length, limit - 2));
  let q = JSON.stringify(raw);
  // Escapes (\n, \u0001) make the quoted form longer: keep the share of characters that fits.
  while (q.length > limit && raw.length > 0) {
    raw = raw.slice(0, Math.min(raw.length - 1, Math.floor((raw.length * limit) / q.length)));
    q = JSON.stringify(raw);
  }
  if (raw.length > 0 && isHighSurrogate(raw.charCodeAt(raw.length - 1))) q = JSON.stringify(raw.slice(0, -1));
  return raw.length === s.length ? q : `${q}… (${s.length} characters)`;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function sizeOf(v: object): string {
  if (Array.isArray(v)) return `array of ${v.length} item${v.length === 1 ? '' : 's'}`;
  const n = Object.keys(v).length;
  return `object with ${n} key${n === 1 ? '' : 's'}`;
}

interface Frame {
  readonly value: object;
  readonly keys: readonly string[] | null; // null for arrays
  readonly length: number;
  next: number;
}

/**
 * JSON text of an array or object, produced depth-first with an explicit stack
 * and abandoned as soon as it passes `limit` characters.
 */
function previewCompound(root: object, limit: number): { text: string; complete: boolean } {
  let text = '';
  const stack: Frame[] = [];
  const open = (v: object): void => {
    if (Array.isArray(v)) {
      text += '[';
      stack.push({ value: v, keys: null, length: v.length, next: 0 });
    } else {
      // Only own enumerable keys, as JSON.stringify shows them; bounded so a
      // huge object costs no more than the preview needs.
      const keys: string[] = [];
      for (const k in v) {
        if (Object.hasOwn(v, k)) keys.push(k);
        if (keys.length > limit) break;
      }
      text += '{';
      stack.push({ value: v, keys, length: keys.length, next: 0 });
    }
  };
  open(root);
  while (stack.length > 0) {
    if (text.length > limit) return { text, complete: false };
    const top = stack[stack.length - 1]!;
    if (top.next === top.length) {
      text += top.keys === null ? ']' : '}';
      stack.pop();
      continue;
    }
    const i = top.next++;
    if (i > 0) text += ',';
    let item: unknown;
    if (top.keys === null) {
      item = (top.value as unknown[])[i];
    } else {
      const k = top.keys[i]!;
      text += `${quoteString(k, limit)}:`;
      item = (top.value as Record<string, unknown>)[k];
    }
    if (typeof item === 'string') text += quoteString(item, limit);
    else if (item !== null && typeof item === 'object') open(item);
    else text += item === undefined ? 'null' : scalar(item);
  }
  return { text, complete: text.length <= limit };
}

/**
 * Clips text longer than `max` characters: keeps the start and the end, with an
 * ellipsis and the full length between them.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.min(Math.floor(max / 4), 200);
  let head = max - tail;
  if (isHighSurrogate(text.charCodeAt(head - 1))) head--;
  let from = text.length - tail;
  if (isHighSurrogate(text.charCodeAt(from - 1))) from--;
  return `${text.slice(0, head)}… (${text.length} characters) …${text.slice(from)}`;
}
