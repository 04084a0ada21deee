// The broker plugin's jar (build/assignor-broker.jar, built by npm run build:jvm when missing or
// older than jvm/ or the wasm) and a Java driver compiled against it and the 4.4.0 group coordinator.
// A missing JVM or Maven fails the caller, never skips.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classpath } from '../kafka/jvm.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PLUGIN_JAR = join(ROOT, 'build', 'assignor-broker.jar');

function newestMtime(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((f) => newestMtime(join(path, f))));
}

const built = new Map<string, string>();

/** The classpath to run `driver` (a .java file) with the plugin jar; compiled into this checkout's jvm/target. */
export function pluginDriver(driver: string): string {
  const known = built.get(driver);
  if (known !== undefined) return known;
  const sources = Math.max(newestMtime(join(ROOT, 'jvm', 'src')), newestMtime(join(ROOT, 'jvm', 'pom.xml')), existsSync(join(ROOT, 'build', 'release.wasm')) ? newestMtime(join(ROOT, 'build', 'release.wasm')) : Infinity);
  if (!existsSync(PLUGIN_JAR) || statSync(PLUGIN_JAR).mtimeMs < sources) execFileSync('npm', ['run', 'build:jvm'], { cwd: ROOT, stdio: ['ignore', 2, 'inherit'] });
  const cp = `${PLUGIN_JAR}:${classpath('coordinator')}`;
  const out = join(ROOT, 'jvm', 'target', `driver-${basename(driver, '.java')}`);
  execFileSync('javac', ['-nowarn', '-encoding', 'UTF-8', '-cp', cp, '-d', out, driver], { stdio: ['ignore', 'inherit', 'inherit'] });
  const full = `${out}:${cp}`;
  built.set(driver, full);
  return full;
}
