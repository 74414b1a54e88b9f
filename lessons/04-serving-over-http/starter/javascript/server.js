// Where your lesson 4 server begins: lesson 2's help desk, a stateless MCP
// server of revision 2026-07-28, served over Streamable HTTP instead of
// stdio. Each JSON-RPC message arrives as the body of one POST to /mcp, and
// its answer is the body of the HTTP answer. It needs Node 18 or later and
// no packages.
//
// helpdesk.js is the help desk itself, finished in lesson 2. This file is
// the HTTP side. It runs and can be graded as it is. Six parts are left for
// you, each marked "TODO(lesson 4)", in the order the lesson teaches them:
//
//  1. the status of each answer: 202 for a notification, 404 for an
//     unknown method, 405 for anything but POST;
//  2. the request headers MCP-Protocol-Version, Mcp-Method and Mcp-Name,
//     checked against the body;
//  3. Origin and Host, against DNS rebinding;
//  4. Accept, Content-Type and a bound on the body;
//  5. statelessness: a cursor any copy of the server can read
//     (helpdesk.js);
//  6. ending cleanly on SIGTERM.
//
// It listens on 127.0.0.1, on the port the environment variable PORT names
// (3140 when it is not set), and logs on stderr.
//
// Run it:   node server.js
// Grade it: lab grade --lesson 4 -- node server.js
"use strict";

const http = require("node:http");
const helpdesk = require("./helpdesk.js");

// The port used when PORT is not set.
const DEFAULT_PORT = "3140";

const port = process.env.PORT || DEFAULT_PORT;
const desk = new helpdesk.Desk();

// handle answers one HTTP request.
function handle(req, res) {
  if (req.url !== "/mcp") {
    sendText(res, 404, "the MCP endpoint is /mcp");
    return;
  }
  // TODO(lesson 4), part 1: the status of each answer (and see below).
  // Every method reaches the code below, so a GET gets a parse error.
  // Clients of older revisions open a GET stream or DELETE a session;
  // 2026-07-28 has neither. Answer anything but POST with 405 Method Not
  // Allowed and the header "Allow: POST".
  // Fixes http.get-405.
  // TODO(lesson 4), part 3: Origin and Host.
  // A web page the user opens may POST here too: its browser adds an Origin
  // header naming the page's site. Answer 403 Forbidden when Origin is set
  // and is not this server's own (http://127.0.0.1:PORT or
  // http://localhost:PORT). Refuse with 403 a Host that is not a loopback
  // name as well: that is how DNS rebinding shows.
  // Fixes security.origin.
  // TODO(lesson 4), part 4: Content-Type, Accept and a bounded body.
  // The body is kept whole, however long it is: a client can make this
  // process hold gigabytes. Count the bytes of the "data" events, keep at
  // most 1 MiB, and answer a longer body with 413 (read the rest and drop
  // it, so that the client reads the answer). While here, refuse a body that is not
  // Content-Type: application/json with 415, and see acceptsStream below.
  // Fixes http.body-bound (http.accept also needs acceptsStream, below).
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => answer(req, res, Buffer.concat(chunks)));
}

// answer answers the POST whose body is body.
function answer(req, res, body) {
  let msg;
  try {
    msg = helpdesk.parse(body);
  } catch (e) {
    if (e instanceof helpdesk.Invalid) {
      sendMessage(res, 400, e.response);
      return;
    }
    throw e;
  }
  if (!("id" in msg)) {
    // TODO(lesson 4), part 1, continued: a notification.
    // Nothing answers a notification, so this sends an empty 200. Over HTTP
    // a notification the server takes gets 202 Accepted, with no body and
    // no Content-Type.
    // Fixes http.notification-202.
    log(`notification ${msg.method}`);
    res.writeHead(200, { "Content-Length": "0" });
    res.end();
    return;
  }
  // TODO(lesson 4), part 2: the request headers.
  // Every POST carries MCP-Protocol-Version, every request Mcp-Method, and
  // tools/call (like resources/read and prompts/get) Mcp-Name. They repeat
  // the body so that a proxy can route without reading it, and the server
  // must refuse a POST whose headers and body disagree. Write checkHeaders:
  // a header missing, or not equal to the body's value (Mcp-Name decoded
  // first when it is =?base64?...?=), gets 400 with error -32020 and the
  // request's id.
  // Fixes headers.protocol-version, headers.method and headers.name.
  log(`${msg.method} id=${JSON.stringify(msg.id)}`);
  const reply = desk.answer(msg);
  if ("result" in reply && msg.method === "tools/call" && acceptsStream(req.headers)) {
    sendStream(res, reply);
    return;
  }
  sendMessage(res, status(reply), reply);
}

// status is the HTTP status of an answer.
function status(reply) {
  if (!("error" in reply)) {
    return 200;
  }
  // TODO(lesson 4), part 1, continued: a method the server does not have.
  // Over HTTP, -32601 goes with 404 Not Found, not 400.
  // Fixes mcp.unknown-method.
  return 400;
}

// acceptsStream says whether the client reads an event stream. The help
// desk answers tools/call with one, to show the second answer shape.
function acceptsStream(headers) {
  // TODO(lesson 4), part 4, continued: Accept.
  // This sends an event stream to every client, even one whose Accept
  // header lists only application/json and cannot read a stream. Read
  // Accept and return true only when it lists text/event-stream (or text/*
  // or */*), or when there is no Accept header at all.
  // Fixes http.accept.
  return true;
}

// sendMessage answers with one JSON-RPC message as application/json.
function sendMessage(res, code, message) {
  const body = helpdesk.encode(message);
  res.writeHead(code, { "Content-Type": "application/json", "Content-Length": String(body.length) });
  res.end(body);
}

// sendStream answers with an event stream that carries the response: one
// event, "data: " and the message, then a blank line. Notifications about
// the request, had the help desk any, would come first, each an event of
// its own; the response ends the stream.
function sendStream(res, message) {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  res.end(Buffer.concat([Buffer.from("data: "), helpdesk.encode(message), Buffer.from("\n\n")]));
}

function sendText(res, code, text) {
  const body = Buffer.from(text, "utf8");
  res.writeHead(code, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.length) });
  res.end(body);
}

// log writes one log line to stderr.
function log(text) {
  process.stderr.write(`helpdesk-starter: ${text}\n`);
}

const server = http.createServer(handle);
// Only this machine can reach 127.0.0.1: a server for one user's tools
// should not listen on every network the machine is on.
server.listen(Number(port), "127.0.0.1", () => {
  log(`listening on http://127.0.0.1:${port}/mcp (MCP ${helpdesk.PROTOCOL_VERSION})`);
});

// TODO(lesson 4), part 6: ending cleanly on SIGTERM.
// Whoever runs the server (a container engine, systemd, the grader) asks it
// to stop with SIGTERM. As it is, the signal kills the process in the
// middle of whatever it was answering, and its exit status says it was
// killed. Catch SIGTERM (process.on), then call server.close(callback):
// it stops listening and calls back once the requests in flight are
// answered; exit with status 0 there. Call server.closeIdleConnections()
// too, or a kept-alive connection holds close up.
// Fixes lifecycle.sigterm.
