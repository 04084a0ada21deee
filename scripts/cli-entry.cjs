#!/usr/bin/env node
// The `assignor` binary: scripts/bundle-cli.mjs copies this file to dist/cli/main.js, beside
// assignor-cli.js (the whole CLI, one CommonJS bundle).
//
// A short command's cold run is mostly start-up, and compiling the 600 KB bundle is a good part
// of what is ours in it. Node 22.1+ keeps V8's code cache for the modules it loads when asked
// (module.enableCompileCache): the first run writes it under os.tmpdir()/node-compile-cache (or
// $NODE_COMPILE_CACHE), keyed by Node's version and the file's content, and later runs deserialize
// the bundle instead of parsing it. Unlike a cache made when the package is built, it fits whatever
// Node the user runs (one made at build time is refused by every other V8 version). Where the
// directory cannot be written, or NODE_DISABLE_COMPILE_CACHE=1, Node runs without it. Bun 1.4
// implements the same call (its cache holds JavaScriptCore's bytecode); Deno has no such call.
'use strict';
const { enableCompileCache } = require('node:module');

if (typeof enableCompileCache === 'function') enableCompileCache();
const cli = require('./assignor-cli.js');

// What src/cli/main.ts exports (test/cli/fuzz-worker.mjs imports runCli from here).
exports.runCli = cli.runCli;
exports.reportError = cli.reportError;
exports.runBinary = cli.runBinary;
exports.USAGE = cli.USAGE;
exports.EXIT_INTERNAL = cli.EXIT_INTERNAL;

if (require.main === module) cli.runBinary();
