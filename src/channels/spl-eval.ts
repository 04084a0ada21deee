// Evaluates the partition expressions this module emits, as SPL would, so every
// emitted form is checked by running its own text for every channel (not a
// JavaScript twin of it). The subset: int32 literals, getChannel(), the
// submission-time parameters $width and $nPartitions, + - * / % (int32, division
// truncating toward zero), comparisons, && ||, ?:, parentheses, list literals
// and subscripts. Types are checked as SPL checks them (a ?: condition must be
// boolean, arithmetic needs int32), and any int32 overflow, division by zero or
// subscript out of range fails the evaluation, as it would fail in SPL.
import { AssignorError } from '../errors.js';
import { INT32_MAX, INT32_MIN } from '../basics.js';

export interface SplEnv {
  channel: number;
  width: number;
  nPartitions: number;
}

type Type = 'int' | 'bool' | 'list';
interface Node {
  type: Type;
  /** int and bool nodes: the value (booleans as 0/1). */
  eval: (env: SplEnv) => number;
  /** list nodes: the elements (constant lists are folded once). */
  list?: (env: SplEnv) => Int32Array;
}


/** Compiles one SPL expression of int32 type. Throws E_SPL_CHECK when it is not valid in the subset. */
export function compileSpl(text: string): (env: SplEnv) => number {
  const p = new Parser(text);
  const node = p.expression();
  p.end();
  if (node.type !== 'int') p.fail(`the expression has type ${node.type}, not int32`);
  return node.eval;
}

const TOKEN = /\s*(\d+|getChannel\(\)|\$width|\$nPartitions|<=|>=|==|!=|&&|\|\||[-+*/%()[\]?:,<>])/y;

class Parser {
  private readonly tokens: string[] = [];
  private at = 0;

  constructor(private readonly text: string) {
    let pos = 0;
    while (pos < text.length) {
      TOKEN.lastIndex = pos;
      const m = TOKEN.exec(text);
      if (m === null) {
        if (text.slice(pos).trim() === '') break;
        this.fail(`unexpected text at ${JSON.stringify(text.slice(pos, pos + 20))}`);
      }
      this.tokens.push(m[1]!);
      pos = TOKEN.lastIndex;
    }
  }

  fail(why: string): never {
    throw new AssignorError('E_SPL_CHECK', `emitted SPL expression ${JSON.stringify(this.text.length > 120 ? `${this.text.slice(0, 120)}...` : this.text)} does not check: ${why}`);
  }

  end(): void {
    if (this.at !== this.tokens.length) this.fail(`unexpected ${JSON.stringify(this.tokens[this.at])}`);
  }

  private peek(): string | undefined {
    return this.tokens[this.at];
  }

  private take(t: string): boolean {
    if (this.tokens[this.at] !== t) return false;
    this.at++;
    return true;
  }

  private expect(t: string): void {
    if (!this.take(t)) this.fail(`expected ${JSON.stringify(t)}, got ${JSON.stringify(this.peek() ?? 'the end')}`);
  }

  expression(): Node {
    const cond = this.binary(0);
    if (!this.take('?')) return cond;
    if (cond.type !== 'bool') this.fail('the condition of ?: must be boolean');
    const a = this.expression();
    this.expect(':');
    const b = this.expression();
    if (a.type !== b.type || a.type === 'list') this.fail('the branches of ?: must both be int32 or both boolean');
    const c = cond.eval;
    const x = a.eval;
    const y = b.eval;
    return { type: a.type, eval: (e) => (c(e) ? x(e) : y(e)) };
  }

  /** Binary operators by precedence level, lowest first (as in SPL and C). */
  private static readonly LEVELS: readonly (readonly string[])[] = [['||'], ['&&'], ['==', '!='], ['<', '>', '<=', '>='], ['+', '-'], ['*', '/', '%']];

  private binary(level: number): Node {
    if (level === Parser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const op = this.peek();
      if (op === undefined || !Parser.LEVELS[level]!.includes(op)) return left;
      this.at++;
      left = this.combine(op, left, this.binary(level + 1));
    }
  }

  private combine(op: string, l: Node, r: Node): Node {
    const a = l.eval;
    const b = r.eval;
    if (op === '&&' || op === '||') {
      if (l.type !== 'bool' || r.type !== 'bool') this.fail(`${op} needs boolean operands`);
      return { type: 'bool', eval: op === '&&' ? (e) => (a(e) && b(e) ? 1 : 0) : (e) => (a(e) || b(e) ? 1 : 0) };
    }
    if (l.type !== 'int' || r.type !== 'int') this.fail(`${op} needs int32 operands`);
    const int = (f: (x: number, y: number) => number): Node => ({ type: 'int', eval: (e) => this.checked(f(a(e), b(e)), op) });
    switch (op) {
      case '+':
        return int((x, y) => x + y);
      case '-':
        return int((x, y) => x - y);
      case '*':
        return int((x, y) => x * y);
      case '/':
        return int((x, y) => (y === 0 ? this.fail('division by zero') : Math.trunc(x / y)));
      case '%':
        return int((x, y) => (y === 0 ? this.fail('modulo by zero') : x % y));
      case '<':
        return { type: 'bool', eval: (e) => (a(e) < b(e) ? 1 : 0) };
      case '>':
        return { type: 'bool', eval: (e) => (a(e) > b(e) ? 1 : 0) };
      case '<=':
        return { type: 'bool', eval: (e) => (a(e) <= b(e) ? 1 : 0) };
      case '>=':
        return { type: 'bool', eval: (e) => (a(e) >= b(e) ? 1 : 0) };
      case '==':
        return { type: 'bool', eval: (e) => (a(e) === b(e) ? 1 : 0) };
      default:
        return { type: 'bool', eval: (e) => (a(e) !== b(e) ? 1 : 0) };
    }
  }

  private checked(v: number, op: string): number {
    if (v < INT32_MIN || v > INT32_MAX) this.fail(`${op} overflows int32 (${v})`);
    return v === 0 ? 0 : v;
  }

  private unary(): Node {
    if (this.take('-')) {
      const x = this.unary();
      if (x.type !== 'int') this.fail('unary - needs an int32');
      const f = x.eval;
      return { type: 'int', eval: (e) => this.checked(-f(e), '-') };
    }
    return this.postfix();
  }

  private postfix(): Node {
    let node = this.primary();
    while (this.take('[')) {
      const index = this.expression();
      this.expect(']');
      if (node.type !== 'list' || index.type !== 'int') this.fail('a subscript needs a list and an int32 index');
      const list = node.list!;
      const i = index.eval;
      node = {
        type: 'int',
        eval: (e) => {
          const l = list(e);
          const k = i(e);
          if (k < 0 || k >= l.length) this.fail(`subscript ${k} is outside the list of ${l.length}`);
          return l[k]!;
        },
      };
    }
    return node;
  }

  private primary(): Node {
    const t = this.peek();
    if (t === undefined) this.fail('the expression ends early');
    this.at++;
    if (/^\d+$/.test(t)) {
      const v = Number(t);
      if (v > INT32_MAX) this.fail(`${t} is not an int32`);
      return { type: 'int', eval: () => v };
    }
    if (t === 'getChannel()') return { type: 'int', eval: (e) => e.channel };
    if (t === '$width') return { type: 'int', eval: (e) => e.width };
    if (t === '$nPartitions') return { type: 'int', eval: (e) => e.nPartitions };
    if (t === '(') {
      const inner = this.expression();
      this.expect(')');
      return inner;
    }
    if (t === '[') return this.listLiteral();
    this.fail(`unexpected ${JSON.stringify(t)}`);
  }

  /** `[a, b, ...]`: a list of int32 literals is folded into one array at compile time. */
  private listLiteral(): Node {
    const items: Node[] = [];
    const literal: number[] = [];
    let constant = true;
    if (!this.take(']')) {
      do {
        const start = this.at;
        const item = this.expression();
        if (item.type !== 'int') this.fail('list items must be int32');
        items.push(item);
        if (constant && this.at === start + 1 && /^\d+$/.test(this.tokens[start]!)) literal.push(Number(this.tokens[start]));
        else constant = false;
      } while (this.take(','));
      this.expect(']');
    }
    const fixed = constant ? Int32Array.from(literal) : null;
    const list = fixed !== null ? () => fixed : (e: SplEnv) => Int32Array.from(items, (it) => it.eval(e));
    return { type: 'list', eval: () => this.fail('a list is not an int32'), list };
  }
}
