#!/usr/bin/env node
// The `assignor` binary: scripts/bundle-cli.mjs copies this file to dist/cli/main.js, beside
// assignor-cli.js (the whole CLI, one CommonJS bundle) and assignor-cli.cache (V8's code cache
// for it, made when the package was built).
//
// Why not just require the bundle: a short command's cold run is mostly start-up, and compiling
// the bundle is a good part of what is ours in it. Node 20 has no compile cache for modules
// (module.enableCompileCache is Node 22), but vm.Script takes V8's cached data: with it V8
// deserializes the bundle instead of parsing 600 KB of source. V8 refuses a cache made by another V8 version
// or under other V8 flags (cachedDataRejected); the bundle is then compiled from its source, as
// require would, and the run is only a little slower. Nothing is written at run time.
// V8 checks a cache against the source's length only, so the cache file starts with the CRC-32 of
// the bundle it was made for (4 bytes, little-endian): a bundle changed since (patched by hand, or
// rebuilt without its cache) is compiled from source instead of running stale code.
//
// The bundle is the CommonJS function body require would wrap; it gets `__cliUrl` (its own
// file URL, for import.meta.url) and `__cliImport` (a dynamic import() from a real module: code in
// a vm.Script cannot import() without an experimental flag) besides require's five arguments.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');
const { crc32 } = require('node:zlib');

const BUNDLE = join(__dirname, 'assignor-cli.js');
const CACHE = join(__dirname, 'assignor-cli.cache');

const source = readFileSync(BUNDLE);
let cachedData;
try {
  const cache = readFileSync(CACHE);
  if (cache.length > 4 && cache.readUInt32LE(0) === crc32(source)) cachedData = cache.subarray(4);
} catch {
  cachedData = undefined;
}
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __cliUrl, __cliImport) {${source.toString('utf8')}\n})`, {
  filename: BUNDLE,
  cachedData,
});
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, require, bundle, BUNDLE, __dirname, pathToFileURL(BUNDLE).href, (specifier) => import(specifier));
const cli = bundle.exports;

// What src/cli/main.ts exports (test/cli/fuzz-worker.mjs imports runCli from here).
exports.runCli = cli.runCli;
exports.reportError = cli.reportError;
exports.runBinary = cli.runBinary;
exports.USAGE = cli.USAGE;
exports.EXIT_INTERNAL = cli.EXIT_INTERNAL;
/** For scripts/bundle-cli.mjs: V8's cached data for the bundle, with the functions compiled so far. */
exports.createCodeCache = () => script.createCachedData();
/** True when this run compiled the bundle from source: no cache, or V8 refused it. */
exports.codeCacheRejected = () => cachedData === undefined || script.cachedDataRejected === true;

if (require.main === module) cli.runBinary();
