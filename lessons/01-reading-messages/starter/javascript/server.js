// Where your lesson 1 server begins: a stdio JSON-RPC server.
//
// It reads requests from stdin, one per line, and writes one answer per line
// to stdout. Everything else it has to say goes to stderr. It needs Node 18
// or later and no packages.
//
// It runs and can be graded as it is. Five parts are left for you, each
// marked "TODO(lesson 1)", in the order the lesson teaches them:
//
//  1. framing: cut the stream of bytes into lines;
//  2. parse errors: answer a line that is not JSON;
//  3. invalid requests: answer JSON that is not a request;
//  4. notifications: never answer a message that has no id;
//  5. concurrency: answer a slow wait without holding up the rest.
//
// README.md says which checks it passes as shipped and how to grade it.
"use strict";

const fs = require("node:fs");

// The JSON-RPC error codes of lesson 1.
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

// The longest wait a client may ask for, in milliseconds.
const MAX_WAIT_MS = 60000;

// utf8 turns the bytes of a line into text, and throws when they are not
// UTF-8.
const utf8 = new TextDecoder("utf-8", { fatal: true });

// readChunk reads once from stdin, up to 64 KiB, and gives the bytes it got,
// or null at the end of input. It reads only when the loop asks, as a read in
// Go or Python does, so bytes sent while the loop is busy wait in the pipe
// until the next call (process.stdin would read them in early, on its own).
function readChunk() {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.alloc(64 * 1024);
    fs.read(0, bytes, 0, bytes.length, null, (error, n) => {
      if (error && error.code === "EAGAIN") {
        // stdin was opened non-blocking and holds nothing yet: try again.
        setTimeout(() => readChunk().then(resolve, reject), 5);
      } else if (error && error.code === "EOF") {
        resolve(null); // how a closed pipe ends on Windows
      } else if (error) {
        reject(error);
      } else {
        resolve(n === 0 ? null : bytes.subarray(0, n));
      }
    });
  });
}

async function main() {
  log("ready");
  for (let chunk = await readChunk(); chunk !== null; chunk = await readChunk()) {
    // TODO(lesson 1): framing.
    // Each chunk (a Buffer) is whatever bytes were waiting: half a line,
    // one line, or several lines and a bit. The starter takes it for
    // exactly one line. Keep a buffer outside this loop instead: add each
    // chunk (Buffer.concat), hand every complete line (the bytes before a
    // newline, see buffer.indexOf(0x0a)) to handleLine, and keep the rest
    // for the next chunk. When stdin closes, bytes left in the buffer are a
    // last line without a newline: handle them too.
    // Fixes framing.split-message and framing.many-per-chunk.
    await handleLine(chunk);
  }
  log("stdin closed, exiting");
}

// log writes one line to stderr. Never use console.log: it writes to stdout,
// and the client reads every stdout line as a message.
function log(note) {
  process.stderr.write("log: " + note + "\n");
}

// isBlank says whether bytes hold only JSON whitespace.
function isBlank(bytes) {
  return bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a);
}

// isObject says whether value is a JSON object. For typeof, arrays and null
// are objects too.
function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// handleLine handles one line of input (a Buffer). It sends at most one
// answer.
async function handleLine(line) {
  if (isBlank(line)) {
    return; // a blank line is not a message
  }

  // TODO(lesson 1): parse errors.
  // A line that is not JSON is left as null here, so it gets the same
  // answer as JSON that is not an object: -32600, from the check below.
  // JSON-RPC gives it a code of its own: answer -32700 (Parse error) with
  // id null, since no id can be read from it.
  // Fixes errors.parse.
  let message = null;
  try {
    message = JSON.parse(utf8.decode(line)); // JSON.parse skips the "\r" of "\r\n"
  } catch (error) {
    log("could not read a line as JSON: " + error.message);
  }

  // TODO(lesson 1): invalid requests.
  // Only a line that is not a JSON object gets -32600 here. Any object is
  // taken for a request: "jsonrpc" is never looked at, any method goes to
  // answer(), and any id (true, 1.5, null) is copied into the answer.
  // Answer those with -32600 too. Its id is the request's id when that is a
  // string or an integer (Number.isInteger), and null otherwise.
  // Fixes errors.invalid-request and ids.string-or-integer.
  if (!isObject(message)) {
    log("got a line that is not a JSON object");
    sendError(null, INVALID_REQUEST, "Invalid Request: a request is a JSON object");
    return;
  }
  const method = message.method;

  // TODO(lesson 1): notifications.
  // A message without an "id" member is a notification. It never gets an
  // answer, not even an error, whatever its method. The starter answers it
  // anyway, with id null. Object.hasOwn(message, "id") tells whether the
  // member is there.
  // Fixes notifications.silent.
  const id = message.id === undefined ? null : message.id;
  log(`got ${JSON.stringify(method)} (id ${JSON.stringify(id)})`);
  await answer(id, method, message.params);
}

// answer works out the answer to one request and sends it.
async function answer(id, method, params) {
  if (method === "ping") {
    send({ id: id, result: {} });
  } else if (method === "wait") {
    const { ms, problem } = waitTime(params);
    if (problem) {
      sendError(id, INVALID_PARAMS, "Invalid params: " + problem);
      return;
    }
    // TODO(lesson 1): concurrency.
    // main awaits each line before it reads the next, so while this wait
    // sleeps nothing else is read: a wait of 80 ms holds up a ping sent
    // after it. Let each line run on its own instead: in main, call
    // handleLine without await (catch and log its errors, or Node stops at
    // the first one). Node writes each answer in one piece and runs one
    // callback at a time, so answers never mix. And Node does not exit
    // while a timer is pending, so running waits still answer after stdin
    // closes, as long as nothing calls process.exit().
    // Fixes order.concurrent.
    await sleep(ms);
    send({ id: id, result: { waited: ms } });
  } else {
    sendError(id, METHOD_NOT_FOUND, "Method not found: " + method);
  }
}

// waitTime reads params.ms of a wait request. It returns { ms } when ms is a
// whole number from 0 to MAX_WAIT_MS, else { problem } saying why.
function waitTime(params) {
  if (params === null || typeof params !== "object" || !Object.hasOwn(params, "ms")) {
    return { problem: 'wait needs params {"ms": N}, and ms is missing' };
  }
  const ms = params.ms;
  if (!Number.isInteger(ms)) {
    return { problem: "ms must be a whole number of milliseconds, not " + JSON.stringify(ms) };
  }
  if (ms < 0 || ms > MAX_WAIT_MS) {
    return { problem: `ms must be from 0 to ${MAX_WAIT_MS}, not ${ms}` };
  }
  return { ms: ms };
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function sendError(id, code, why) {
  send({ id: id, error: { code: code, message: why } });
}

// send writes one answer to stdout as one line of JSON, in one write.
function send(fields) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...fields }) + "\n");
}

main().catch((error) => {
  log("stopped: " + error.stack);
  process.exitCode = 1;
});
