// Lesson 2's help desk, finished: the part of the server that knows nothing
// of HTTP. It reads one JSON-RPC message and returns its answer, as it did
// for one line of stdin. server.js carries it over HTTP. No packages.
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

// The protocol revision this server speaks.
const PROTOCOL_VERSION = "2026-07-28";

// The JSON-RPC error codes of the help desk. -32020 and -32022 are MCP's own.
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const HEADER_MISMATCH = -32020;
const UNSUPPORTED_VERSION = -32022;

// The _meta keys every 2026-07-28 request carries in its params.
const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

// Who this server says it is.
const SERVER_INFO = { name: "helpdesk-starter", version: "0.1.0" };

// The sentence server/discover gives a model.
const INSTRUCTIONS = "Support desk for gym and studio booking software: look up a ticket by its number, or a customer by their id.";

function readOnly(title) {
  return { title, readOnlyHint: true, openWorldHint: false };
}

// The help desk's tools, as tools/list shows them, one a page.
const TOOLS = [
  {
    name: "get_ticket",
    title: "Get a support ticket",
    description: "Returns one support ticket by its number: subject, status, priority, dates, a summary, and the customer who opened it.",
    inputSchema: {
      type: "object",
      properties: { ticket_id: { type: "string", description: 'The ticket\'s number, as a string, such as "2318".' } },
      required: ["ticket_id"],
      additionalProperties: false,
    },
    annotations: readOnly("Get a support ticket"),
  },
  {
    name: "get_customer",
    title: "Get a customer",
    description: 'Returns one customer by their id (such as "C-104"): name, business, city, plan and email.',
    inputSchema: {
      type: "object",
      properties: { customer_id: { type: "string", description: 'The customer\'s id, such as "C-104".' } },
      required: ["customer_id"],
      additionalProperties: false,
    },
    annotations: readOnly("Get a customer"),
  },
];

// No id member at all: the marker for "leave it out".
const NO_ID = Symbol("no id");

// Invalid is a body that is not a request or a notification; response is
// the error to send back.
class Invalid extends Error {
  constructor(response) {
    super(response.error.message);
    this.response = response;
  }
}

// parse decodes one message: an object with "method", and "id" unless it
// is a notification. It throws Invalid for anything else.
function parse(body) {
  let msg;
  try {
    msg = JSON.parse(body.toString("utf8"));
  } catch {
    throw new Invalid(errorResponse(NO_ID, PARSE_ERROR, "Parse error: the body is not valid JSON"));
  }
  const isObject = msg !== null && typeof msg === "object" && !Array.isArray(msg);
  if (!isObject || msg.jsonrpc !== "2.0" || typeof msg.method !== "string" || msg.method === "") {
    const id = isObject && "id" in msg ? usableId(msg.id) : NO_ID;
    throw new Invalid(errorResponse(id, INVALID_REQUEST, 'Invalid Request: a request is an object with "jsonrpc": "2.0", a "method" string and an "id"'));
  }
  if ("id" in msg && usableId(msg.id) === NO_ID) {
    // Neither a request (its id is null, true or a fraction) nor a
    // notification (it has an id member).
    throw new Invalid(errorResponse(NO_ID, INVALID_REQUEST, "Invalid Request: an id is a string or an integer, never null"));
  }
  return msg;
}

// Desk is what the help desk knows.
class Desk {
  constructor() {
    const read = (name) => JSON.parse(fs.readFileSync(path.join(__dirname, name), "utf8"));
    this.tickets = new Map(read("tickets.json").map((t) => [t.id, t]));
    this.customers = new Map(read("customers.json").map((c) => [c.id, c]));
    // TODO(lesson 4), part 5: statelessness.
    // The cursors handed out so far, each a random token standing for the
    // page it starts. Only this process knows them: a copy of the server
    // behind the same address (a load balancer sends each POST to either)
    // refuses a cursor the other copy made. Drop this table: make the
    // cursor say which page it starts (newCursor) and read the page back
    // from the cursor alone (pageOf), so that any copy can serve it.
    // Fixes stateless.any-copy.
    this.cursors = new Map();
  }

  // answer is the help desk's response to one request.
  answer(msg) {
    const error = checkMeta(msg.params);
    if (error) {
      return { jsonrpc: "2.0", id: msg.id, error };
    }
    switch (msg.method) {
      case "server/discover":
        return result(msg.id, {
          supportedVersions: [PROTOCOL_VERSION],
          capabilities: { tools: {} },
          instructions: INSTRUCTIONS,
          ttlMs: 3600000,
          cacheScope: "public",
        });
      case "tools/list":
        return this.listTools(msg.id, msg.params);
      case "tools/call":
        return this.callTool(msg.id, msg.params);
    }
    return errorResponse(msg.id, METHOD_NOT_FOUND, "Method not found: " + msg.method);
  }

  // listTools answers tools/list, one tool a page.
  listTools(id, params) {
    let page = 0;
    if ("cursor" in params) {
      page = this.pageOf(params.cursor);
      if (page === null) {
        return errorResponse(id, INVALID_PARAMS, `Invalid cursor: ${JSON.stringify(params.cursor)} is not a cursor this server gave out; list again without one`);
      }
    }
    const res = { tools: TOOLS.slice(page, page + 1), ttlMs: 3600000, cacheScope: "public" };
    if (page + 1 < TOOLS.length) {
      res.nextCursor = this.newCursor(page + 1);
    }
    return result(id, res);
  }

  // newCursor hands out a fresh random token for the page that starts at
  // tool number page, and remembers it (see part 5).
  newCursor(page) {
    const token = crypto.randomBytes(12).toString("base64url");
    this.cursors.set(token, page);
    return token;
  }

  // pageOf looks a cursor up among the ones this process handed out.
  pageOf(cursor) {
    return typeof cursor === "string" && this.cursors.has(cursor) ? this.cursors.get(cursor) : null;
  }

  // callTool answers tools/call. A call the tool cannot serve is a result
  // with isError, for the model to read and fix; a tool that does not exist
  // is a protocol error.
  callTool(id, params) {
    const name = params.name;
    if (typeof name !== "string" || name === "") {
      return errorResponse(id, INVALID_PARAMS, "Invalid params: tools/call needs the name of a tool");
    }
    const args = params.arguments !== null && typeof params.arguments === "object" ? params.arguments : {};
    if (name === "get_ticket") {
      const [ticketId, bad] = stringArg(args, name, "ticket_id", "2318");
      if (bad) {
        return result(id, bad);
      }
      const t = this.tickets.get(ticketId);
      if (!t) {
        return result(id, toolError(`There is no ticket ${quoteArg(ticketId)}. Ticket numbers are digits only, such as "2318"; check the number with the customer.`));
      }
      const c = this.customers.get(t.customer_id) || {};
      const text = `Ticket ${t.id} (${t.status}, ${t.priority} priority): ${t.subject}\nCustomer: ${c.name}, ${c.business} (${c.id}), ${c.plan} plan\n` +
        `Opened ${t.opened}, last update ${t.updated}\n${t.summary}`;
      return result(id, { content: textContent(text), structuredContent: { ...t, customer: c } });
    }
    if (name === "get_customer") {
      const [customerId, bad] = stringArg(args, name, "customer_id", "C-104");
      if (bad) {
        return result(id, bad);
      }
      const c = this.customers.get(customerId);
      if (!c) {
        return result(id, toolError(`There is no customer ${quoteArg(customerId)}. Customer ids look like "C-104"; a ticket names its customer.`));
      }
      const text = `Customer ${c.id}: ${c.name}, ${c.business} in ${c.city}, ${c.plan} plan since ${c.customer_since}, ${c.email}`;
      return result(id, { content: textContent(text), structuredContent: c });
    }
    return errorResponse(id, INVALID_PARAMS, "Unknown tool: " + name);
  }
}

// checkMeta checks the _meta of a 2026-07-28 request: both required keys,
// and a version this server speaks. It returns an error member, or null.
function checkMeta(params) {
  if (params === undefined || params === null) {
    params = {};
  }
  if (typeof params !== "object" || Array.isArray(params)) {
    return { code: INVALID_PARAMS, message: "Invalid params: params must be an object that holds _meta" };
  }
  const meta = params._meta !== null && typeof params._meta === "object" ? params._meta : {};
  const missing = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES].filter((key) => !(key in meta));
  if (missing.length > 0) {
    return { code: INVALID_PARAMS, message: "Invalid params: params._meta needs " + missing.join(" and "), data: { missing } };
  }
  if (meta[META_PROTOCOL_VERSION] !== PROTOCOL_VERSION) {
    return { code: UNSUPPORTED_VERSION, message: "Unsupported protocol version", data: { supported: [PROTOCOL_VERSION], requested: meta[META_PROTOCOL_VERSION] } };
  }
  return null;
}

// stringArg reads one required string argument: [value, null], or [null,
// a tool error] when it is missing or not a string.
function stringArg(args, tool, name, example) {
  if (!(name in args)) {
    return [null, toolError(`${tool} needs the argument ${name}, a string such as ${JSON.stringify(example)}.`)];
  }
  const value = args[name];
  if (typeof value !== "string") {
    return [null, toolError(`${tool}'s argument ${name} must be a string such as ${JSON.stringify(example)}, not ${JSON.stringify(value)}.`)];
  }
  return [value, null];
}

// quoteArg quotes an argument for a tool's error text. A long one is cut:
// an answer that echoed a megabyte-long argument in full would cost the
// server and the model as much again.
function quoteArg(arg) {
  const max = 64;
  if (arg.length <= max) {
    return JSON.stringify(arg);
  }
  return `${JSON.stringify(arg.slice(0, max))}... (${arg.length} characters in all)`;
}

function textContent(text) {
  return [{ type: "text", text }];
}

// toolError is the result of a tool call that failed.
function toolError(text) {
  return { content: textContent(text), isError: true };
}

// result is a complete 2026-07-28 result: it says it is complete, and who
// answered.
function result(id, res) {
  res.resultType = "complete";
  res._meta = { [META_SERVER_INFO]: SERVER_INFO };
  return { jsonrpc: "2.0", id, result: res };
}

function errorResponse(id, code, message, data) {
  const error = { code, message };
  if (data !== undefined) {
    error.data = data;
  }
  return id === NO_ID ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
}

// usableId returns id when it is a string or an integer, the only ids a
// response may copy, and else NO_ID.
function usableId(id) {
  if (typeof id === "string" || (typeof id === "number" && Number.isInteger(id))) {
    return id;
  }
  return NO_ID;
}

// encode is a message as compact UTF-8 JSON.
function encode(message) {
  return Buffer.from(JSON.stringify(message), "utf8");
}

module.exports = {
  PROTOCOL_VERSION, PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, HEADER_MISMATCH, UNSUPPORTED_VERSION,
  META_PROTOCOL_VERSION, NO_ID, Invalid, parse, Desk, errorResponse, encode,
};
