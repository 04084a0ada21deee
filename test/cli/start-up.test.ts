// The built binary's start-up (scripts/bundle-cli.mjs, scripts/cli-entry.cjs): one CommonJS bundle
// compiled with V8's code cache made at build time. The cache must be one V8 accepts (else it is
// dead weight), and a bundle changed after the build must not run with a cache made for another.
// Build first: npm run build.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, cli } from '../helpers.js';

const DIST_CLI = join(ROOT, 'dist/cli');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Loads a built entry in a plain node (no test runner flags) and reports whether it compiled without the cache. */
function rejected(entry: string): boolean {
  const r = spawnSync(process.execPath, ['-e', `process.stdout.write(String(require(${JSON.stringify(entry)}).codeCacheRejected()))`], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout === 'true';
}

describe('the built CLI', () => {
  it('is the entry, the bundle and its code cache, and nothing else runs', () => {
    const js = readdirSync(DIST_CLI).filter((f) => !f.endsWith('.d.ts'));
    expect(js.sort()).toEqual(['assignor-cli.cache', 'assignor-cli.js', 'main.js', 'package.json']);
    expect(JSON.parse(readFileSync(join(DIST_CLI, 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    // Code in a vm.Script cannot import(): only the entry's __cliImport may load a package.
    expect(readFileSync(join(DIST_CLI, 'assignor-cli.js'), 'utf8')).not.toMatch(/\bimport\(/);
  });

  it('runs with the code cache the build made (V8 accepts it)', () => {
    expect(rejected(CLI)).toBe(false);
  });

  it('compiles a changed bundle from source instead of using a cache made for another, with the same output', () => {
    const copy = mkdtempSync(join(tmpdir(), 'assignor-cli-cache-'));
    dirs.push(copy);
    // dist/cli/ at the same depth, so package.json and docs/ are found as from the real one.
    cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    const bundle = join(copy, 'dist/cli/assignor-cli.js');
    const text = readFileSync(bundle, 'utf8');
    // Same length (all V8 checks), different bytes: one character of the usage text.
    const at = text.indexOf('usage: assignor <command>');
    expect(at).toBeGreaterThan(0);
    writeFileSync(bundle, `${text.slice(0, at)}usage: assignoR <command>${text.slice(at + 'usage: assignor <command>'.length)}`);
    const entry = join(copy, 'dist/cli/main.js');
    expect(rejected(entry)).toBe(true);
    const r = spawnSync(process.execPath, [entry, '--help'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^usage: assignoR <command>/);
    // And the real one, unchanged.
    expect(cli(['--help']).stdout).toMatch(/^usage: assignor <command>/);
  });

  it('still exports what src/cli/main.ts exports, to ESM importers (test/cli/fuzz-worker.mjs)', () => {
    const script = `import { runCli, reportError, runBinary, USAGE, EXIT_INTERNAL } from ${JSON.stringify(CLI)};
      process.stdout.write(JSON.stringify([typeof runCli, typeof reportError, typeof runBinary, USAGE.slice(0, 15), EXIT_INTERNAL]));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(['function', 'function', 'function', 'usage: assignor', 70]);
  });
});
