// http-client.mjs drives the official TypeScript MCP client
// (@modelcontextprotocol/client) against one Streamable HTTP server, for
// interop/http_clients_test.go. It connects, lists the tools and calls one
// each tool it is told to, asking for progress, then prints a single JSON report line on
// stdout and exits 0. Every failure is part of the report, not of the exit
// status: a non-zero exit means this script itself is broken.
//
// Usage: node http-client.mjs '<json config>'
//
// The config:
//   url          the MCP endpoint
//   negotiation  "legacy" (the client's default, no option set), "auto" or
//                "pin" (versionNegotiation set; pin asks for 2026-07-28)
//   timeoutMs    the deadline of each request, the connect-time probe included
//   calls        the tools to call, in order: [{tool, arguments}]
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { connect, describe, negotiationOptions, packageVersion, session, settle, toolText } from "../clientreport.mjs";

const config = JSON.parse(process.argv[2] ?? "{}");

const report = {
  version: "",
  node: process.version,
  negotiation: config.negotiation ?? "legacy",
  connected: false,
  protocolVersion: "",
  serverName: "",
  tools: [],
  // calls has one entry a call made: its text, whether it is an error,
  // and how many progress notifications arrived for it.
  calls: [],
  failure: null,
  errors: [],
};

async function run() {
  report.version = packageVersion(import.meta.url, "@modelcontextprotocol/client");
  const transport = new StreamableHTTPClientTransport(new URL(config.url));
  const client = new Client({ name: "mcplab-interop", version: "0.0.0" }, negotiationOptions(report.negotiation, config.timeoutMs));
  client.onerror = (err) => report.errors.push(describe(err));
  const options = { timeout: config.timeoutMs };
  await session(report, client, async (at) => {
    await connect(report, client, transport, options);
    at.step = "tools/list";
    report.tools = (await client.listTools(undefined, options)).tools.map((t) => t.name);
    for (const { tool, arguments: args } of config.calls ?? []) {
      at.step = `tools/call ${tool}`;
      const call = { tool, isError: false, text: "", progress: 0 };
      const called = await client.callTool({ name: tool, arguments: args ?? {} }, { ...options, onprogress: () => call.progress++ });
      call.isError = called.isError === true;
      call.text = toolText(called);
      report.calls.push(call);
    }
  });
}

await settle(report, run);
process.stdout.write(JSON.stringify(report) + "\n");
