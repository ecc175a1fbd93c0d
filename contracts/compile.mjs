// compile.mjs builds the contracts in CONTRACTS (each contracts/src/<Name>.sol)
// with the pinned solc (npm) through solc's standard-JSON interface and writes
// one build/<Name>.json per contract:
//   { contractName, compiler, abi, bytecode, deployedBytecode }
// It also copies the prebuilt contracts in PREBUILT (WETH9, Uniswap V2) from their pinned
// npm package into the same shape, without recompiling them.
// Usage: node compile.mjs [--out DIR]   (DIR defaults to ./build next to this file)
//
// Source unit names are relative ("src/DevUSDC.sol", "@openzeppelin/contracts/...")
// so the metadata hash, and with it the bytecode, does not depend on where the
// tree is checked out. A contract's metadata covers only the sources it
// imports, so compiling several together leaves each one's bytecode as if it
// were compiled alone.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";

const ROOT = dirname(fileURLToPath(import.meta.url));
const CONTRACTS = ["DevUSDC", "LaunchToken", "LaunchPool", "FeesManager", "DevToken"];

// PREBUILT maps an artifact name to the npm package file it is copied from.
const PREBUILT = {
  WETH9: { pkg: "@uniswap/v2-periphery", file: "build/WETH9.json" },
  UniswapV2Factory: { pkg: "@uniswap/v2-core", file: "build/UniswapV2Factory.json" },
  UniswapV2Pair: { pkg: "@uniswap/v2-core", file: "build/UniswapV2Pair.json" },
  UniswapV2Router02: { pkg: "@uniswap/v2-periphery", file: "build/UniswapV2Router02.json" },
};

// sourceOf is the source unit name of a contract.
const sourceOf = (name) => `src/${name}.sol`;

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

// standardInput is the solc standard-JSON request for all of CONTRACTS.
function standardInput() {
  const sources = {};
  const outputSelection = {};
  for (const name of CONTRACTS) {
    sources[sourceOf(name)] = { content: readFileSync(join(ROOT, sourceOf(name)), "utf8") };
    outputSelection[sourceOf(name)] = { [name]: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] };
  }
  return {
    language: "Solidity",
    sources,
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun", outputSelection },
  };
}

// compile runs solc and returns the artifacts of CONTRACTS, failing on any error.
function compile() {
  const output = JSON.parse(solc.compile(JSON.stringify(standardInput()), { import: findImport }));
  const diagnostics = output.errors ?? [];
  for (const d of diagnostics) process.stderr.write(`${d.formattedMessage ?? d.message}\n`);
  if (diagnostics.some((d) => d.severity === "error")) throw new Error("solc reported errors");
  return CONTRACTS.map((name) => {
    const contract = output.contracts?.[sourceOf(name)]?.[name];
    if (!contract) throw new Error(`solc produced no output for ${sourceOf(name)}:${name}`);
    return {
      contractName: name,
      compiler: solc.version(),
      abi: contract.abi,
      bytecode: `0x${contract.evm.bytecode.object}`,
      deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
    };
  });
}

// prebuilt returns the artifacts of PREBUILT, copied from their npm packages
// (bytecode as shipped, never recompiled).
function prebuilt() {
  return Object.entries(PREBUILT).map(([name, { pkg, file }]) => {
    const pkgDir = join(ROOT, "node_modules", pkg);
    const { version } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    const shipped = JSON.parse(readFileSync(join(pkgDir, file), "utf8"));
    const bytecode = shipped.evm?.bytecode?.object;
    const deployed = shipped.evm?.deployedBytecode?.object;
    if (!bytecode || !deployed) throw new Error(`${pkg}/${file} has no bytecode`);
    return {
      contractName: name,
      compiler: `prebuilt: ${pkg}@${version} ${file}`,
      abi: shipped.abi,
      bytecode: `0x${bytecode.replace(/^0x/, "")}`,
      deployedBytecode: `0x${deployed.replace(/^0x/, "")}`,
    };
  });
}

// main compiles and writes the artifacts.
function main() {
  const outDir = parseOut(process.argv.slice(2));
  mkdirSync(outDir, { recursive: true });
  for (const artifact of [...compile(), ...prebuilt()]) {
    const file = join(outDir, `${artifact.contractName}.json`);
    writeFileSync(file, `${JSON.stringify(artifact, null, 2)}\n`);
    process.stdout.write(`wrote ${file} (${artifact.compiler})\n`);
  }
}

try {
  main();
} catch (err) {
  process.stderr.write(`compile.mjs: ${err.message}\n`);
  process.exit(1);
}
