// Buys svc credits with the reference x402 client, unchanged: @x402/fetch's
// wrapFetchWithPayment around Node's fetch, an x402Client with @x402/evm's
// exact scheme, and a viem account. Only public API and configuration are used.
// Run by TestX402InteropFetchPaysTopUp (api/x402_interop_test.go).
//
// Input (environment):
//   SVC_URL              host root of a running svc, e.g. http://127.0.0.1:PORT
//   SVC_KEY              API key, sent as Authorization: Bearer
//   PAYER_KEY            payer's private key, 0x + 64 hex
//   USDC_ADDRESS         the token svc asks to be paid in
//   NETWORK              its CAIP-2 network, e.g. eip155:1337
//   AMOUNT_USD           the top-up to buy, e.g. 25
//   MAX_PAYMENT_ATOMIC   the client's spend cap for that token, atomic units
//   IDEMPOTENCY_KEY      the request's Idempotency-Key
//
// Output (stdout, one JSON line):
//   { payer, status, headers, body, paymentResponse, error?, exchanges: [{request, response}] }
// where paymentResponse is PAYMENT-RESPONSE decoded by the package's own
// decodePaymentResponseHeader and exchanges records every HTTP round trip the
// wrapper made (secrets redacted), for diagnosing an incompatibility.
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";

function env(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`environment variable ${name} is required`);
  }
  return v;
}

const exchanges = [];
const out = { payer: null, status: null, headers: {}, body: null, paymentResponse: null, exchanges };

function headersObject(headers) {
  const o = {};
  headers.forEach((value, name) => {
    o[name] = name === "authorization" ? value.replace(/^(Bearer ).*$/i, "$1<redacted>") : value;
  });
  return o;
}

function tryDecode(decode, value) {
  if (!value) return undefined;
  try {
    return decode(value);
  } catch (e) {
    return { undecodable: String(e) };
  }
}

// recordingFetch is the plain fetch handed to wrapFetchWithPayment; it only
// records what goes over the wire (on clones) and changes nothing.
async function recordingFetch(input, init) {
  const request = new Request(input, init);
  const entry = {
    request: {
      method: request.method,
      url: request.url,
      headers: headersObject(request.headers),
      body: await request.clone().text(),
    },
  };
  exchanges.push(entry);
  const response = await fetch(request);
  const text = await response.clone().text();
  entry.response = {
    status: response.status,
    headers: headersObject(response.headers),
    body: text,
    paymentRequired: tryDecode(decodePaymentRequiredHeader, response.headers.get("payment-required")),
    paymentResponse: tryDecode(decodePaymentResponseHeader, response.headers.get("payment-response")),
  };
  return response;
}

try {
  const account = privateKeyToAccount(env("PAYER_KEY"));
  out.payer = account.address;

  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  // The defaults allow only the packages' built-in stablecoins, at most $1 a
  // payment: allow svc's token, capped at the amount this top-up costs.
  client.setSpendControls({
    allowedAssets: [
      { network: env("NETWORK"), asset: env("USDC_ADDRESS"), maxAmountPerPayment: env("MAX_PAYMENT_ATOMIC") },
    ],
  });
  const fetchWithPayment = wrapFetchWithPayment(recordingFetch, client);

  const res = await fetchWithPayment(`${env("SVC_URL")}/v1/credits/x402/top-up`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${env("SVC_KEY")}`,
      "Content-Type": "application/json",
      "Idempotency-Key": env("IDEMPOTENCY_KEY"),
    },
    body: JSON.stringify({ amountUsd: Number(env("AMOUNT_USD")) }),
  });
  out.status = res.status;
  out.headers = headersObject(res.headers);
  const text = await res.text();
  try {
    out.body = JSON.parse(text);
  } catch {
    out.body = text;
  }
  const header = res.headers.get("PAYMENT-RESPONSE");
  if (header) {
    out.paymentResponse = decodePaymentResponseHeader(header);
  }
} catch (e) {
  out.error = e instanceof Error ? `${e.message}${e.cause ? ` (cause: ${e.cause})` : ""}` : String(e);
}
process.stdout.write(JSON.stringify(out) + "\n");
