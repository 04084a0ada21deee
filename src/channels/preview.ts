// Bounded descriptions of input values for error messages, and the integer
// checks of the channel API that use them. Nothing here recurses into a value
// more than three levels, so an argument nested 10,000 deep (or a 5 MB string)
// gives a short, one-line error instead of a stack overflow or a 5 MB message.
import { AssignorError } from '../errors.js';

const PREVIEW_CHARS = 80;

/**
 * A short, bounded description of a JSON value for an error message: strings
 * and long renderings are clipped to about 80 characters (with the full length),
 * and nesting is shown to three levels only. It never recurses deeper, so a
 * value nested 10,000 deep cannot overflow the stack.
 */
export function preview(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large to represent';
  if (typeof value === 'string') {
    if (value.length <= PREVIEW_CHARS) return JSON.stringify(value);
    return `${JSON.stringify(value.slice(0, PREVIEW_CHARS))}... (${value.length} characters)`;
  }
  const text = render(value, 3);
  if (text.length <= PREVIEW_CHARS) return text;
  return `${text.slice(0, PREVIEW_CHARS)}... (${Array.isArray(value) ? `an array of ${value.length}` : 'an object'})`;
}

function render(value: unknown, depth: number): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}...` : value);
  if (value === null || typeof value !== 'object') return typeof value === 'number' && !Number.isFinite(value) ? 'Infinity' : String(value);
  if (depth === 0) return Array.isArray(value) ? '[...]' : '{...}';
  const items: string[] = [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && i < 8; i++) items.push(render(value[i], depth - 1));
    if (value.length > 8) items.push('...');
    return `[${items.join(',')}]`;
  }
  let i = 0;
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    if (i++ === 8) {
      items.push('...');
      break;
    }
    items.push(`${JSON.stringify(k.length > 20 ? `${k.slice(0, 20)}...` : k)}:${render((value as Record<string, unknown>)[k], depth - 1)}`);
  }
  return `{${items.join(',')}}`;
}

/** Checks that `value` is an integer in [min, max] (E_RANGE naming `what` and `path`), as errors.requireInt, with a bounded quote. */
export function requireCount(value: unknown, min: number, max: number, what: string, path?: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new AssignorError('E_RANGE', `${what} must be an integer in [${min}, ${max}], got ${preview(value)}`, path);
  }
  return value;
}
