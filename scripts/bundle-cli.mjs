// After tsc: replaces the CLI's many small ES modules in dist/cli/ with
//   main.js           the binary (scripts/cli-entry.cjs): turns on Node's compile cache, requires the bundle;
//   assignor-cli.js   the whole CLI (src/cli/main.ts and everything it imports) as one CommonJS bundle;
//   package.json      {"type": "commonjs"} for this folder.
// A cold `assignor` run then reads one file instead of resolving, reading and compiling 30-60 ES
// modules, and from its second run on V8 deserializes it from Node's compile cache instead of
// parsing it (docs/design.md, "The CLI").
//
// The bundle sits in dist/cli/ itself, at the depth of the files it replaces, because main.ts and
// args.ts find package.json and docs/ relative to import.meta.url. The library (dist/*, dist/cjs/*)
// is untouched: package exports keep tsc's output.
import { build } from 'esbuild';
import { copyFileSync, chmodSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CLI = 'dist/cli';
const BUNDLE = join(CLI, 'assignor-cli.js');

const entry = join(CLI, 'main.js');
const result = await build({
  entryPoints: [entry],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  write: false,
  outfile: BUNDLE,
  // import.meta.url is the bundle's own URL: dist/cli/assignor-cli.js, where main.js was.
  define: { 'import.meta.url': '__cliUrl' },
  banner: { js: "'use strict';\nconst __cliUrl = require('node:url').pathToFileURL(__filename).href;" },
  // Node built-ins stay requires; there are no other dependencies (kafkajs is import()ed by name).
  packages: 'external',
  logLevel: 'warning',
});
let code = result.outputFiles[0].text;
if (code.startsWith('#!')) code = code.slice(code.indexOf('\n') + 1);

// Only tsc's modules go: their .d.ts files stay (nothing imports them).
for (const f of readdirSync(CLI)) if (f.endsWith('.js') || f.endsWith('.cache')) rmSync(join(CLI, f));
writeFileSync(BUNDLE, code);
writeFileSync(join(CLI, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
copyFileSync('scripts/cli-entry.cjs', entry);
chmodSync(entry, 0o755);
