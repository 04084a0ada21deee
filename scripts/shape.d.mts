// Types of scripts/shape.mjs for the tests that use it.
export interface EntryShape {
  /** The entry file, e.g. src/samza/index.ts. */
  entry: string;
  /** Every public name (values and types), sorted. */
  names: string[];
  values: string[];
  /** Names whose export carries `@deprecated` (they leave in the next release). */
  deprecated: string[];
  /** Exported values that README.md and docs/*.md never name as a whole word. */
  undocumented: string[];
}
export interface FunctionLength {
  /** file:line of the function's first line. */
  where: string;
  name: string;
  /** Last line - first line + 1. */
  lines: number;
  /** Declared parameters, a TypeScript `this` parameter not counted. */
  params: number;
}
export interface Shape {
  entries: EntryShape[];
  publicNames: number;
  deprecatedNames: number;
  distinctPublicSymbols: number;
  /** `entry: name` of each undocumented exported value. */
  undocumentedValues: string[];
  functions: number;
  over150: FunctionLength[];
  over80: FunctionLength[];
  over5Params: FunctionLength[];
  /** Names of the classes, interfaces and type aliases in src/ that are a column of strings. */
  stringColumnTypes: string[];
  srcLines: number;
  /** Each runtime import cycle as its files, sorted. */
  runtimeCycles: string[][];
  /** `from -> to` of each runtime import. */
  domainIntoReference: string[];
  samzaIntoStore: string[];
  /** `from -> to` of each runtime import that points up, or across into another folder of the same layer. */
  upwardImports: string[];
}
export const LIMITS: Readonly<{ runtimeCycles: number; domainIntoReference: number; samzaIntoStore: number; undocumentedValues: number; over150: number; over80: number; upwardImports: number; over5Params: number; stringColumnTypes: number; publicNames: number; srcLines: number }>;
export function entryFiles(root?: string): string[];
export function docsText(root?: string): string;
export function isDocumented(name: string, docs: string): boolean;
export function measureShape(root?: string): Shape;
export function brokenLimits(shape: Shape): string[];
export function summary(shape: Shape): string;
