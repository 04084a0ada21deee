// Reads vitest JSON reports (one per suite: the primary runtime's full suite, then each library
// runtime's) and prints one line per suite, then the closing line "N passed, N failed" for all.
// A report that is missing counts as one failure: that suite did not run.
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  const suite = basename(file, '.json');
  if (!existsSync(file)) {
    console.log(`${suite}: no report (the suite did not run)`);
    failed++;
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  // A test file that fails outside its tests (loading, a beforeAll hook) has no failed test of
  // its own, only skipped ones or none; count it as one failure.
  const broken = (r.testResults ?? []).filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed')).length;
  const f = r.numFailedTests + broken;
  console.log(`${suite}: ${r.numPassedTests} passed, ${f} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
  passed += r.numPassedTests;
  failed += f;
}
console.log(`${passed} passed, ${failed} failed`);
