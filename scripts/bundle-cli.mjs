// After tsc: replaces the CLI's many small ES modules in dist/cli/ with
//   main.js           the binary (scripts/cli-entry.cjs): loads the bundle with V8's code cache;
//   assignor-cli.js   the whole CLI (src/cli/main.ts and everything it imports) as one CommonJS bundle;
//   assignor-cli.cache  V8's code cache for it, made here;
//   package.json      {"type": "commonjs"} for this folder.
// A cold `assignor` run then reads two files instead of resolving, reading and compiling 30-60 ES
// modules, and does not parse the bundle: V8 deserializes it (docs/design.md, "The CLI").
//
// The bundle sits in dist/cli/ itself, at the depth of the files it replaces, because main.ts and
// args.ts find package.json and docs/ relative to import.meta.url. The library (dist/*, dist/cjs/*)
// is untouched: package exports keep tsc's output.
import { build } from 'esbuild';
import { copyFileSync, chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { crc32 } from 'node:zlib';

const CLI = 'dist/cli';
const BUNDLE = join(CLI, 'assignor-cli.js');
const CACHE = join(CLI, 'assignor-cli.cache');

// Code run by vm.Script cannot import() (not without an experimental flag): every dynamic import
// of something outside the bundle (the optional kafkajs peer, loaded by a variable name so that
// bundlers leave it alone) goes through __cliImport, which the entry supplies. Relative imports
// (the lazily loaded commands) are string literals and are bundled.
let rewritten = 0;
const dynamicImports = {
  name: 'dynamic-imports',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const contents = text.replace(/\bimport\((?!\s*['"`])/g, () => {
        rewritten++;
        return '__cliImport(';
      });
      return { contents, loader: 'js' };
    });
  },
};

const entry = join(CLI, 'main.js');
const result = await build({
  entryPoints: [entry],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  write: false,
  outfile: BUNDLE,
  // import.meta.url is the bundle's own URL: dist/cli/assignor-cli.js, where main.js was.
  define: { 'import.meta.url': '__cliUrl' },
  // Node built-ins stay requires; there are no other dependencies.
  packages: 'external',
  plugins: [dynamicImports],
  logLevel: 'warning',
});
let code = result.outputFiles[0].text;
if (code.startsWith('#!')) code = code.slice(code.indexOf('\n') + 1);
const left = code.match(/\bimport\(/g)?.length ?? 0;
if (left > 0 || rewritten === 0) {
  throw new Error(`bundle-cli: ${left} import() call(s) left in the bundle (a vm.Script cannot run them), ${rewritten} rewritten to __cliImport`);
}

// Only tsc's modules go: their .d.ts files stay (nothing imports them). The old cache goes first.
rmSync(CACHE, { force: true });
for (const f of readdirSync(CLI)) if (f.endsWith('.js')) rmSync(join(CLI, f));
writeFileSync(BUNDLE, code);
writeFileSync(join(CLI, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
copyFileSync('scripts/cli-entry.cjs', entry);
chmodSync(entry, 0o755);

// The code cache: V8's data for the bundle as loaded (its top level run: every module is still
// uninitialised, __esm wrappers run on first use). That is what a cold run spends its compile time
// on, parsing 600 KB of source. A cache taken after a warm-up of tiny commands (their functions
// compiled too) was 3x the size, no faster on tiny runs, and made a 1M-record store inspect ~40 ms
// of CPU slower (medians of 21 interleaved runs; why, we did not find out), so it is not that.
const cli = createRequire(import.meta.url)(resolve(entry));
const crc = Buffer.alloc(4);
crc.writeUInt32LE(crc32(readFileSync(BUNDLE)));
writeFileSync(CACHE, Buffer.concat([crc, cli.createCodeCache()]));
