// After tsc: ship the kernel modules inside dist/ and make the CLI executable.
import { copyFileSync, mkdirSync, chmodSync, existsSync } from 'node:fs';

mkdirSync('dist/wasm', { recursive: true });
for (const f of ['release.wasm', 'release.simd.wasm', 'debug.wasm']) {
  if (!existsSync(`build/${f}`)) throw new Error(`build/${f} is missing: run npm run build:wasm`);
  copyFileSync(`build/${f}`, `dist/wasm/${f}`);
}
chmodSync('dist/cli/main.js', 0o755);
