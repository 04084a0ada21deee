// The library suite: every test that needs no Kafka broker, no JVM and no browser, run on every
// runtime besides the primary one (Node 22 and 26, Bun, Deno; see scripts/runtimes.mjs).
// Which tests those are is read from the tests themselves, so a new test is sorted without a list
// to keep: a test file that imports (directly or through a helper in test/) the broker, the JVM
// harness or the component checks (test/support/components.ts: Chromium and friends) runs on the
// primary runtime only, in the full suite. So does test/package/: it packs the package, installs it
// with npm and runs its CLI under every runtime itself.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const ROOT = dirname(fileURLToPath(import.meta.url));
const NEEDS_COMPONENT = ['test/kafka/broker.ts', 'test/kafka/shared-broker.ts', 'test/kafka/jvm.ts', 'test/support/components.ts'].map((p) => join(ROOT, p));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** The files of test/ that `file` imports, as paths (`./x.js` is the source `./x.ts`). */
function testImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  // `import type` brings no code: a file that only names a helper's types does not need what it needs.
  for (const m of text.matchAll(/(?:import|export)(?!\s+type\b)[^'"]*?from\s*'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)) {
    const spec = (m[1] ?? m[2])!;
    const path = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    if (path.startsWith(join(ROOT, 'test'))) out.push(path);
  }
  return out;
}

function needsComponent(file: string, seen = new Set<string>()): boolean {
  if (NEEDS_COMPONENT.includes(file)) return true;
  if (seen.has(file)) return false;
  seen.add(file);
  let imports: string[];
  try {
    imports = testImports(file);
  } catch {
    return false;
  }
  return imports.some((f) => needsComponent(f, seen));
}

export const primaryOnly = testFiles(join(ROOT, 'test'))
  .filter((f) => needsComponent(f) || f.startsWith(join(ROOT, 'test', 'package')))
  .map((f) => relative(ROOT, f));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...primaryOnly],
    environment: 'node',
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
