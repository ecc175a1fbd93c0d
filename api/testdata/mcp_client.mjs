// Drives svc's /mcp with the official TypeScript MCP client (@modelcontextprotocol/sdk,
// StreamableHTTPClientTransport): lists tools, starts an echo run, follows it with get_run until it
// succeeds (counting progress notifications), calls an action tool, and lists a scope-limited key's
// tools. Prints one JSON line with what it saw. Environment: SVC_MCP_URL, SVC_KEY, SVC_LIMITED_KEY,
// ACTION_TOOL.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = new URL(process.env.SVC_MCP_URL);

async function connect(key) {
  const client = new Client({ name: "svc-interop", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

const names = (list) => list.tools.map((t) => t.name).sort();

const client = await connect(process.env.SVC_KEY);
const tools = names(await client.listTools());

const created = await client.callTool({
  name: "create_run",
  arguments: { serviceId: "managed-workflows", operationId: "echo", input: { from: "typescript" } },
});
if (created.isError) throw new Error(`create_run: ${JSON.stringify(created)}`);
const runId = created.structuredContent.run.id;

let progress = 0;
let run = created.structuredContent.run;
for (let i = 0; i < 10 && run.status !== "succeeded"; i++) {
  const got = await client.callTool(
    { name: "get_run", arguments: { runId, waitSeconds: 10 } },
    undefined,
    { onprogress: () => { progress++; }, timeout: 60000 },
  );
  if (got.isError) throw new Error(`get_run: ${JSON.stringify(got)}`);
  run = got.structuredContent.run;
}

const action = await client.callTool({ name: process.env.ACTION_TOOL, arguments: { input: { prompt: "a cat" } } });
const missing = await client.callTool({ name: "get_run", arguments: { runId: "run_doesnotexist" } });
await client.close();

const limited = await connect(process.env.SVC_LIMITED_KEY);
const limitedTools = names(await limited.listTools());
await limited.close();

console.log(JSON.stringify({
  tools,
  runId,
  status: run.status,
  output: run.output,
  progress,
  action: { isError: action.isError ?? false, content: action.structuredContent },
  missing: { isError: missing.isError ?? false, code: missing.structuredContent?.error?.code },
  limitedTools,
}));
