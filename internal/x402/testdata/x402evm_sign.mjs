// Builds an x402 payment header with the reference client packages
// (@x402/core x402Client + x402HTTPClient, @x402/evm exact scheme, viem),
// the same calls @x402/fetch's wrapFetchWithPayment makes after a 402:
//   getPaymentRequiredResponse -> createPaymentPayload -> encodePaymentSignatureHeader.
//
// Input (environment):
//   X402_PAYMENT_REQUIRED       the Payment-Required header value (v2), or
//   X402_PAYMENT_REQUIRED_BODY  a v1 PaymentRequired JSON body (legacy).
// Output (stdout, one JSON line): {"address": "0x...", "headers": {"PAYMENT-SIGNATURE"|"X-PAYMENT": "..."}}
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const account = privateKeyToAccount(generatePrivateKey());
const client = new x402Client();
registerExactEvmScheme(client, { signer: account });
const httpClient = new x402HTTPClient(client);

const responseHeaders = { "payment-required": process.env.X402_PAYMENT_REQUIRED || null };
const body = process.env.X402_PAYMENT_REQUIRED_BODY
  ? JSON.parse(process.env.X402_PAYMENT_REQUIRED_BODY)
  : undefined;
const paymentRequired = httpClient.getPaymentRequiredResponse(
  (name) => responseHeaders[name.toLowerCase()] ?? null,
  body,
);

// The default spend controls allow only the packages' built-in stable coins
// and at most $1 a payment; a client of svc must allow its token and amount.
client.setSpendControls({
  allowedAssets: paymentRequired.accepts.map((a) => ({ network: a.network, asset: a.asset })),
});

const payload = await client.createPaymentPayload(paymentRequired);
const headers = httpClient.encodePaymentSignatureHeader(payload);
process.stdout.write(JSON.stringify({ address: account.address, headers }) + "\n");
