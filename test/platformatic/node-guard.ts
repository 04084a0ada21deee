// @platformatic/kafka 2.12.1 needs Node >= 22.22 (its engines field). Imported first by every
// test file of this directory, so that on an older Node the file fails with this message instead
// of an import error deep inside the client (or being skipped).
const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
if (major < 22 || (major === 22 && minor < 22)) {
  throw new Error(`test/platformatic needs Node >= 22.22 (@platformatic/kafka 2.12.1's engines); this is Node ${process.versions.node}. Run it on Node 24, the project's primary runtime.`);
}
