// A short rendering of a user value for error messages. Input can be JSON nested
// 10,000 levels deep, so nothing here recurses over it: containers are opened to a
// fixed depth and the text is cut at a fixed length.
const MAX_DEPTH = 3;
const MAX_CHARS = 80;

export function preview(value: unknown): string {
  const text = render(value, 0);
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 1)}…` : text;
}

function render(v: unknown, depth: number): string {
  if (typeof v === 'string') return JSON.stringify(v.length > MAX_CHARS ? `${v.slice(0, MAX_CHARS)}…` : v);
  if (typeof v === 'bigint') return `${v}n`;
  if (v === undefined) return 'nothing';
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : String(v);
  if (v === null || typeof v !== 'object') return String(v);
  const isArray = Array.isArray(v);
  if (depth >= MAX_DEPTH) return isArray ? '[…]' : '{…}';
  const parts: string[] = [];
  let chars = 0;
  if (isArray) {
    for (let i = 0; i < v.length && chars <= MAX_CHARS; i++) {
      const p = render(v[i], depth + 1);
      parts.push(p);
      chars += p.length + 1;
    }
    if (parts.length < v.length) parts.push('…');
    return `[${parts.join(',')}]`;
  }
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
  for (let i = 0; i < entries.length && chars <= MAX_CHARS; i++) {
    const p = `${JSON.stringify(String(entries[i]![0]))}:${render(entries[i]![1], depth + 1)}`;
    parts.push(p);
    chars += p.length + 1;
  }
  if (parts.length < entries.length) parts.push('…');
  return `{${parts.join(',')}}`;
}
