// Drives svc's LLM gateway with the official openai client (installed by llm_interop_test.go) and
// prints one JSON line of what the client read: a completion, a stream with usage, a tool call streamed
// as deltas, an error answer, and a stream the upstream drops.
import OpenAI from "openai";

const client = new OpenAI({ apiKey: process.env.SVC_KEY, baseURL: process.env.SVC_URL + "/llm/v1", maxRetries: 0 });
const pad = " .".repeat(1000);
const out = {};

const { data: completion, response } = await client.chat.completions
  .create({ model: "base", messages: [{ role: "user", content: "say hello" + pad }], max_tokens: 1000 })
  .withResponse();
out.completion = { text: completion.choices[0].message.content, usage: completion.usage, requestId: response.headers.get("x-request-id") };

const stream = await client.chat.completions.create({
  model: "base", messages: [{ role: "user", content: "count" + pad }], max_tokens: 1000, stream: true,
  stream_options: { include_usage: true },
});
let text = "", usage = null;
for await (const chunk of stream) {
  for (const c of chunk.choices) text += c.delta?.content ?? "";
  if (chunk.usage) usage = chunk.usage;
}
out.stream = { text, usage };

const tools = [{ type: "function", function: { name: "get_balance", description: "the balance of an asset",
  parameters: { type: "object", properties: { asset: { type: "string" } }, required: ["asset"] } } }];
const toolStream = await client.chat.completions.create({
  model: "base", messages: [{ role: "user", content: "balance?" + pad }], max_tokens: 1000, stream: true, tools, tool_choice: "auto",
});
const calls = [];
let finish = null;
for await (const chunk of toolStream) {
  for (const c of chunk.choices) {
    for (const d of c.delta?.tool_calls ?? []) {
      calls[d.index] ??= { id: "", name: "", arguments: "" };
      if (d.id) calls[d.index].id = d.id;
      calls[d.index].name += d.function?.name ?? "";
      calls[d.index].arguments += d.function?.arguments ?? "";
    }
    if (c.finish_reason) finish = c.finish_reason;
  }
}
out.toolCall = { calls, finish };

try {
  await client.chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] });
  out.error = { thrown: false };
} catch (e) {
  out.error = { thrown: true, isAPIError: e instanceof OpenAI.APIError, status: e.status, type: e.type, code: e.code, param: e.param,
    message: e.message, requestId: e.headers?.get?.("x-request-id") ?? null };
}

try {
  const dropped = await client.chat.completions.create({
    model: "base", messages: [{ role: "user", content: "drop" + pad }], max_tokens: 1000, stream: true,
  });
  let got = "";
  for await (const chunk of dropped) for (const c of chunk.choices) got += c.delta?.content ?? "";
  out.dropped = { thrown: false, text: got };
} catch (e) {
  out.dropped = { thrown: true, isAPIError: e instanceof OpenAI.APIError, message: e.message };
}

console.log(JSON.stringify(out));
