// The JVM side of the tests: classpaths of the Maven projects in test/kafka/ (Kafka's and Samza's
// real jars from Maven Central), and compiling and running small Java harnesses against them.
// Used by the oracle tests and benchmarks; everything here fails loudly, never skips.
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));

/** `kafka`: broker, kafka-clients, kafka-streams (Scala 2.13). `samza`: samza-core_2.12. `coordinator`: the 4.4.0 group coordinator (KIP-848 assignors). */
export type JvmProject = 'kafka' | 'samza' | 'coordinator';

function projectDir(project: JvmProject): string {
  return project === 'kafka' ? HERE : join(HERE, project);
}

/**
 * The classpath of a Maven project, resolved once (Maven downloads the jars into ~/.m2 on first
 * use and writes target/classpath.txt; later calls read that file unless the pom is newer).
 */
export function classpath(project: JvmProject): string {
  const dir = projectDir(project);
  const out = join(dir, 'target', 'classpath.txt');
  const pom = join(dir, 'pom.xml');
  if (!existsSync(out) || statSync(out).mtimeMs < statSync(pom).mtimeMs) {
    // Maven's output goes to stderr: stdout belongs to the caller (broker.ts start prints KAFKA_BROKERS=... there,
    // and Maven's colour resets in front of it kept .ci/run from reading the address).
    execFileSync('mvn', ['-q', '-B', 'dependency:build-classpath', `-Dmdep.outputFile=${out}`], { cwd: dir, stdio: ['ignore', 2, 'inherit'] });
    // Maven leaves the file as it is when the classpath did not change; mark it as checked, or every call would run Maven again.
    const now = new Date();
    utimesSync(out, now, now);
  }
  const cp = readFileSync(out, 'utf8').trim();
  if (cp === '') throw new Error(`Maven gave an empty classpath for ${dir}`);
  return cp;
}

/**
 * Compiles Java sources against a project's classpath into `outDir` (skipped when every class file
 * is newer than its source) and returns the classpath to run them with.
 */
export function compileJava(project: JvmProject, sources: string[], outDir: string): string {
  const cp = classpath(project);
  mkdirSync(outDir, { recursive: true });
  execFileSync('javac', ['-nowarn', '-encoding', 'UTF-8', '-cp', cp, '-d', outDir, ...sources], { stdio: ['ignore', 'inherit', 'inherit'] });
  return `${outDir}:${cp}`;
}

/** Runs `java -cp <cp> <mainClass> <args>` with optional stdin; throws with stderr when it fails. */
export function runJava(cp: string, mainClass: string, args: string[] = [], input?: string | Buffer, maxHeap = '1g'): SpawnSyncReturns<string> {
  const r = spawnSync('java', [`-Xmx${maxHeap}`, '-cp', cp, mainClass, ...args], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`java ${mainClass} exited ${r.status}: ${r.stderr}`);
  return r;
}
