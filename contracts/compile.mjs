// compile.mjs builds contracts/src/DevUSDC.sol with the pinned solc (npm) through
// solc's standard-JSON interface and writes build/DevUSDC.json:
//   { contractName, compiler, abi, bytecode, deployedBytecode }
// Usage: node compile.mjs [--out DIR]   (DIR defaults to ./build next to this file)
//
// Source unit names are relative ("src/DevUSDC.sol", "@openzeppelin/contracts/...")
// so the metadata hash, and with it the bytecode, does not depend on where the
// tree is checked out.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";

const ROOT = dirname(fileURLToPath(import.meta.url));
const CONTRACT = "DevUSDC";
const SOURCE = `src/${CONTRACT}.sol`;

// parseOut returns the output directory from `--out DIR` (or `--out=DIR`).
function parseOut(argv) {
  const usage = "usage: node compile.mjs [--out DIR]";
  if (argv.length === 0) return join(ROOT, "build");
  if (argv.length === 1 && argv[0].startsWith("--out=")) return resolve(argv[0].slice("--out=".length));
  if (argv.length === 2 && argv[0] === "--out") return resolve(argv[1]);
  throw new Error(`bad arguments ${JSON.stringify(argv)} (${usage})`);
}

// findImport resolves an import's source unit name: packages from node_modules,
// everything else relative to this directory. It never leaves ROOT.
function findImport(unit) {
  const rel = normalize(unit);
  if (rel.startsWith("..") || rel.startsWith(sep)) return { error: `refusing import outside the tree: ${unit}` };
  const base = unit.startsWith("@") ? join(ROOT, "node_modules") : ROOT;
  try {
    return { contents: readFileSync(join(base, rel), "utf8") };
  } catch (err) {
    return { error: `import ${unit}: ${err.message}` };
  }
}

// standardInput is the solc standard-JSON request for the contract.
function standardInput() {
  return {
    language: "Solidity",
    sources: { [SOURCE]: { content: readFileSync(join(ROOT, SOURCE), "utf8") } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
      outputSelection: {
        [SOURCE]: { [CONTRACT]: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] },
      },
    },
  };
}

// compile runs solc and returns the contract's output, failing on any error.
function compile() {
  const output = JSON.parse(solc.compile(JSON.stringify(standardInput()), { import: findImport }));
  const diagnostics = output.errors ?? [];
  for (const d of diagnostics) process.stderr.write(`${d.formattedMessage ?? d.message}\n`);
  if (diagnostics.some((d) => d.severity === "error")) throw new Error("solc reported errors");
  const contract = output.contracts?.[SOURCE]?.[CONTRACT];
  if (!contract) throw new Error(`solc produced no output for ${SOURCE}:${CONTRACT}`);
  return contract;
}

// main compiles and writes the artifact.
function main() {
  const outDir = parseOut(process.argv.slice(2));
  const contract = compile();
  const artifact = {
    contractName: CONTRACT,
    compiler: solc.version(),
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
  };
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${CONTRACT}.json`);
  writeFileSync(file, `${JSON.stringify(artifact, null, 2)}\n`);
  process.stdout.write(`wrote ${file} (solc ${artifact.compiler})\n`);
}

try {
  main();
} catch (err) {
  process.stderr.write(`compile.mjs: ${err.message}\n`);
  process.exit(1);
}
