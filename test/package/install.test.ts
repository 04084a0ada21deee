// The package as a newcomer gets it: `npm pack`, install the tarball into an empty project, then
// use it from ESM, from CommonJS, from strict TypeScript, through the CLI, and from an esbuild
// bundle that runs where no node_modules exist. Uses the dist/ that `npm test` has just built
// (the prepack script builds the same way; its presence is checked below).
import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { ROOT } from '../helpers.js';
import { runtimeBinary } from '../../scripts/runtimes.mjs';
import { command, itNeeds } from '../support/components.js';
import { REPORT_SCRIPT, runPage, type Browser } from '../support/browser.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; scripts: Record<string, string>; devDependencies: Record<string, string> };
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let app = '';
let tarball = '';
let packed: string[] = [];
/** What the browser bundle gave in the bare context (the test before the real browsers). */
let browserOut: unknown;
const chromium = command('chromium', 'apt-get install chromium');
const firefox = command('firefox-esr', 'apt-get install firefox-esr');

function run(cmd: string, args: string[], cwd = app): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 26, env: { ...process.env, NODE_OPTIONS: '', DENO_NO_UPDATE_CHECK: '1' } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

// What every entry point should answer, from any module system: Kafka's vector for "100:48069"
// with 12 partitions is 9, and the KafkaJS and @platformatic/kafka partitioners agree with it.
const PROBE = `
  const out = {
    partition: root.partitionForKey('100:48069', 12),
    hashing: hashing.partitionForKey('100:48069', 12),
    viaKafkajs: kafkajs.JavaCompatiblePartitioner()({ topic: 't', partitionMetadata: Array.from({ length: 12 }, (_, i) => ({ partitionId: i, leader: 0 })), message: { key: '100:48069', value: null } }),
    batch: Array.from(root.partitionsForKeys(['a', null, 'ключ'], 12)),
    channels: channels.planToJson(channels.planChannels({ partitions: 6, width: 3 })).channels.map((c) => c.partitions),
    engine: root.getKernels().name,
    nodeOnly: [typeof store.CoordinatorStore, typeof coordinator.Coordinator, 'CoordinatorStore' in root],
    sticky: [typeof kafkajs.StickyAssigner, typeof kafkajs.createStickyAssigner],
    // assignor/platformatic loads without @platformatic/kafka installed (it only uses its types).
    viaPlatformatic: platformatic.createJavaCompatiblePartitioner()({ topic: 't', key: '100:48069' }, undefined, { metadata: undefined }) % 12,
    platformaticSticky: [typeof platformatic.createStickyAssigner().attach, platformatic.STICKY_ASSIGNER_NAME === kafkajs.STICKY_ASSIGNER_NAME],
    group: group.groupAssignmentJson(group.assignGroup({ topics: [{ name: 't', partitions: 3 }], members: [{ id: 'm', topics: ['t'] }] }, { strategy: 'range' })) === group.groupAssignmentJson(root.assignGroup({ topics: [{ name: 't', partitions: 3 }], members: [{ id: 'm', topics: ['t'] }] }, { strategy: 'range' })),
    // A deprecated root name (one release, CHANGELOG.md) is the very value of its subpath; a root
    // copy 0.1.0 never had (KeyBatch) is gone, not deprecated.
    deprecated: [root.murmur2 === hashing.murmur2, root.toPositive === hashing.toPositive, 'KeyBatch' in root, 'placeCluster' in root],
    error: (() => { try { root.partitionForKey('x', 0); } catch (e) { return [e instanceof root.AssignorError, e.code]; } })(),
  };
  console.log(JSON.stringify(out));
`;

function expectProbe(stdout: string): void {
  const out = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(out.partition).toBe(9);
  expect(out.hashing).toBe(9);
  expect(out.viaKafkajs).toBe(9);
  expect(out.batch[1]).toBe(-1);
  expect(out.channels).toEqual([[0, 1], [2, 3], [4, 5]]);
  expect(out.engine).toBe('wasm-simd');
  expect(out.error).toEqual([true, 'E_RANGE']);
  expect(out.nodeOnly).toEqual(['function', 'function', false]); // Node-only parts: own entry points
  expect(out.sticky).toEqual(['function', 'function']);
  expect(out.viaPlatformatic).toBe(9);
  expect(out.platformaticSticky).toEqual(['function', true]);
  expect(out.group).toBe(true);
  expect(out.deprecated).toEqual([true, true, false, false]);
}

describe('the packed package, installed into an empty project', () => {
  beforeAll(() => {
    const work = mkdtempSync(join(tmpdir(), 'assignor-pack-'));
    // dist/ is fresh (npm test builds first); --ignore-scripts skips prepack's second build.
    const info = JSON.parse(run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT)) as [{ filename: string; files: { path: string }[] }];
    tarball = join(work, info[0].filename);
    packed = info[0].files.map((f) => f.path);
    app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'newcomer', version: '1.0.0', private: true }));
    const dev = pkg.devDependencies;
    run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `kafkajs@${dev.kafkajs}`, `typescript@${dev.typescript}`, `@types/node@${dev['@types/node']}`, `esbuild@${dev.esbuild}`]);
  }, 300_000);

  it('ships each kernel once, the docs and examples it names, and builds before packing', () => {
    expect(packed.filter((f) => f.endsWith('.wasm'))).toEqual([]); // embedded in dist/engine/wasm-binaries.js
    expect(packed.filter((f) => f.endsWith('wasm-binaries.js'))).toEqual(['dist/cjs/engine/wasm-binaries.js', 'dist/engine/wasm-binaries.js']);
    for (const f of ['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json', 'dist/index.js', 'dist/cjs/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'docs/formats.md', 'examples/cluster.json', 'examples/job.json']) {
      expect(packed, f).toContain(f);
    }
    expect(packed.some((f) => f.startsWith('test/') || f.startsWith('src/') || f.startsWith('build/') || (f.startsWith('bench/') && f !== 'bench/RESULTS.md'))).toBe(false);
    expect(packed).toContain('bench/RESULTS.md'); // the README's benchmark table links it
    expect(pkg.scripts.prepack).toMatch(/npm run build/);
  });

  it('runs from ESM', () => {
    writeFileSync(join(app, 'esm.mjs'), `import * as root from 'assignor'; import * as hashing from 'assignor/hashing'; import * as kafkajs from 'assignor/kafkajs'; import * as platformatic from 'assignor/platformatic'; import * as group from 'assignor/group'; import * as channels from 'assignor/channels'; import * as store from 'assignor/store'; import * as coordinator from 'assignor/coordinator'; ${PROBE}`);
    expectProbe(run('node', ['esm.mjs']));
  });

  it('runs from CommonJS (require)', () => {
    writeFileSync(join(app, 'cjs.cjs'), `const root = require('assignor'); const hashing = require('assignor/hashing'); const kafkajs = require('assignor/kafkajs'); const platformatic = require('assignor/platformatic'); const group = require('assignor/group'); const channels = require('assignor/channels'); const store = require('assignor/store'); const coordinator = require('assignor/coordinator'); ${PROBE}`);
    expectProbe(run('node', ['cjs.cjs']));
  });

  it('type-checks in strict TypeScript, ESM and CommonJS, with skipLibCheck off', () => {
    const tsconfig = (types: string[], files: string[]) => ({ compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types }, files });
    // Without @types/node: the root and the plain subpaths must not need Node's types.
    writeFileSync(join(app, 'plain.mts'), [
      "import { partitionForKey, placeStandbys, planChannels, AssignorError, ERROR_CODES, type ErrorCode } from 'assignor';",
      "import { partitionsForKeys } from 'assignor/hashing';",
      "import { expandPlan } from 'assignor/channels';",
      "const p: number = partitionForKey('k', 12);",
      "const ps: Int32Array = partitionsForKeys(['a', null], 3);",
      "const codes: readonly ErrorCode[] = ERROR_CODES;",
      "const plan = planChannels({ partitions: 6, width: 3 });",
      'expandPlan(plan, 12);',
      "placeStandbys({ numStandbys: 1, clients: [{ id: 'a', active: ['0_0'] }, { id: 'b' }] });",
      "try { partitionForKey('k', 0); } catch (e) { if (e instanceof AssignorError) { const c: ErrorCode = e.code; console.log(c); } }",
      '// @ts-expect-error: a misspelt field is a compile error',
      'placeStandbys({ clientz: 5 });',
      'console.log(p, ps, codes, plan);',
      '',
    ].join('\n'));
    writeFileSync(join(app, 'tsconfig.plain.json'), JSON.stringify(tsconfig([], ['plain.mts'])));
    run('node', [join(app, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.plain.json']);
    // With @types/node (every KafkaJS user has it): the KafkaJS adapters, from ESM and from CJS.
    // StickyAssigner and createStickyAssigner(...) must type as KafkaJS's own PartitionAssigner.
    const producer = "kafka.producer({ createPartitioner: JavaCompatiblePartitioner });\nconst msgs = partitionMessages([{ key: 'k', value: 'v' }], 12);\nconsole.log(msgs[0]?.partition);\nkafka.consumer({ groupId: 'g', partitionAssigners: [StickyAssigner, createStickyAssigner({ rackId: 'az-1', growthSkew: 2 })] });\n";
    writeFileSync(join(app, 'producer.mts'), `import { Kafka } from 'kafkajs';\nimport { JavaCompatiblePartitioner, partitionMessages, StickyAssigner, createStickyAssigner } from 'assignor/kafkajs';\nconst kafka = new Kafka({ brokers: ['localhost:9092'] });\n${producer}`);
    writeFileSync(join(app, 'producer.cts'), `import { Kafka } from 'kafkajs';\nimport { JavaCompatiblePartitioner, partitionMessages, StickyAssigner, createStickyAssigner } from 'assignor/kafkajs';\nconst kafka = new Kafka({ brokers: ['localhost:9092'] });\n${producer}`);
    // The Node-only entry points (their types reference @types/node, an optional peer dependency).
    const node = "const open: typeof CoordinatorStore.open = CoordinatorStore.open;\nconsole.log(open, Coordinator, KafkaPartitionCounts);\n";
    writeFileSync(join(app, 'node.mts'), `import { CoordinatorStore } from 'assignor/store';\nimport { Coordinator, KafkaPartitionCounts } from 'assignor/coordinator';\n${node}`);
    writeFileSync(join(app, 'node.cts'), `import { CoordinatorStore } from 'assignor/store';\nimport { Coordinator, KafkaPartitionCounts } from 'assignor/coordinator';\n${node}`);
    writeFileSync(join(app, 'tsconfig.kafkajs.json'), JSON.stringify(tsconfig(['node'], ['producer.mts', 'producer.cts', 'node.mts', 'node.cts'])));
    run('node', [join(app, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.kafkajs.json']);
  });

  it("marks the deprecated re-exports deprecated in the installed types, as an editor shows them", () => {
    writeFileSync(join(app, 'uses-old-names.mts'), "import { murmur2, partitionForKey } from 'assignor';\nimport { CoordinatorMessageType, CoordinatorStore } from 'assignor/store';\nconsole.log(murmur2, partitionForKey, CoordinatorMessageType, CoordinatorStore);\n");
    // TypeScript's language service reports a use of a deprecated name as suggestion 6385.
    writeFileSync(join(app, 'deprecated.cjs'), [
      "const ts = require('typescript'); const path = require('path');",
      "const file = path.resolve('uses-old-names.mts');",
      "const options = { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, types: ['node'] };",
      "const host = { getScriptFileNames: () => [file], getScriptVersion: () => '1', getScriptSnapshot: (f) => ts.sys.fileExists(f) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(f)) : undefined,",
      "  getCurrentDirectory: () => process.cwd(), getCompilationSettings: () => options, getDefaultLibFileName: ts.getDefaultLibFilePath, fileExists: ts.sys.fileExists, readFile: ts.sys.readFile, readDirectory: ts.sys.readDirectory };",
      "const ls = ts.createLanguageService(host);",
      "const names = ls.getSuggestionDiagnostics(file).filter((d) => d.code === 6385).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ').split(\"'\")[1]);",
      "console.log(JSON.stringify([...new Set(names)].sort()));",
    ].join('\n'));
    expect(JSON.parse(run('node', ['deprecated.cjs']).trim())).toEqual(['CoordinatorMessageType', 'murmur2']);
  });

  it('runs the CLI: npx assignor --version and a hash', () => {
    expect(run('npx', ['--no-install', 'assignor', '--version']).trim()).toBe(pkg.version);
    expect(run('npx', ['--no-install', 'assignor', 'hash', '--partitions', '12', '--key', '100:48069']).trim()).toBe('9');
  });

  // The same installed tarball through the other runtimes' own launchers (scripts/runtimes.mjs
  // fetches them; a runtime that cannot be had fails here). `bunx --bun` runs the bin in Bun even
  // though its first line names node; `deno run npm:assignor` takes the package from node_modules.
  it('runs the CLI under Bun: bunx --bun assignor', () => {
    const bun = runtimeBinary('bun');
    expect(run(bun, ['x', '--bun', 'assignor', '--version']).trim()).toBe(pkg.version);
    expect(run(bun, ['x', '--bun', 'assignor', 'hash', '--partitions', '12', '--key', '100:48069']).trim()).toBe('9');
    expect(run(bun, ['x', '--bun', 'assignor', 'channels', 'plan', '--partitions', '6', '--width', '3', '--emit', 'table'])).toMatch(/^ +0 +2 +0,1$/m);
  });

  it('runs the CLI under Deno: deno run npm:assignor', () => {
    const deno = runtimeBinary('deno');
    const denoRun = (args: string[]) => run(deno, ['run', '-A', '--quiet', 'npm:assignor', ...args]);
    expect(denoRun(['--version']).trim()).toBe(pkg.version);
    expect(denoRun(['hash', '--partitions', '12', '--key', '100:48069']).trim()).toBe('9');
    expect(denoRun(['channels', 'plan', '--partitions', '6', '--width', '3', '--emit', 'table'])).toMatch(/^ +0 +2 +0,1$/m);
  });

  it('bundles with esbuild (ESM and CommonJS output) and the bundle runs without node_modules', async () => {
    writeFileSync(join(app, 'bundle-entry.mjs'), `import * as root from 'assignor'; import * as hashing from 'assignor/hashing'; import * as kafkajs from 'assignor/kafkajs'; import * as platformatic from 'assignor/platformatic'; import * as group from 'assignor/group'; import * as channels from 'assignor/channels'; import * as store from 'assignor/store'; import * as coordinator from 'assignor/coordinator'; ${PROBE}`);
    const esbuild = join(app, 'node_modules/esbuild/bin/esbuild');
    const elsewhere = mkdtempSync(join(tmpdir(), 'assignor-bundle-run-'));
    for (const format of ['esm', 'cjs'] as const) {
      const outfile = join(app, `bundle.${format === 'esm' ? 'mjs' : 'cjs'}`);
      execFileSync(esbuild, ['bundle-entry.mjs', '--bundle', '--platform=node', `--format=${format}`, '--log-level=error', `--outfile=${outfile}`], { cwd: app });
      cpSync(outfile, join(elsewhere, outfile.split('/').pop()!));
    }
    expect(readdirSync(elsewhere).sort()).toEqual(['bundle.cjs', 'bundle.mjs']);
    expectProbe(run('node', ['bundle.mjs'], elsewhere));
    expectProbe(run('node', ['bundle.cjs'], elsewhere));
  });

  it('the root and the Samza planner run in a browser bundle (no process, no require, no fs, no Buffer)', () => {
    writeFileSync(join(app, 'browser-entry.mjs'), [
      "import { partitionForKey, partitionsForKeys, planChannels, planToJson, placeStandbys } from 'assignor';",
      "globalThis.out = { one: partitionForKey('100:48069', 12), batch: Array.from(partitionsForKeys(['a', null], 12)),",
      "  channels: planToJson(planChannels({ partitions: 6, width: 3 })).channels.length,",
      "  standbys: placeStandbys({ numStandbys: 1, clients: [{ id: 'a', active: ['0_0'] }, { id: 'b' }] }).report().totals };",
      // The Samza planner keeps GroupByPartition names as bytes (AsciiColumn): no Buffer there.
      "import { calculateJobModel, jobModelJson } from 'assignor/samza';",
      "const plan = calculateJobModel({ config: { 'task.inputs': 'kafka.A', 'job.container.count': '2' }, partitionCounts: { 'kafka.A': 1500 } });",
      'globalThis.out.samza = { tasks: plan.grouping.tasks.slice(0, 3), json: jobModelJson(plan) };',
      // The consumer-group room: every strategy, the sticky one through the WASM kernel.
      "import { assignGroup, groupAssignmentJson } from 'assignor/group';",
      "const group = { topics: [{ name: 'orders', partitions: 4 }], members: [{ id: 'b', topics: ['orders'], owned: { orders: [0, 1, 2] } }, { id: 'a', topics: ['orders'] }] };",
      "globalThis.out.group = ['sticky', 'range', 'round-robin'].map((strategy) => JSON.parse(groupAssignmentJson(assignGroup(group, { strategy }))).assignment);",
    ].join('\n'));
    const esbuild = join(app, 'node_modules/esbuild/bin/esbuild');
    const outfile = join(app, 'browser.js');
    execFileSync(esbuild, ['browser-entry.mjs', '--bundle', '--platform=browser', '--format=iife', '--log-level=error', `--outfile=${outfile}`], { cwd: app });
    // A bare context: WebAssembly, TextEncoder and the language itself, nothing of Node.
    const context = vm.createContext({ WebAssembly, TextEncoder, TextDecoder, atob });
    vm.runInContext(readFileSync(outfile, 'utf8'), context);
    const out = JSON.parse(JSON.stringify(vm.runInContext('globalThis.out', context)));
    expect(out.one).toBe(9);
    expect(out.batch[1]).toBe(-1);
    expect(out.channels).toBe(3);
    expect(out.standbys).toBeDefined();
    expect(out.samza.tasks).toEqual(['Partition 0', 'Partition 1', 'Partition 10']);
    expect(out.group).toEqual([{ a: { orders: [2, 3] }, b: { orders: [0, 1] } }, { a: { orders: [0, 1] }, b: { orders: [2, 3] } }, { a: { orders: [0, 2] }, b: { orders: [1, 3] } }]);
    const inNode = spawnSync('node', ['--input-type=module', '-e', "import { calculateJobModel, jobModelJson } from 'assignor/samza'; process.stdout.write(jobModelJson(calculateJobModel({ config: { 'task.inputs': 'kafka.A', 'job.container.count': '2' }, partitionCounts: { 'kafka.A': 1500 } })));"], { cwd: app, encoding: 'utf8' });
    expect(out.samza.json).toBe(inNode.stdout);
    browserOut = out;
  });

  // The same browser bundle in real browsers, served on 127.0.0.1: V8 (Chromium) and SpiderMonkey
  // (Firefox ESR), each giving what the bare context gave.
  for (const browser of [chromium, firefox]) {
    itNeeds(browser)(`the browser bundle runs in ${browser.name} headless and answers as in the bare context`, async () => {
      expect(browserOut).toBeDefined();
      const page = `<!doctype html><meta charset="utf-8">${REPORT_SCRIPT}<script src="browser.js"></script><script>report(globalThis.out)</script>`;
      const got = await runPage(browser.name as Browser, { 'index.html': page, 'browser.js': readFileSync(join(app, 'browser.js'), 'utf8') });
      expect(got).toEqual(browserOut);
    }, 120_000);
  }

  it("the README's API example runs as written", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes("from 'assignor'"));
    expect(block).toBeDefined();
    writeFileSync(join(app, 'readme.mjs'), `${block!}\nconsole.log('readme ok');\n`);
    expect(run('node', ['readme.mjs'])).toContain('readme ok');
  });
});
