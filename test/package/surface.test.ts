// The public surface as a newcomer reads it: every exported value of every package entry (read
// from package.json "exports") is named in docs/*.md or README.md, and the number of public names
// (values and types, summed over the entries) does not grow past what issue 23 brought it down to.
// scripts/shape.mjs lists the exports with the compiler API, so re-exports, aliases and `export *` all count.
import { describe, expect, it } from 'vitest';
import { isDocumented, measureShape } from '../../scripts/shape.mjs';

/**
 * The most public names all entries may have together (a name in two entries counts twice; values
 * and types alike, as the project's shape measure counts them), deprecated re-exports included;
 * those leave in the release after 0.2.0 (CHANGELOG.md, "Deprecated"). 379
 * before issue 23; 327 once the undocumented internals left; 284 (64 deprecated) once the root kept
 * only its front door and the subpaths their rooms. Without the deprecated ones that is 220: issue
 * 23 aims at about 180. Then 284 (65 deprecated, 219 current) with the store reader contract's
 * types in and the platformatic entry's copies of other rooms' types out. 265 (46 deprecated) once
 * the 19 deprecated names 0.1.0 never had were deleted (issue 32); 257 (211 current) once the
 * kafkajs entry's copies of other rooms' types and four undocumented result types left; 253 (207
 * current) once four parts of the group result left too. The 46 deprecated and the 119 current
 * names 0.1.0 exported (165) stay through 0.2.0, so 180 is within reach only in the release after.
 * Lower these as names leave; never raise them.
 */
const MAX_PUBLIC_NAMES = 253;
/** The names that stay once the deprecated ones are gone. */
const MAX_CURRENT_NAMES = 207;

describe('package surface', () => {
  const shape = measureShape();
  const all = shape.entries;

  it('reads every entry package.json exports', () => {
    expect(all.map((s) => s.entry)).toContain('src/index.ts');
    expect(all.length).toBeGreaterThanOrEqual(9);
    for (const s of all) expect(s.values.length, s.entry).toBeGreaterThan(0);
  });

  it('names every exported value in docs/*.md or README.md', () => {
    expect(shape.undocumentedValues, `exported values no doc names:\n${shape.undocumentedValues.join('\n')}`).toEqual([]);
  });

  it(`keeps the public names at or under ${MAX_PUBLIC_NAMES}, and under ${MAX_CURRENT_NAMES} without the deprecated ones`, () => {
    const counts = all.map((s) => `${s.entry}: ${s.names.length} names (${s.values.length} values, ${s.deprecated.length} deprecated)`).join('\n');
    console.log(`public names: ${shape.publicNames} (${shape.deprecatedNames} deprecated)\n${counts}`);
    expect(shape.publicNames, counts).toBeLessThanOrEqual(MAX_PUBLIC_NAMES);
    expect(shape.publicNames - shape.deprecatedNames, counts).toBeLessThanOrEqual(MAX_CURRENT_NAMES);
  });

  it("gives each of the root's deprecated names a home: the same name, not deprecated, at a subpath, and the same value", async () => {
    const root = all.find((s) => s.entry === 'src/index.ts')!;
    const homes = new Map<string, string>();
    for (const name of root.deprecated) {
      const home = all.find((s) => s.entry !== root.entry && s.names.includes(name) && !s.deprecated.includes(name));
      expect(home?.entry, `${name} has no subpath that keeps it`).toBeDefined();
      homes.set(name, home!.entry);
    }
    const rootModule = (await import('../../src/index.js')) as Record<string, unknown>;
    for (const name of root.deprecated.filter((n) => root.values.includes(n))) {
      const home = (await import(`../../${homes.get(name)!.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>;
      expect(rootModule[name], name).toBe(home[name]);
      expect(rootModule[name], name).toBeDefined();
    }
  });

  it('tells a documented name from an undocumented one', () => {
    const docs = 'use `partitionForKey` or a$b';
    expect(['partitionForKey', 'partitionForKeyX', 'a$b'].filter((n) => !isDocumented(n, docs))).toEqual(['partitionForKeyX']);
  });
});
