// Drives `svc mcp-tools` over stdio with the official TypeScript MCP client and prints one JSON object
// with what each step answered. The command and its environment come from SVC_BIN, SVC_BIN_ARGS (JSON)
// and the inherited environment; FILE is the file handoff_file sends.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const transport = new StdioClientTransport({
  command: process.env.SVC_BIN,
  args: JSON.parse(process.env.SVC_BIN_ARGS),
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "svc-interop-test", version: "1.0.0" });
await client.connect(transport);

const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, structured: r.structuredContent ?? null, text: r.content?.[0]?.text ?? "" };
};

const out = {};
out.server = client.getServerVersion();
out.tools = (await client.listTools()).tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
out.machines = await call("list_svc_machines", {});
out.capabilities = await call("crypto_capabilities", {});
out.select = await call("select_crypto_rail", { amountUsd: 2 });
out.prepare = await call("prepare_crypto_action", { amountUsd: 2 });
out.plan = await call("plan_handoff", { target: "studio-m", task: "fix the flaky test" });
out.handoffFile = await call("handoff_file", { target: "studio.local", files: [process.env.FILE], note: "from the MCP test" });
out.unknownMachine = await call("plan_handoff", { target: "laptop" });
out.taskWithoutText = await call("handoff_task", { target: "studio-mac", task: "  " });

await client.close();
process.stdout.write(JSON.stringify(out));
