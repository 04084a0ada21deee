// After tsc: replaces the CLI's many small ES modules in dist/cli/ with an esbuild bundle of them,
// split per command. A cold `assignor` run then opens a handful of files instead of 30-60 modules
// (each resolved, read and compiled on its own), which is most of what module loading costs it:
// `channels plan` on a tiny input went from ~115 to ~84 ms (docs/cli.md, "Start-up").
//
// dist/cli/main.js stays the entry (the `bin`, and what test/cli/fuzz-worker.mjs imports: it still
// exports runCli); every `import()` of a command becomes a chunk beside it, and code two commands
// share goes into shared chunks. Chunks sit in dist/cli/ itself, at the depth of the files they
// replace, because main.ts and args.ts find package.json and docs/ relative to import.meta.url.
// The library (dist/*, dist/cjs/*) is untouched: package exports keep tsc's output.
import { build } from 'esbuild';
import { mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const CLI = 'dist/cli';
const tmp = mkdtempSync('dist/.cli-bundle-');
try {
  await build({
    entryPoints: [join(CLI, 'main.js')],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: tmp,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    // Node built-ins stay imports; there are no other dependencies.
    packages: 'external',
    logLevel: 'warning',
  });
  // Only the tsc modules go: their .d.ts files stay (nothing imports them, but they do no harm).
  for (const f of readdirSync(CLI)) if (f.endsWith('.js')) rmSync(join(CLI, f));
  for (const f of readdirSync(tmp)) renameSync(join(tmp, f), join(CLI, f));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
