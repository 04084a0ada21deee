// The standby docs and sources point only at things a reader of this repository can
// open: no paths to the author's private notes (../shared/..., "spec §3.5", "seed 002").
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';

const FILES = [
  'docs/standby.md',
  'src/cli/standby.ts',
  'assembly/standby.ts',
  'src/engine/reference/standby.ts',
  'src/engine/wasm/standby.ts',
  'bench/standby.bench.ts',
  ...readdirSync(join(ROOT, 'src/standby')).map((f) => `src/standby/${f}`),
  ...readdirSync(join(ROOT, 'test/standby')).filter((f) => f.endsWith('.ts') && f !== 'docs.test.ts').map((f) => `test/standby/${f}`),
];

describe('standby docs and sources', () => {
  it.each(FILES)('%s names no file outside the repository', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(text).not.toMatch(/\/work\/shared|\.\.\/shared\/|\bspec §|\bseeds?\/|\bseed 0\d\d|seed's/);
  });
});
