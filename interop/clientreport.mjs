// clientreport.mjs is what the two scripts that drive an official TypeScript
// MCP client share: node/client.mjs (stdio, for clients_test.go) and
// conformance/http-client.mjs (Streamable HTTP, for http_clients_test.go).
// Each prints one JSON report line in which every failure is a value, not
// an exit status. It imports no package, so both folders can load it
// whatever their node_modules hold.
import { readFileSync } from "node:fs";

// describe is a thrown value as a report carries it.
export function describe(err) {
  return {
    name: err?.constructor?.name ?? typeof err,
    code: err?.code ?? null,
    message: String(err?.message ?? err),
  };
}

// packageVersion is the version of pkg as installed in the node_modules
// beside the script whose import.meta.url is base. The packages do not
// export their package.json, so it is read from disk.
export function packageVersion(base, pkg) {
  const manifest = new URL(`./node_modules/${pkg}/package.json`, base);
  return JSON.parse(readFileSync(manifest, "utf8")).version;
}

// negotiationOptions are the v2 client's options for one negotiation:
// "legacy" (the client's default, no option set), "auto" or "pin"
// (versionNegotiation set; pin asks for 2026-07-28), with timeoutMs as the
// connect-time probe's deadline.
export function negotiationOptions(negotiation, timeoutMs) {
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

// connect connects client over transport and writes into report what the
// server said of itself: its name and, where the client tells it, the
// revision the two agreed on.
export async function connect(report, client, transport, options) {
  await client.connect(transport, options);
  report.connected = true;
  report.serverName = client.getServerVersion()?.name ?? "";
  report.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? "";
}

// toolText is the text of a tools/call result: its text parts, one a line.
export function toolText(result) {
  return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

// session runs steps(at), which sets at.step before each request it makes,
// and then closes client. The first error is report.failure, with the step
// it happened at ("connect" until steps says otherwise); an error closing
// the client is one more of report.errors.
export async function session(report, client, steps) {
  const at = { step: "connect" };
  try {
    await steps(at);
  } catch (err) {
    report.failure = { step: at.step, ...describe(err) };
  } finally {
    try {
      await client.close();
    } catch (err) {
      report.errors.push(describe(err));
    }
  }
}

// settle runs main; an error it throws (the script could not even set up
// its client) is report.failure, at the step "setup".
export async function settle(report, main) {
  try {
    await main();
  } catch (err) {
    report.failure = { step: "setup", ...describe(err) };
  }
}
