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
import { readFileSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

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

function describe(err) {
  return {
    name: err?.constructor?.name ?? typeof err,
    code: err?.code ?? null,
    message: String(err?.message ?? err),
  };
}

function clientOptions(negotiation, timeoutMs) {
  const probe = { timeoutMs };
  switch (negotiation) {
    case "legacy":
      return {};
    case "auto":
      return { versionNegotiation: { mode: "auto", probe } };
    case "pin":
      return { versionNegotiation: { mode: { pin: "2026-07-28" }, probe } };
  }
  throw new Error(`unknown negotiation ${JSON.stringify(negotiation)}`);
}

async function run() {
  const manifest = new URL("./node_modules/@modelcontextprotocol/client/package.json", import.meta.url);
  report.version = JSON.parse(readFileSync(manifest, "utf8")).version;
  const transport = new StreamableHTTPClientTransport(new URL(config.url));
  const client = new Client({ name: "mcplab-interop", version: "0.0.0" }, clientOptions(report.negotiation, config.timeoutMs));
  client.onerror = (err) => report.errors.push(describe(err));
  const options = { timeout: config.timeoutMs };
  let step = "connect";
  try {
    await client.connect(transport, options);
    report.connected = true;
    report.serverName = client.getServerVersion()?.name ?? "";
    report.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? "";
    step = "tools/list";
    report.tools = (await client.listTools(undefined, options)).tools.map((t) => t.name);
    for (const { tool, arguments: args } of config.calls ?? []) {
      step = `tools/call ${tool}`;
      const call = { tool, isError: false, text: "", progress: 0 };
      const called = await client.callTool({ name: tool, arguments: args ?? {} }, { ...options, onprogress: () => call.progress++ });
      call.isError = called.isError === true;
      call.text = (called.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
      report.calls.push(call);
    }
  } catch (err) {
    report.failure = { step, ...describe(err) };
  } finally {
    try {
      await client.close();
    } catch (err) {
      report.errors.push(describe(err));
    }
  }
}

try {
  await run();
} catch (err) {
  report.failure = { step: "setup", ...describe(err) };
}
process.stdout.write(JSON.stringify(report) + "\n");
