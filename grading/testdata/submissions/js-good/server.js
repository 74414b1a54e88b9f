#!/usr/bin/env node
// A correct stdio JSON-RPC server for lesson 1, in JavaScript (Node 18 or
// later, no packages), written the way a careful student would.
//
// It reads stdin as bytes, cuts it into lines at "\n", answers each line on
// its own, answers every wait when its time is up (so a slow wait never holds
// up a fast request), writes each answer as one line on stdout, logs to
// stderr only, and exits once stdin has closed and every answer is out.
//
// Ids come back exactly as sent: JSON.parse would turn an integer id past
// 2^53 into a nearby double, so the id is copied as the text it was sent as.
"use strict";

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const MAX_WAIT_MS = 60000;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
let pendingWaits = 0;
let inputClosed = false;

function log(text) {
  process.stderr.write("log: " + text + "\n");
}

// send writes one answer line. id is the id's JSON text ("null" when none).
function send(id, member, value) {
  process.stdout.write('{"jsonrpc":"2.0","id":' + id + ',"' + member + '":' + JSON.stringify(value) + "}\n");
}

function sendError(id, code, message) {
  send(id, "error", { code: code, message: message });
}

// skipSpace returns the index of the first character at or after i that is
// not JSON whitespace.
function skipSpace(text, i) {
  while (i < text.length && " \t\n\r".includes(text[i])) i++;
  return i;
}

// skipValue returns the index just past the JSON value starting at i. The
// text is known to be valid JSON (JSON.parse accepted it).
function skipValue(text, i) {
  if (text[i] === '"') {
    for (i++; text[i] !== '"'; i++) {
      if (text[i] === "\\") i++;
    }
    return i + 1;
  }
  if (text[i] === "{" || text[i] === "[") {
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '"') {
        i = skipValue(text, i) - 1;
      } else if (c === "{" || c === "[") {
        depth++;
      } else if (c === "}" || c === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return i;
  }
  while (i < text.length && !",}] \t\n\r".includes(text[i])) i++;
  return i;
}

// rawMember returns the JSON text of the last member called name of the
// object that the valid JSON text holds, or undefined.
function rawMember(text, name) {
  let found;
  let i = skipSpace(text, 0) + 1; // past "{"
  for (;;) {
    i = skipSpace(text, i);
    if (text[i] !== '"') return found; // "}": the end
    const keyEnd = skipValue(text, i);
    const key = JSON.parse(text.slice(i, keyEnd));
    i = skipSpace(text, keyEnd) + 1; // past ":"
    i = skipSpace(text, i);
    const valueEnd = skipValue(text, i);
    if (key === name) found = text.slice(i, valueEnd);
    i = skipSpace(text, valueEnd);
    if (text[i] === ",") i++;
  }
}

// idText is the JSON text to copy into an answer: the id itself when it is
// a string or an integer, else null.
function idText(text, msg) {
  if (typeof msg.id === "string") return JSON.stringify(msg.id);
  const raw = rawMember(text, "id");
  if (typeof msg.id === "number" && /^-?(0|[1-9][0-9]*)$/.test(raw)) return raw;
  return "null";
}

function handleLine(bytes) {
  if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
  let text;
  let msg;
  try {
    text = utf8.decode(bytes);
    if (text.trim() === "") return; // a blank line is skipped
    msg = JSON.parse(text);
  } catch (err) {
    log("got a line that is not JSON");
    sendError("null", PARSE_ERROR, "Parse error: " + err.message);
    return;
  }
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
    log("got JSON that is not an object");
    sendError("null", INVALID_REQUEST, "Invalid Request: a request must be a JSON object");
    return;
  }
  const hasId = Object.prototype.hasOwnProperty.call(msg, "id");
  const id = hasId ? idText(text, msg) : "null";
  const method = msg.method;
  if (typeof method !== "string") {
    log("got an object whose method is not a string");
    sendError(id, INVALID_REQUEST, "Invalid Request: method must be a string");
    return;
  }
  if (msg.jsonrpc !== "2.0") {
    log("got " + JSON.stringify(method) + " with a wrong jsonrpc member");
    sendError(id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be the string "2.0"');
    return;
  }
  if (!hasId) {
    log("got notification " + JSON.stringify(method));
    return;
  }
  if (id === "null") {
    log("got " + JSON.stringify(method) + " with an id that is not a string or an integer");
    sendError(id, INVALID_REQUEST, "Invalid Request: id must be a string or an integer");
    return;
  }
  log("got " + JSON.stringify(method) + " (id " + id + ")");
  answer(id, method, msg.params);
}

function answer(id, method, params) {
  if (method === "ping") {
    send(id, "result", {});
    return;
  }
  if (method !== "wait") {
    sendError(id, METHOD_NOT_FOUND, "Method not found: " + method);
    return;
  }
  const problem = waitProblem(params);
  if (problem) {
    sendError(id, INVALID_PARAMS, "Invalid params: " + problem);
    return;
  }
  // The timer answers later; the loop goes on reading meanwhile.
  const ms = params.ms;
  pendingWaits++;
  setTimeout(() => {
    send(id, "result", { waited: ms });
    pendingWaits--;
    maybeDone();
  }, ms);
}

// waitProblem says what is wrong with a wait's params, or "" when nothing is.
function waitProblem(params) {
  if (params === null || typeof params !== "object" || Array.isArray(params) || !("ms" in params)) {
    return 'wait needs params {"ms": N}, and ms is missing';
  }
  const ms = params.ms;
  if (typeof ms !== "number" || !Number.isInteger(ms)) {
    return "ms must be a whole number of milliseconds, not " + JSON.stringify(ms);
  }
  if (ms < 0) return "ms must not be negative, got " + ms;
  if (ms > MAX_WAIT_MS) return "ms must be at most " + MAX_WAIT_MS + ", got " + ms;
  return "";
}

function maybeDone() {
  if (inputClosed && pendingWaits === 0) {
    // Node exits by itself once nothing is left to do: the answers are out.
    log("stdin closed, all answers sent");
  }
}

// A reader that went away is not this server's problem: stop quietly.
process.stdout.on("error", () => process.exit(0));

log("ready");
let pending = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
  let start = 0;
  for (let nl = pending.indexOf(0x0a); nl >= 0; nl = pending.indexOf(0x0a, start)) {
    handleLine(pending.subarray(start, nl));
    start = nl + 1;
  }
  pending = pending.subarray(start);
});
process.stdin.on("end", () => {
  if (pending.length) handleLine(pending); // the last line had no newline
  pending = Buffer.alloc(0);
  inputClosed = true;
  maybeDone();
});
