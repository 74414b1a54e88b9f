// Where your lesson 2 server begins: a stateless MCP server, revision
// 2026-07-28, that talks JSON-RPC over stdio. It is the company's helpdesk:
// it will look up support tickets for a model.
//
// Messages arrive on stdin, one to a line, and answers leave on stdout,
// one to a line. Since stdout carries the protocol, logs are written to stderr. It
// needs Node 18 or later and no packages.
//
// It runs and can be graded as it is. Four parts are left for you, each
// marked "TODO(lesson 2)", in the order the lesson teaches them:
//
//  1. errors without an id: a parse error has no id member, and a request
//     whose id is null is not a request;
//  2. _meta on every request: the protocol version and the client's
//     capabilities travel with each request, not in a handshake;
//  3. tools: list get_ticket and call it;
//  4. legacy clients: answer initialize, then follow the older rules.
//
// Run it:   node server.js
// Grade it: lab grade --lesson 2 -- node server.js
"use strict";

const fs = require("node:fs");
const path = require("node:path");

// The protocol revision this server speaks.
const PROTOCOL_VERSION = "2026-07-28";

// The JSON-RPC error codes of lesson 2. -32022 is MCP's own.
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const UNSUPPORTED_VERSION = -32022;

// The _meta keys every 2026-07-28 request carries in its params.
const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

// Who this server says it is.
const SERVER_INFO = { name: "helpdesk-starter", version: "0.1.0" };

// The sentence server/discover gives a model.
const INSTRUCTIONS = "Support desk for gym and studio booking software: look up a support ticket by its number.";

// The tickets, a copy of the lesson's data, next to this file.
const TICKETS_FILE = path.join(__dirname, "tickets.json");

// What the helpdesk knows, and whether a client has opened with initialize
// (TODO 4).
const state = { tickets: new Map(), legacy: false };

// handleLine answers one line, or stays silent when it is a notification.
function handleLine(buf) {
  const line = buf.toString("utf8").replace(/\r$/, "");
  if (line.trim() === "") {
    return; // an empty line, such as an extra Enter in a terminal
  }
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    log(`not JSON: ${JSON.stringify(line.slice(0, 80))}`);
    // TODO(lesson 2), part 1: errors without an id.
    // This answer carries "id": null, as lesson 1's server did. In
    // 2026-07-28 an id is never null: when the id could not be read, the
    // response has no id member at all. Pass undefined here: send leaves
    // an undefined id out of the line.
    // Fixes errors.parse-no-id.
    fail(null, PARSE_ERROR, "Parse error: the line is not valid JSON");
    return;
  }
  const isObject = msg !== null && typeof msg === "object" && !Array.isArray(msg);
  if (!isObject || msg.jsonrpc !== "2.0" || typeof msg.method !== "string") {
    log(`not a request: ${JSON.stringify(line.slice(0, 80))}`);
    fail(isObject ? usableId(msg.id) : undefined, INVALID_REQUEST,
      'Invalid Request: a request is an object with "jsonrpc": "2.0", a "method" string and an "id"');
    return;
  }
  const { id, method } = msg;
  if (!("id" in msg)) {
    log(`notification ${method} (never answered)`);
    return;
  }
  // TODO(lesson 2), part 1, continued: a null id.
  // A message with "id": null is neither a request (its id may not be
  // null) nor a notification (it has an id member). This starter answers
  // it like a request and echoes the null. Answer -32600 Invalid Request
  // instead, with no id member.
  // Fixes errors.null-id.
  log(`request ${method} id=${JSON.stringify(id)}`);

  // TODO(lesson 2), part 2: _meta on every request.
  // A 2026-07-28 request carries params._meta with META_PROTOCOL_VERSION
  // and META_CLIENT_CAPABILITIES, every time, even when an earlier request
  // on this same pipe had them. Before you look at the method:
  //   - read params._meta (params may be missing, or not an object);
  //   - if either key is missing, answer -32602 Invalid params with a
  //     message that names what is missing;
  //   - if the version is not PROTOCOL_VERSION, answer -32022 with
  //     data {"supported": [PROTOCOL_VERSION], "requested": VERSION}.
  // initialize never carries _meta (part 4), and once a client has sent
  // initialize, its requests need none.
  // Fixes meta.required and version.unsupported.

  // TODO(lesson 2), part 3: tools.
  // Add two methods below.
  //   tools/list: a result with "tools": a list holding one tool,
  //     {"name": "get_ticket", "description": ..., "inputSchema":
  //     {"type": "object", "properties": {"ticket_id": {"type":
  //     "string"}}, "required": ["ticket_id"]}}, and the caching hints
  //     "ttlMs" and "cacheScope" that server/discover has.
  //   tools/call: params has "name" and "arguments". For get_ticket, look
  //     arguments.ticket_id up in state.tickets and answer a result with
  //     "content": [{"type": "text", "text": ...}] describing the ticket.
  //     An unknown ticket is still a result, with "isError": true and a
  //     text that says what went wrong, so the model can fix its call.
  //     An unknown tool name is -32602 Invalid params.
  //   cursors: tools/list may carry params.cursor, a token the server
  //     handed out in an earlier page's nextCursor. This server puts its
  //     one tool on one page and hands out no cursor, so any cursor at
  //     all is one it never gave: answer -32602 Invalid params, not the
  //     first page again.
  // Build each result with complete, as server/discover does.
  // Fixes tools.list, tools.bad-cursor, tools.call, tools.unknown-ticket
  // and tools.unknown-tool.

  // TODO(lesson 2), part 4: legacy clients, one more method.
  // Clients from before 2026-07-28 open with "initialize" and send no
  // _meta. Answer it with {"protocolVersion": V, "capabilities": ...,
  // "serverInfo": SERVER_INFO, "instructions": INSTRUCTIONS}, where V is
  // the version the client asked for (params.protocolVersion) when it is
  // one of "2025-03-26", "2025-06-18", "2025-11-25", and else "2025-11-25".
  // Then set state.legacy: from now on this process needs no _meta,
  // answers "ping" with an empty result, and its results carry no
  // resultType (see complete).
  // Fixes legacy.initialize.

  if (method === "server/discover") {
    reply(id, complete({
      supportedVersions: [PROTOCOL_VERSION],
      // The tools capability promises tools/list and tools/call: part 3
      // keeps that promise.
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      ttlMs: 3600000,
      cacheScope: "public",
    }));
    return;
  }
  fail(id, METHOD_NOT_FOUND, `Method not found: ${method}`);
}

// complete finishes a result: 2026-07-28 results say they are complete and
// who answered. A legacy process (part 4) leaves both out.
function complete(result) {
  if (!state.legacy) {
    result.resultType = "complete";
    result._meta = { [META_SERVER_INFO]: SERVER_INFO };
  }
  return result;
}

// usableId returns id when it is a string or an integer, the only ids a
// response may copy, and else undefined.
function usableId(id) {
  return typeof id === "string" || Number.isInteger(id) ? id : undefined;
}

function reply(id, result) {
  send({ jsonrpc: "2.0", id, result });
}

function fail(id, code, message, data) {
  send({ jsonrpc: "2.0", id, error: { code, message, data } });
}

// send writes one message as one line. JSON.stringify leaves out members
// whose value is undefined, such as an undefined id or data.
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

// loadTickets reads the tickets from a JSON file, by id.
function loadTickets(file) {
  const list = JSON.parse(fs.readFileSync(file, "utf8"));
  return new Map(list.map((t) => [t.id, t]));
}

// log writes one log line to stderr, never to stdout.
function log(text) {
  process.stderr.write(`helpdesk-starter: ${text}\n`);
}

function main() {
  try {
    state.tickets = loadTickets(TICKETS_FILE);
  } catch (err) {
    // Not fatal: everything but the ticket lookups still works.
    log(`no tickets: ${err.message}`);
  }
  log(`listening on stdin (${state.tickets.size} tickets)`);

  // One line is one message. A chunk of stdin can hold half a line or
  // several, so keep what follows the last newline for the next chunk.
  let pending = Buffer.alloc(0);
  process.stdin.on("data", (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    let nl;
    while ((nl = pending.indexOf(0x0a)) >= 0) {
      const line = pending.subarray(0, nl);
      pending = pending.subarray(nl + 1);
      handleLine(line);
    }
  });
  process.stdin.on("end", () => {
    if (pending.length > 0) {
      handleLine(pending); // a last line without a newline
    }
    log("stdin closed, exiting");
  });
}

main();
