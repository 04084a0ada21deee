// The shape of the codebase, counted with the TypeScript compiler API the way issue 23's
// shape tool counts it: the public names of every package entry (and which are deprecated or
// undocumented), function lengths in src/ and assembly/, runtime import cycles, and the two
// boundaries the architecture names (domain code never imports engine/reference/ at run time;
// samza never imports store at run time). test/package/shape.test.ts holds the limits.
// Usage: node scripts/shape.mjs [--json]   (npm run shape); exits 1 when a limit is broken.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The limits issue 23 sets ("Done when"); a count over its limit fails `npm run shape` and the test. */
export const LIMITS = Object.freeze({
  runtimeCycles: 0,
  domainIntoReference: 0,
  samzaIntoStore: 0,
  undocumentedValues: 0,
  over150: 0,
  over80: 10,
  upwardImports: 0,
  // Ratchets from issue 32's count (2026-12-06): they may only go down, towards 0 and 1.
  // Functions over 5 parameters: 58 then, 0 now (the SIMD lane helpers last: docs/design.md,
  // "Four lanes, five parameters").
  over5Params: 0,
  stringColumnTypes: 6,
  // Issue 32's goals are 180 names and 23,393 lines; these hold what 2026-12-07 reached.
  publicNames: 250,
  srcLines: 29_914,
});

/**
 * The layers of shared/architecture.md, lowest first: a runtime import may point down or stay in
 * its folder, never up or sideways into another folder of its own layer (the two client adapters
 * and the live loop do not import each other). src/index.ts re-exports everything.
 */
const LAYERS = [['basics'], ['errors'], ['engine'], ['columns'], ['coordinator-stream'], ['store', 'expansion', 'hashing'], ['group', 'samza', 'channels', 'standby'], ['streams'], ['coordinator', 'kafkajs', 'platformatic'], ['cli'], ['index']];
const layerOf = (folder) => LAYERS.findIndex((l) => l.includes(folder));

/** Folders of domain code: none of them may import src/engine/reference/ at run time. */
const DOMAIN = ['hashing', 'samza', 'channels', 'standby', 'streams', 'store', 'kafkajs', 'coordinator', 'expansion', 'group', 'cli', 'platformatic'];

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The entry file of every subpath package.json exports (`.` is src/index.ts). */
export function entryFiles(root = ROOT) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const subpaths = Object.keys(pkg.exports ?? { '.': 1 }).filter((k) => !k.endsWith('.json'));
  return subpaths.map((k) => (k === '.' ? 'src/index.ts' : `src/${k.slice(2)}/index.ts`)).filter((f) => existsSync(join(root, f)));
}

/** README.md and docs/*.md, the text an exported value must be named in. */
export function docsText(root = ROOT) {
  const docs = existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => join(root, 'docs', f)) : [];
  return [join(root, 'README.md'), ...docs].filter((f) => existsSync(f)).map((f) => readFileSync(f, 'utf8')).join('\n');
}

/** A name counts as documented when it appears in the docs as a whole word. */
export function isDocumented(name, docs) {
  return new RegExp(`\\b${name.replace(/[$]/g, '\\$')}\\b`).test(docs);
}

/**
 * True when the export carries `@deprecated` where TypeScript honours it (an editor then strikes
 * the name through): on the export specifier itself (`export { /** @deprecated ... *\/ x } from`),
 * or on the declaration (a function, class, or the statement of a variable). A tag on a whole
 * `export { ... }` statement is ignored by TypeScript, and so here.
 */
function isDeprecated(decl) {
  const tagged = (n) => ts.getJSDocTags(n).some((t) => t.tagName.text === 'deprecated');
  if (ts.isExportSpecifier(decl)) return tagged(decl);
  if (ts.isVariableDeclaration(decl)) return tagged(decl) || (decl.parent?.parent !== undefined && tagged(decl.parent.parent));
  return tagged(decl);
}

function surface(root, docs) {
  const entries = entryFiles(root);
  const cfg = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), { noEmit: true }, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (cfg === undefined) throw new Error('tsconfig.json could not be read');
  const program = ts.createProgram(entries.map((e) => join(root, e)), { ...cfg.options, noEmit: true });
  const checker = program.getTypeChecker();
  const distinct = new Set();
  const list = entries.map((entry) => {
    const file = program.getSourceFile(join(root, entry));
    const module = file && checker.getSymbolAtLocation(file);
    if (module === undefined) throw new Error(`${entry}: package.json exports it but it is not a module`);
    const names = [];
    for (const x of checker.getExportsOfModule(module)) {
      const target = x.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(x) : x;
      const decl = x.declarations?.[0];
      const typeOnly = decl !== undefined && (decl.isTypeOnly || decl.parent?.parent?.isTypeOnly);
      const value = (target.flags & ts.SymbolFlags.Value) !== 0 && !typeOnly;
      distinct.add(`${x.name}@${target.declarations?.[0]?.getSourceFile().fileName ?? ''}`);
      const own = target.declarations?.[0];
      const deprecated = (decl !== undefined && isDeprecated(decl)) || (own !== undefined && isDeprecated(own));
      names.push({ name: x.name, value, deprecated, documented: isDocumented(x.name, docs) });
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { entry, names };
  });
  return { list, distinct: distinct.size };
}

function functions(root) {
  const out = [];
  for (const f of [...walk(join(root, 'src')), ...walk(join(root, 'assembly'))]) {
    const sf = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
    const nameOf = (n) => {
      if (ts.isConstructorDeclaration(n)) return 'constructor';
      if (n.name && n.name.getText) return n.name.getText(sf);
      const p = n.parent;
      if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p))) return p.name.getText(sf);
      return '<anonymous>';
    };
    const visit = (n) => {
      const isFunction = ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n);
      if (isFunction && n.body) {
        const start = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
        const end = sf.getLineAndCharacterOfPosition(n.end).line + 1;
        const params = n.parameters.filter((x) => x.name.getText(sf) !== 'this').length;
        out.push({ where: `${relative(root, f)}:${start}`, name: nameOf(n), lines: end - start + 1, params });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out.sort((a, b) => b.lines - a.lines || (a.where < b.where ? -1 : 1));
}

/** Classes, interfaces and type aliases in src/ that are a column of strings (named ...Texts, ...Column, ColumnMap). */
function stringColumnTypes(root) {
  const out = new Set();
  for (const f of walk(join(root, 'src'))) {
    const sf = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n) => {
      if ((ts.isClassDeclaration(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) && n.name && /(Texts|Column|ColumnMap)$/.test(n.name.text)) out.add(n.name.text);
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return [...out].sort();
}

/** Lines of src/, every .ts file counted whole. */
function srcLines(root) {
  return walk(join(root, 'src')).reduce((n, f) => n + readFileSync(f, 'utf8').split('\n').length, 0);
}

/** Relative imports and re-exports of src/: file -> (target -> true when every import of it is type-only). */
function importGraph(root) {
  const graph = new Map();
  for (const f of walk(join(root, 'src'))) {
    const sf = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
    const edges = new Map();
    const add = (spec, typeOnly) => {
      if (!spec.startsWith('.')) return;
      let t = resolve(dirname(f), spec).replace(/\.js$/, '.ts');
      if (!t.endsWith('.ts')) t += '.ts';
      if (!existsSync(t) && existsSync(t.replace(/\.ts$/, '/index.ts'))) t = t.replace(/\.ts$/, '/index.ts');
      edges.set(t, (edges.get(t) ?? true) && typeOnly);
    };
    for (const s of sf.statements) {
      if (ts.isImportDeclaration(s)) {
        const c = s.importClause;
        const allTypeNamed = !!c && !c.name && c.namedBindings !== undefined && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((x) => x.isTypeOnly);
        add(s.moduleSpecifier.text, !!c && (c.isTypeOnly || allTypeNamed));
      }
      if (ts.isExportDeclaration(s) && s.moduleSpecifier) add(s.moduleSpecifier.text, s.isTypeOnly);
    }
    graph.set(f, edges);
  }
  return graph;
}

/** Strongly connected components of more than one file over the runtime edges (Tarjan). */
function runtimeCycles(root, graph) {
  let next = 0;
  const stack = [];
  const onStack = new Set();
  const index = new Map();
  const low = new Map();
  const out = [];
  const connect = (v) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const [w, typeOnly] of graph.get(v) ?? []) {
      if (!graph.has(w) || typeOnly) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(relative(root, w));
    } while (w !== v);
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return out;
}

function runtimeEdges(root, graph, pred) {
  const out = [];
  for (const [a, edges] of graph) for (const [b, typeOnly] of edges) if (!typeOnly && pred(relative(root, a), relative(root, b))) out.push(`${relative(root, a)} -> ${relative(root, b)}`);
  return out;
}

const folderOf = (rel) => rel.split('/')[1]?.replace(/\.ts$/, '') ?? '';

/** Every count, with the offenders behind each. */
export function measureShape(root = ROOT) {
  const docs = docsText(root);
  const { list, distinct } = surface(root, docs);
  const fns = functions(root);
  const graph = importGraph(root);
  const entries = list.map(({ entry, names }) => ({
    entry,
    names: names.map((n) => n.name),
    values: names.filter((n) => n.value).map((n) => n.name),
    deprecated: names.filter((n) => n.deprecated).map((n) => n.name),
    undocumented: names.filter((n) => n.value && !n.documented).map((n) => n.name),
  }));
  return {
    entries,
    publicNames: entries.reduce((s, e) => s + e.names.length, 0),
    deprecatedNames: entries.reduce((s, e) => s + e.deprecated.length, 0),
    distinctPublicSymbols: distinct,
    undocumentedValues: entries.flatMap((e) => e.undocumented.map((n) => `${e.entry}: ${n}`)),
    functions: fns.length,
    over150: fns.filter((f) => f.lines > 150),
    over80: fns.filter((f) => f.lines > 80),
    over5Params: fns.filter((f) => f.params > 5),
    stringColumnTypes: stringColumnTypes(root),
    srcLines: srcLines(root),
    runtimeCycles: runtimeCycles(root, graph),
    domainIntoReference: runtimeEdges(root, graph, (a, b) => DOMAIN.includes(folderOf(a)) && b.startsWith('src/engine/reference/')),
    samzaIntoStore: runtimeEdges(root, graph, (a, b) => folderOf(a) === 'samza' && folderOf(b) === 'store'),
    upwardImports: runtimeEdges(root, graph, (a, b) => folderOf(a) !== folderOf(b) && layerOf(folderOf(b)) >= layerOf(folderOf(a))),
  };
}

/** The counts over their limit, one line each with its offenders; empty when the shape holds. */
export function brokenLimits(shape) {
  const fn = (f) => `${f.lines} ${f.where} ${f.name}`;
  const checks = [
    ['runtimeCycles', 'runtime import cycles', shape.runtimeCycles.map((c) => c.join(' <-> '))],
    ['domainIntoReference', 'runtime imports from domain code into src/engine/reference/', shape.domainIntoReference],
    ['samzaIntoStore', 'runtime imports from src/samza/ into src/store/', shape.samzaIntoStore],
    ['upwardImports', 'runtime imports up or across the layers of shared/architecture.md', shape.upwardImports],
    ['undocumentedValues', 'exported values no doc names', shape.undocumentedValues],
    ['over150', 'functions over 150 lines', shape.over150.map(fn)],
    ['over80', 'functions over 80 lines', shape.over80.map(fn)],
    ['over5Params', 'functions over 5 parameters', shape.over5Params.map((f) => `${f.params} ${f.where} ${f.name}`)],
    ['stringColumnTypes', 'string-column types', shape.stringColumnTypes],
  ];
  const broken = checks.filter(([key, , offenders]) => offenders.length > LIMITS[key]).map(([key, what, offenders]) => `${offenders.length} ${what} (limit ${LIMITS[key]}):\n  ${offenders.join('\n  ')}`);
  if (shape.publicNames > LIMITS.publicNames) broken.push(`${shape.publicNames} public names (limit ${LIMITS.publicNames})`);
  if (shape.srcLines > LIMITS.srcLines) broken.push(`${shape.srcLines} src/ lines (limit ${LIMITS.srcLines})`);
  return broken;
}

/** The one-line summary `npm run shape` ends with. */
export function summary(shape) {
  return (
    `shape: ${shape.publicNames} public names (${shape.deprecatedNames} deprecated, ${shape.distinctPublicSymbols} distinct), ` +
    `${shape.undocumentedValues.length} undocumented values, ${shape.over150.length} functions > 150 lines, ${shape.over80.length} > 80, ` +
    `${shape.runtimeCycles.length} runtime cycles, ${shape.domainIntoReference.length} domain->reference imports, ${shape.samzaIntoStore.length} samza->store imports, ${shape.upwardImports.length} upward imports, ` +
    `${shape.over5Params.length} functions > 5 parameters, ${shape.stringColumnTypes.length} string-column types, ${shape.srcLines} src/ lines`
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const shape = measureShape();
  if (process.argv.includes('--json')) console.log(JSON.stringify(shape, null, 1));
  else {
    for (const e of shape.entries) {
      const extra = [e.deprecated.length ? `deprecated: ${e.deprecated.join(' ')}` : '', e.undocumented.length ? `undocumented values: ${e.undocumented.join(' ')}` : ''].filter(Boolean);
      console.log(`${e.entry}: ${e.names.length} names (${e.values.length} values, ${e.deprecated.length} deprecated)${extra.length ? '; ' + extra.join('; ') : ''}`);
    }
    console.log('longest functions:');
    for (const f of shape.over80.slice(0, 10)) console.log(`  ${String(f.lines).padStart(4)} ${f.where} ${f.name}`);
    console.log(summary(shape));
  }
  const broken = brokenLimits(shape);
  for (const b of broken) console.error(`over the limit: ${b}`);
  process.exitCode = broken.length > 0 ? 1 : 0;
}
