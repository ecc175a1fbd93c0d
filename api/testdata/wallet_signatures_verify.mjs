// Verifies svc wallet signatures with viem, unchanged: verifyMessage and verifyTypedData for
// personal_sign and eth_signTypedData_v4, recoverTransactionAddress for eth_signTransaction.
// Run by TestWalletSignaturesViemInterop (api/wallet_signatures_interop_test.go).
//
// Input (stdin, JSON): [{ name, kind: "message" | "typedData" | "transaction", address, signature?,
//   message? (text), raw? (0x hex bytes), typedData? ({types, primaryType, domain, message}),
//   serialized? (0x signed transaction) }]
// Output (stdout, one JSON line): [{ name, valid, recovered, error? }]
import { readFileSync } from "node:fs";
import { recoverMessageAddress, recoverTransactionAddress, recoverTypedDataAddress, verifyMessage, verifyTypedData } from "viem";

// bigints turns the integer fields of typed data into BigInt, as viem expects for uint256 and friends.
function bigints(types, type, value) {
  if (Array.isArray(value)) {
    const inner = type.replace(/\[\d*\]$/, "");
    return value.map((v) => bigints(types, inner, v));
  }
  if (/^u?int\d*$/.test(type)) {
    return BigInt(value);
  }
  if (types[type]) {
    const out = {};
    for (const f of types[type]) {
      out[f.name] = bigints(types, f.type, value[f.name]);
    }
    return out;
  }
  return value;
}

const cases = JSON.parse(readFileSync(0, "utf8"));
const results = [];
for (const c of cases) {
  try {
    if (c.kind === "message") {
      const message = c.raw ? { raw: c.raw } : c.message;
      const valid = await verifyMessage({ address: c.address, message, signature: c.signature });
      const recovered = await recoverMessageAddress({ message, signature: c.signature });
      results.push({ name: c.name, valid, recovered });
    } else if (c.kind === "typedData") {
      const td = c.typedData;
      const domain = { ...td.domain };
      if (domain.chainId !== undefined) {
        domain.chainId = BigInt(domain.chainId);
      }
      const args = { domain, types: td.types, primaryType: td.primaryType, message: bigints(td.types, td.primaryType, td.message) };
      const valid = await verifyTypedData({ address: c.address, signature: c.signature, ...args });
      const recovered = await recoverTypedDataAddress({ signature: c.signature, ...args });
      results.push({ name: c.name, valid, recovered });
    } else if (c.kind === "transaction") {
      const recovered = await recoverTransactionAddress({ serializedTransaction: c.serialized });
      results.push({ name: c.name, valid: recovered.toLowerCase() === c.address.toLowerCase(), recovered });
    } else {
      results.push({ name: c.name, valid: false, error: `unknown kind ${c.kind}` });
    }
  } catch (err) {
    results.push({ name: c.name, valid: false, error: String(err && err.stack ? err.stack : err) });
  }
}
process.stdout.write(JSON.stringify(results) + "\n");
