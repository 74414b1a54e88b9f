// client.mjs drives one official TypeScript MCP client against one stdio
// server, for interop/clients_test.go. It connects, lists the tools and calls
// one of them, then prints a single JSON report line on stdout and exits 0.
// Every failure is part of the report, not of the exit status: a non-zero
// exit means this script itself is broken.
//
// Usage: node client.mjs '<json config>'
//
// The config:
//   sdk          "v2" (@modelcontextprotocol/client) or "v1" (@modelcontextprotocol/sdk)
//   negotiation  v2 only: "legacy" (the client's default, no option set),
//                "auto" or "pin" (versionNegotiation set; pin asks for 2026-07-28)
//   command, args, env  the server to spawn; env is passed as it is
//   timeoutMs    the deadline of each request, the connect-time probe included
//   tool, arguments     the tool to call
import { connect, describe, negotiationOptions, packageVersion, session, settle, toolText } from "../clientreport.mjs";

const config = JSON.parse(process.argv[2] ?? "{}");
const started = Date.now();

const report = {
  sdk: config.sdk,
  package: "",
  version: "",
  negotiation: config.negotiation ?? "",
  connected: false,
  protocolVersion: "",
  serverName: "",
  tools: [],
  call: null,
  // failure is the first request that failed: its step and the error.
  failure: null,
  // errors are what the client reported through onerror while it ran, such
  // as a line it could not parse.
  errors: [],
  elapsedMs: 0,
};

async function load(sdk) {
  if (sdk === "v2") {
    const main = await import("@modelcontextprotocol/client");
    const stdio = await import("@modelcontextprotocol/client/stdio");
    return { pkg: "@modelcontextprotocol/client", Client: main.Client, StdioClientTransport: stdio.StdioClientTransport };
  }
  if (sdk === "v1") {
    const main = await import("@modelcontextprotocol/sdk/client/index.js");
    const stdio = await import("@modelcontextprotocol/sdk/client/stdio.js");
    return { pkg: "@modelcontextprotocol/sdk", Client: main.Client, StdioClientTransport: stdio.StdioClientTransport };
  }
  throw new Error(`unknown sdk ${JSON.stringify(sdk)}: want "v1" or "v2"`);
}

// clientOptions sets versionNegotiation on v2 only; v1 has no such option.
function clientOptions(sdk, negotiation, timeoutMs) {
  if (sdk !== "v2" || negotiation === "") {
    return {};
  }
  return negotiationOptions(negotiation, timeoutMs);
}

// listAllTools follows nextCursor to the last page. v2's listTools() with no
// cursor walks the pages itself; v1's returns one page.
async function listAllTools(client, sdk, options) {
  if (sdk === "v2") {
    return (await client.listTools(undefined, options)).tools.map((t) => t.name);
  }
  const names = [];
  let cursor;
  for (let page = 0; page < 64; page++) {
    const listed = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
    names.push(...listed.tools.map((t) => t.name));
    cursor = listed.nextCursor;
    if (cursor === undefined) {
      return names;
    }
  }
  throw new Error("tools/list: still a nextCursor after 64 pages");
}

async function run() {
  const { pkg, Client, StdioClientTransport } = await load(config.sdk);
  report.package = pkg;
  report.version = packageVersion(import.meta.url, pkg);

  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    env: config.env,
    stderr: "ignore",
  });
  const client = new Client(
    { name: "mcplab-interop", version: "0.0.0" },
    clientOptions(config.sdk, report.negotiation, config.timeoutMs),
  );
  client.onerror = (err) => report.errors.push(describe(err));
  const options = { timeout: config.timeoutMs };

  await session(report, client, async (at) => {
    await connect(report, client, transport, options);
    at.step = "tools/list";
    report.tools = await listAllTools(client, config.sdk, options);
    at.step = "tools/call";
    const params = { name: config.tool, arguments: config.arguments ?? {} };
    // v1 takes a result schema before the options; v2 takes the options only.
    const called = config.sdk === "v1" ? await client.callTool(params, undefined, options) : await client.callTool(params, options);
    report.call = { isError: called.isError === true, text: toolText(called) };
  });
}

await settle(report, run);
report.elapsedMs = Date.now() - started;
process.stdout.write(JSON.stringify(report) + "\n");
