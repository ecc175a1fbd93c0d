// extract.mjs splits a build artifact into the inputs abigen reads.
// Usage: node extract.mjs ARTIFACT.json OUTDIR  ->  OUTDIR/<name>.abi, OUTDIR/<name>.bin
//
// abigen names overloads by ABI order (the first keeps the name, the next gets
// a "0" suffix), and solc's order differs between functions. So that the Go
// names are consistent, the (v, r, s) variant of each EIP-3009 function is put
// before its `bytes signature` variant: Foo is (v, r, s), Foo0 is bytes.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// takesSignatureBytes reports whether an ABI entry ends in a `bytes signature` input.
function takesSignatureBytes(entry) {
  const last = entry.inputs?.[entry.inputs.length - 1];
  return last?.name === "signature" && last?.type === "bytes";
}

// orderOverloads moves every `bytes signature` overload right after the last
// entry of the same name, keeping everything else in solc's order.
function orderOverloads(abi) {
  const out = abi.filter((e) => !(e.type === "function" && takesSignatureBytes(e)));
  for (const e of abi.filter((x) => x.type === "function" && takesSignatureBytes(x))) {
    const at = out.findLastIndex((x) => x.type === "function" && x.name === e.name);
    out.splice(at + 1, 0, e);
  }
  return out;
}

const [artifactPath, outDir] = process.argv.slice(2);
if (!artifactPath || !outDir) {
  process.stderr.write("usage: node extract.mjs ARTIFACT.json OUTDIR\n");
  process.exit(2);
}
const artifact = JSON.parse(readFileSync(artifactPath, "utf8"));
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, `${artifact.contractName}.abi`), JSON.stringify(orderOverloads(artifact.abi)));
writeFileSync(join(outDir, `${artifact.contractName}.bin`), artifact.bytecode.replace(/^0x/, ""));
