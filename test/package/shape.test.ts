// Issue 23's "Done when", counted with the TypeScript compiler API by scripts/shape.mjs (also
// `npm run shape`): no runtime import cycle, no runtime import from domain code into
// src/engine/reference/ or from src/samza/ into src/store/, no undocumented exported value, no
// function over 150 lines and at most 10 over 80 in src/ and assembly/; and the layering of
// shared/architecture.md (no runtime import up, or across into another folder of the same layer).
// Each failure lists its offenders.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS, brokenLimits, measureShape, summary, type Shape } from '../../scripts/shape.mjs';

const listed = (items: readonly string[]) => items.join('\n');
const fn = (f: { lines: number; where: string; name: string }) => `${f.lines} ${f.where} ${f.name}`;

describe('the shape of the codebase (issue 23)', () => {
  const shape = measureShape();
  console.log(summary(shape));

  it('has no runtime import cycle', () => {
    const cycles = shape.runtimeCycles.map((c) => c.join(' <-> '));
    expect(cycles.length, `runtime import cycles:\n${listed(cycles)}`).toBeLessThanOrEqual(LIMITS.runtimeCycles);
  });

  it('never imports src/engine/reference/ from domain code at run time', () => {
    expect(shape.domainIntoReference.length, `runtime imports into src/engine/reference/:\n${listed(shape.domainIntoReference)}`).toBeLessThanOrEqual(LIMITS.domainIntoReference);
  });

  it('never imports src/store/ from src/samza/ at run time', () => {
    expect(shape.samzaIntoStore.length, `runtime imports from src/samza/ into src/store/:\n${listed(shape.samzaIntoStore)}`).toBeLessThanOrEqual(LIMITS.samzaIntoStore);
  });

  it("imports only downward at run time, in the layers of shared/architecture.md", () => {
    expect(shape.upwardImports.length, `runtime imports up or across the layers:\n${listed(shape.upwardImports)}`).toBeLessThanOrEqual(LIMITS.upwardImports);
  });

  it('names every exported value of every entry in README.md or docs/*.md', () => {
    expect(shape.undocumentedValues.length, `exported values no doc names:\n${listed(shape.undocumentedValues)}`).toBeLessThanOrEqual(LIMITS.undocumentedValues);
  });

  it('has no function over 150 lines', () => {
    expect(shape.over150.length, `functions over 150 lines:\n${listed(shape.over150.map(fn))}`).toBeLessThanOrEqual(LIMITS.over150);
  });

  it('has at most 10 functions over 80 lines', () => {
    expect(shape.over80.length, `functions over 80 lines:\n${listed(shape.over80.map(fn))}`).toBeLessThanOrEqual(LIMITS.over80);
  });

  it('has no more functions over 5 parameters and no more string-column types than issue 32 counted', () => {
    expect(shape.over5Params.length, `functions over 5 parameters:\n${listed(shape.over5Params.map((f) => `${f.params} ${f.where} ${f.name}`))}`).toBeLessThanOrEqual(LIMITS.over5Params);
    expect(shape.stringColumnTypes.length, `string-column types:\n${listed(shape.stringColumnTypes)}`).toBeLessThanOrEqual(LIMITS.stringColumnTypes);
  });

  it('has no more public names and src/ lines than the last count (issue 32 ratchets)', () => {
    expect(shape.publicNames).toBeLessThanOrEqual(LIMITS.publicNames);
    expect(shape.srcLines).toBeLessThanOrEqual(LIMITS.srcLines);
  });
});

// The counter itself, on a made-up checkout where every count is known.
describe('the shape counter', () => {
  const root = mkdtempSync(join(tmpdir(), 'assignor-shape-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
  write('package.json', JSON.stringify({ type: 'module', exports: { '.': './dist/index.js', './samza': './dist/samza/index.js', './package.json': './package.json' } }));
  write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: [] }, include: ['src/**/*.ts'] }));
  write('README.md', 'Call `documented`, `Alias` or `OldName`.\n');
  write('src/index.ts', "export { documented, hidden, type Shape } from './samza/plan.js';\nexport {\n  /** @deprecated since 0.2.0: import documented from 'x/samza' */\n  documented as OldName,\n} from './samza/plan.js';\n/** @deprecated a tag on the statement, which TypeScript ignores */\nexport { documented as Alias } from './samza/plan.js';\n");
  write('src/samza/index.ts', "export { documented } from './plan.js';\n");
  write('src/samza/plan.ts', `import { codec } from '../store/codec.js';\nimport type { Row } from '../store/row.js';\nimport { type Cell } from '../store/cell.js';\nimport { KERNEL } from '../engine/reference/hash.js';\nexport interface Shape { a: number }\nexport function documented(): number {\n${body(150)}\n  return codec + KERNEL;\n}\nexport const hidden = (r?: Row, c?: Cell) => [r, c];\n`);
  write('src/store/codec.ts', "import { back } from './row.js';\nexport const codec = back;\n");
  write('src/store/row.ts', "import { codec } from './codec.js';\nexport const back = 1;\nexport type Row = { codec: typeof codec };\n");
  write('src/store/cell.ts', 'export type Cell = number;\n');
  write('src/store/up.ts', "import { documented } from '../samza/plan.js';\nexport const up = documented;\n");
  write('src/kafkajs/a.ts', "import { b } from '../platformatic/b.js';\nimport type { Shape } from '../samza/plan.js';\nexport const a = (s?: Shape) => [b, s];\n");
  write('src/platformatic/b.ts', "import { codec } from '../store/codec.js';\nexport const b = codec;\n");
  write('src/engine/reference/hash.ts', 'export const KERNEL = 2;\n');
  write('src/engine/kernels.ts', "import type { Cell } from '../store/cell.js';\nimport { KERNEL } from './reference/hash.js';\nexport const k = (c: Cell) => c + KERNEL;\n");
  write('assembly/loop.ts', `export function loop(): void {\n${body(81)}\n}\nexport function edge(): void {\n${body(80)}\n}\n`);
  write('src/columns/texts.ts', 'export interface Texts { at(i: number): string }\nexport class AsciiColumn {}\nexport type Names = string[];\nexport function six(a: number, b: number, c: number, d: number, e: number, f: number): number {\n  return a + b + c + d + e + f;\n}\nexport function five(this: void, a: number, b: number, c: number, d: number, e: number): number {\n  return a + b + c + d + e;\n}\n');
  let counted: Shape | undefined;
  const fixture = () => (counted ??= measureShape(root));

  it('counts names per entry, values, undocumented ones, and deprecated ones where TypeScript sees the tag', () => {
    const s = fixture();
    expect(s.entries.map((e) => [e.entry, e.names, e.values, e.deprecated, e.undocumented])).toEqual([
      ['src/index.ts', ['Alias', 'OldName', 'Shape', 'documented', 'hidden'], ['Alias', 'OldName', 'documented', 'hidden'], ['OldName'], ['hidden']],
      ['src/samza/index.ts', ['documented'], ['documented'], [], []],
    ]);
    expect([s.publicNames, s.deprecatedNames, s.distinctPublicSymbols]).toEqual([6, 1, 5]);
  });

  it('counts runtime edges only: a cycle through a type-only import is none, a runtime one is', () => {
    const s = fixture();
    expect(s.runtimeCycles).toEqual([['src/store/codec.ts', 'src/store/row.ts']]);
    expect(s.samzaIntoStore).toEqual(['src/samza/plan.ts -> src/store/codec.ts']);
    expect(s.domainIntoReference).toEqual(['src/samza/plan.ts -> src/engine/reference/hash.ts']);
  });

  it('counts runtime imports that point up a layer or across to another folder of the same layer', () => {
    expect(fixture().upwardImports).toEqual(['src/kafkajs/a.ts -> src/platformatic/b.ts', 'src/store/up.ts -> src/samza/plan.ts']);
  });

  it('measures functions in src/ and assembly/ from first to last line (80 lines is not over 80)', () => {
    const s = fixture();
    expect(s.over150.map(fn)).toEqual(['151 src/samza/plan.ts:6 documented']);
    expect(s.over80.map(fn)).toEqual(['151 src/samza/plan.ts:6 documented', '81 assembly/loop.ts:1 loop']);
  });

  it('counts functions over 5 parameters (a `this` parameter is none), string-column types, and src/ lines', () => {
    const s = fixture();
    expect(s.over5Params.map((f) => `${f.params} ${f.where} ${f.name}`)).toEqual(['6 src/columns/texts.ts:4 six']);
    expect(s.stringColumnTypes).toEqual(['AsciiColumn', 'Texts']);
    expect(s.srcLines).toBeGreaterThan(150);
  });

  it('reports every broken limit with its offenders', () => {
    const broken = brokenLimits(fixture());
    expect(broken.map((b) => b.split(' (limit')[0])).toEqual([
      '1 runtime import cycles',
      '1 runtime imports from domain code into src/engine/reference/',
      '1 runtime imports from src/samza/ into src/store/',
      '2 runtime imports up or across the layers of shared/architecture.md',
      '1 exported values no doc names',
      '1 functions over 150 lines',
      '1 functions over 5 parameters',
    ]);
    expect(broken[4]).toContain('src/index.ts: hidden');
  });
});
