// JSON text to a value, with errors that say where: V8's JSON.parse messages carry no line or
// column on every Node line `engines` claims, and quote the input raw (binary included). When
// JSON.parse fails, a small scanner finds the first offending character and the error names its
// line and column, with a short excerpt where every character outside printable ASCII is escaped.
import { AssignorError } from '../errors.js';

/** Characters of input shown on each side of the offending one. */
const EXCERPT = 12;

/** A UTF-8 byte-order mark, as the decoder leaves it at the start of the text. */
const BOM = 0xfeff;

/**
 * Parses JSON text: a byte-order mark at the very start is skipped (the one rule of
 * docs/formats.md), and anywhere else it is an error like any other stray character.
 * `name` says what was read in the message (`stdin`, `plan.json`).
 */
export function parseJsonText(text: string, name: string): unknown {
  const body = text.charCodeAt(0) === BOM ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch {
    throw jsonError(body, name, text.length - body.length);
  }
}

/** The E_JSON error for text JSON.parse refused; `shift` is the length of a skipped BOM (columns count it). */
export function jsonError(text: string, name: string, shift = 0): AssignorError {
  const { at, what } = firstError(text);
  const { line, column } = lineColumn(text, at, shift);
  return new AssignorError('E_JSON', `${name} is not valid JSON: ${what} near ${excerpt(text, at)}`, `line ${line}, column ${column}`);
}

/** Line and column (both from 1; the column counts UTF-16 code units) of offset `at`. */
export function lineColumn(text: string, at: number, shift = 0): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: at - lineStart + 1 + (line === 1 ? shift : 0) };
}

/** Up to EXCERPT characters either side of `at`, quoted, everything outside printable ASCII escaped. */
export function excerpt(text: string, at: number): string {
  const from = Math.max(0, at - EXCERPT);
  const to = Math.min(text.length, at + EXCERPT + 1);
  let out = '';
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) out += `\\${text[i]}`;
    else if (c >= 0x20 && c < 0x7f) out += text[i];
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${from > 0 ? '…' : ''}"${out}"${to < text.length ? '…' : ''}`;
}

interface Scan {
  at: number;
  what: string;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * The offset of the first character that makes `text` invalid JSON, and what was expected there.
 * Iterative (an explicit stack of open containers), so input nested any depth costs no call stack.
 */
export function firstError(text: string): Scan {
  const s = { text, i: 0 };
  const stack: number[] = []; // 0x5b '[' or 0x7b '{'
  const skip = (): void => {
    while (s.i < text.length && WS.has(text.charCodeAt(s.i))) s.i++;
  };
  const fail = (what: string): Scan => ({ at: s.i, what: s.i >= text.length ? `${what}, got the end of the input` : `${what}, got ${describeChar(text, s.i)}` });
  for (;;) {
    skip();
    // A value is expected here.
    const c = text.charCodeAt(s.i);
    if (c === 0x5b || c === 0x7b) {
      s.i++;
      skip();
      if (text.charCodeAt(s.i) === c + 2) s.i++; // an empty container: ']' is '[' + 2, '}' is '{' + 2
      else {
        stack.push(c);
        if (c === 0x7b) {
          const key = member(s);
          if (key !== null) return fail(key);
        }
        continue;
      }
    } else {
      const bad = scalar(s);
      if (bad !== null) return fail(bad);
    }
    // After a value: a separator, the end of a container, or the end of the input.
    for (;;) {
      skip();
      const open = stack[stack.length - 1];
      if (open === undefined) return s.i >= text.length ? { at: text.length, what: 'a value JSON.parse does not take' } : fail('expected the end of the input after the value');
      const d = text.charCodeAt(s.i);
      if (d === (open === 0x5b ? 0x5d : 0x7d)) {
        stack.pop();
        s.i++;
        continue;
      }
      if (d !== 0x2c) return fail(open === 0x5b ? "expected ',' or ']' after an array item" : "expected ',' or '}' after a property value");
      s.i++;
      if (open === 0x7b) {
        const key = member(s);
        if (key !== null) return fail(key);
      }
      break;
    }
  }
}

/** Reads `"key" :` of an object member; null when well formed, else what was expected. */
function member(s: { text: string; i: number }): string | null {
  while (s.i < s.text.length && WS.has(s.text.charCodeAt(s.i))) s.i++;
  if (s.text.charCodeAt(s.i) !== 0x22) return 'expected a property name in double quotes';
  const bad = string(s);
  if (bad !== null) return bad;
  while (s.i < s.text.length && WS.has(s.text.charCodeAt(s.i))) s.i++;
  if (s.text.charCodeAt(s.i) !== 0x3a) return "expected ':' after a property name";
  s.i++;
  return null;
}

/** Reads a string, number, true, false or null at s.i; null when well formed, else what was expected. */
function scalar(s: { text: string; i: number }): string | null {
  const c = s.text.charCodeAt(s.i);
  if (c === 0x22) return string(s);
  for (const word of ['true', 'false', 'null']) {
    if (c !== word.charCodeAt(0)) continue;
    for (let k = 0; k < word.length; k++, s.i++) if (s.text.charCodeAt(s.i) !== word.charCodeAt(k)) return `expected ${word}`;
    return null;
  }
  const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  m.lastIndex = s.i;
  if ((c === 0x2d || (c >= 0x30 && c <= 0x39)) && m.test(s.text) && m.lastIndex > s.i) {
    // A number is complete only where something other than a number character follows.
    const end = m.lastIndex;
    if (/[0-9.eE+-]/.test(s.text[end] ?? ' ')) {
      s.i = end;
      return 'expected a well-formed number';
    }
    s.i = end;
    return null;
  }
  return 'expected a JSON value';
}

/** Reads a string literal starting at its quote; null when well formed. */
function string(s: { text: string; i: number }): string | null {
  s.i++;
  for (;;) {
    if (s.i >= s.text.length) return 'expected the closing double quote of a string';
    const c = s.text.charCodeAt(s.i);
    if (c === 0x22) {
      s.i++;
      return null;
    }
    if (c < 0x20) return 'expected a control character inside a string to be escaped';
    if (c === 0x5c) {
      const e = s.text[s.i + 1];
      if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(s.text.slice(s.i + 2, s.i + 6))) {
          s.i += 2;
          return 'expected four hex digits after \\u';
        }
        s.i += 6;
        continue;
      }
      if (e === undefined || !'"\\/bfnrt'.includes(e)) {
        s.i++;
        return 'expected a valid escape after a backslash';
      }
      s.i += 2;
      continue;
    }
    s.i++;
  }
}

/** One character for a message: printable ASCII quoted as is, anything else as \uXXXX. */
function describeChar(text: string, i: number): string {
  const c = text.charCodeAt(i);
  return c >= 0x20 && c < 0x7f ? `'${text[i]}'` : `'\\u${c.toString(16).padStart(4, '0')}'`;
}
