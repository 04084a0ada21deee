// The built binary's start-up (scripts/bundle-cli.mjs, scripts/cli-entry.cjs): one CommonJS bundle
// kept in Node's compile cache (Node 22.1+), which must really be written and accepted (else it is
// dead weight), and a bundle changed after the build must never run stale code.
// Build first: npm run build.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import module from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, cli } from '../helpers.js';
import { itUnlessDeno, moduleEvalArgs } from '../support/runtime.js';

const DIST_CLI = join(ROOT, 'dist/cli');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the built CLI', () => {
  it('is the entry and the bundle, and nothing else runs', () => {
    const js = readdirSync(DIST_CLI).filter((f) => !f.endsWith('.d.ts'));
    expect(js.sort()).toEqual(['assignor-cli.js', 'main.js', 'package.json']);
    expect(JSON.parse(readFileSync(join(DIST_CLI, 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
  });

  const hasCompileCache = typeof (module as unknown as { enableCompileCache?: unknown }).enableCompileCache === 'function';

  it.runIf(hasCompileCache)("keeps the bundle in the compile cache (Node's, and Bun's, which implements it): written on the first run, read and accepted on the next", () => {
    const dir = mkdtempSync(join(tmpdir(), 'assignor-compile-cache-'));
    dirs.push(dir);
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: dir, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
    delete env.NODE_DISABLE_COMPILE_CACHE;
    const first = spawnSync(process.execPath, [CLI, 'hash', '--partitions', '12', '--key', '100:48069'], { encoding: 'utf8', env });
    expect(first.stdout.trim()).toBe('9');
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    const second = spawnSync(process.execPath, [CLI, 'hash', '--partitions', '12', '--key', '100:48069'], { encoding: 'utf8', env });
    expect(second.stdout.trim()).toBe('9');
    // Node 24+ and Bun say "V8 code cache for CommonJS <file>" / "code cache for CommonJS <file>", Node 22 "cache for <file>".
    expect(second.stderr).toMatch(/cache for (CommonJS )?\S*assignor-cli\.js was accepted/);
  });

  itUnlessDeno('Deno 2.9 serves a file changed in place, at the same length, from its own module cache')('a changed bundle runs as changed (the cache is keyed by content, never stale)', () => {
    const copy = mkdtempSync(join(tmpdir(), 'assignor-cli-cache-'));
    dirs.push(copy);
    const env = { ...process.env, NODE_COMPILE_CACHE: join(copy, 'cache') };
    // dist/cli/ at the same depth, so package.json and docs/ are found as from the real one.
    cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    const entry = join(copy, 'dist/cli/main.js');
    expect(spawnSync(process.execPath, [entry, '--help'], { encoding: 'utf8', env }).stdout).toMatch(/^usage: assignor <command>/);
    const bundle = join(copy, 'dist/cli/assignor-cli.js');
    const text = readFileSync(bundle, 'utf8');
    // Same length, different bytes: one character of the usage text.
    const at = text.indexOf('usage: assignor <command>');
    expect(at).toBeGreaterThan(0);
    writeFileSync(bundle, `${text.slice(0, at)}usage: assignoR <command>${text.slice(at + 'usage: assignor <command>'.length)}`);
    const r = spawnSync(process.execPath, [entry, '--help'], { encoding: 'utf8', env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^usage: assignoR <command>/);
    // And the real one, unchanged.
    expect(cli(['--help']).stdout).toMatch(/^usage: assignor <command>/);
  });

  it('still exports what src/cli/main.ts exports, to ESM importers (test/cli/fuzz-worker.mjs)', () => {
    const script = `import { runCli, reportError, runBinary, USAGE, EXIT_INTERNAL } from ${JSON.stringify(CLI)};
      process.stdout.write(JSON.stringify([typeof runCli, typeof reportError, typeof runBinary, USAGE.slice(0, 15), EXIT_INTERNAL]));`;
    const r = spawnSync(process.execPath, moduleEvalArgs(script), { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(['function', 'function', 'function', 'usage: assignor', 70]);
  });
});
