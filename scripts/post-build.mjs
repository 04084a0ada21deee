// After tsc: mark dist/cjs as CommonJS (the package itself is "type": "module") and make the CLI
// executable. The kernel modules need no copying: they are embedded (scripts/embed-wasm.mjs).
import { chmodSync, writeFileSync } from 'node:fs';

writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);
chmodSync('dist/cli/main.js', 0o755);
