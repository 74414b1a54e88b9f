"""Lesson 2's help desk, finished: the part of the server that knows
nothing of HTTP. It reads one JSON-RPC message and returns its answer, as
it did for one line of stdin. server.py carries it over HTTP. Standard
library only.
"""

import base64
import json
import os
import secrets
import threading

# The protocol revision this server speaks.
PROTOCOL_VERSION = "2026-07-28"

# The JSON-RPC error codes of the help desk. -32020 and -32022 are MCP's own.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
HEADER_MISMATCH = -32020
UNSUPPORTED_VERSION = -32022

# The _meta keys every 2026-07-28 request carries in its params.
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

# Who this server says it is.
SERVER_INFO = {"name": "helpdesk-starter", "version": "0.1.0"}

# The sentence server/discover gives a model.
INSTRUCTIONS = "Support desk for gym and studio booking software: look up a ticket by its number, or a customer by their id."

# The help desk's data, copies of lesson 2's, next to this file.
HERE = os.path.dirname(os.path.abspath(__file__))


def read_only(title):
    return {"title": title, "readOnlyHint": True, "openWorldHint": False}


# The help desk's tools, as tools/list shows them, one a page.
TOOLS = [
    {
        "name": "get_ticket",
        "title": "Get a support ticket",
        "description": "Returns one support ticket by its number: subject, status, priority, dates, a summary, and the customer who opened it.",
        "inputSchema": {
            "type": "object",
            "properties": {"ticket_id": {"type": "string", "description": 'The ticket\'s number, as a string, such as "2318".'}},
            "required": ["ticket_id"],
            "additionalProperties": False,
        },
        "annotations": read_only("Get a support ticket"),
    },
    {
        "name": "get_customer",
        "title": "Get a customer",
        "description": 'Returns one customer by their id (such as "C-104"): name, business, city, plan and email.',
        "inputSchema": {
            "type": "object",
            "properties": {"customer_id": {"type": "string", "description": 'The customer\'s id, such as "C-104".'}},
            "required": ["customer_id"],
            "additionalProperties": False,
        },
        "annotations": read_only("Get a customer"),
    },
]

# No id member at all: the marker for "leave it out".
NO_ID = object()


class Invalid(Exception):
    """A body that is not a request or a notification; response is the
    error to send back."""

    def __init__(self, response):
        super().__init__(response["error"]["message"])
        self.response = response


def parse(body):
    """Decodes one message: a dict with "method", and "id" unless it is a
    notification. Raises Invalid for anything else."""
    try:
        msg = json.loads(body)
    except ValueError:  # not JSON, or not UTF-8
        raise Invalid(error_response(NO_ID, PARSE_ERROR, "Parse error: the body is not valid JSON"))
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str) or not msg["method"]:
        msg_id = usable_id(msg.get("id", NO_ID)) if isinstance(msg, dict) else NO_ID
        raise Invalid(error_response(msg_id, INVALID_REQUEST,
                                     'Invalid Request: a request is an object with "jsonrpc": "2.0", a "method" string and an "id"'))
    if "id" in msg and usable_id(msg["id"]) is NO_ID:
        # Neither a request (its id is null, true or a fraction) nor a
        # notification (it has an id member).
        raise Invalid(error_response(NO_ID, INVALID_REQUEST, "Invalid Request: an id is a string or an integer, never null"))
    return msg


class Desk:
    """What the help desk knows."""

    def __init__(self):
        with open(os.path.join(HERE, "tickets.json"), "rb") as f:
            self.tickets = {t["id"]: t for t in json.load(f)}
        with open(os.path.join(HERE, "customers.json"), "rb") as f:
            self.customers = {c["id"]: c for c in json.load(f)}
        # TODO(lesson 4), part 5: statelessness.
        # The cursors handed out so far, each a random token standing for
        # the page it starts. Only this process knows them: a copy of the
        # server behind the same address (a load balancer sends each POST
        # to either) refuses a cursor the other copy made. Drop this table:
        # make the cursor say which page it starts (new_cursor) and read the
        # page back from the cursor alone (page_of), so that any copy can
        # serve it.
        # Fixes stateless.any-copy.
        self.cursors = {}
        self.lock = threading.Lock()

    def answer(self, msg):
        """The help desk's response to one request."""
        msg_id, method, params = msg["id"], msg["method"], msg.get("params")
        error = check_meta(params)
        if error is not None:
            return {"jsonrpc": "2.0", "id": msg_id, "error": error}
        if method == "server/discover":
            return result(msg_id, {
                "supportedVersions": [PROTOCOL_VERSION],
                "capabilities": {"tools": {}},
                "instructions": INSTRUCTIONS,
                "ttlMs": 3600000,
                "cacheScope": "public",
            })
        if method == "tools/list":
            return self.list_tools(msg_id, params)
        if method == "tools/call":
            return self.call_tool(msg_id, params)
        return error_response(msg_id, METHOD_NOT_FOUND, "Method not found: " + method)

    def list_tools(self, msg_id, params):
        """Answers tools/list, one tool a page."""
        page = 0
        if "cursor" in params:
            page = self.page_of(params["cursor"])
            if page is None:
                return error_response(msg_id, INVALID_PARAMS, "Invalid cursor: %s is not a cursor this server gave out; list again without one"
                                      % json.dumps(params["cursor"]))
        res = {"tools": TOOLS[page:page + 1], "ttlMs": 3600000, "cacheScope": "public"}
        if page + 1 < len(TOOLS):
            res["nextCursor"] = self.new_cursor(page + 1)
        return result(msg_id, res)

    def new_cursor(self, page):
        """Hands out a fresh random token for the page that starts at tool
        number page, and remembers it (see part 5)."""
        token = base64.urlsafe_b64encode(secrets.token_bytes(12)).decode().rstrip("=")
        with self.lock:
            self.cursors[token] = page
        return token

    def page_of(self, cursor):
        """Looks a cursor up among the ones this process handed out."""
        if not isinstance(cursor, str):
            return None
        with self.lock:
            return self.cursors.get(cursor)

    def call_tool(self, msg_id, params):
        """Answers tools/call. A call the tool cannot serve is a result with
        isError, for the model to read and fix; a tool that does not exist
        is a protocol error."""
        name = params.get("name")
        if not isinstance(name, str) or not name:
            return error_response(msg_id, INVALID_PARAMS, "Invalid params: tools/call needs the name of a tool")
        args = params.get("arguments")
        if not isinstance(args, dict):
            args = {}
        if name == "get_ticket":
            ticket_id, bad = string_arg(args, name, "ticket_id", "2318")
            if bad is not None:
                return result(msg_id, bad)
            t = self.tickets.get(ticket_id)
            if t is None:
                return result(msg_id, tool_error('There is no ticket %s. Ticket numbers are digits only, such as "2318"; '
                                                 "check the number with the customer." % quote_arg(ticket_id)))
            c = self.customers.get(t["customer_id"], {})
            text = "Ticket %s (%s, %s priority): %s\nCustomer: %s, %s (%s), %s plan\nOpened %s, last update %s\n%s" % (
                t["id"], t["status"], t["priority"], t["subject"], c.get("name", ""), c.get("business", ""), c.get("id", ""),
                c.get("plan", ""), t["opened"], t["updated"], t["summary"])
            return result(msg_id, {"content": text_content(text), "structuredContent": dict(t, customer=c)})
        if name == "get_customer":
            customer_id, bad = string_arg(args, name, "customer_id", "C-104")
            if bad is not None:
                return result(msg_id, bad)
            c = self.customers.get(customer_id)
            if c is None:
                return result(msg_id, tool_error('There is no customer %s. Customer ids look like "C-104"; a ticket names its customer.'
                                                 % quote_arg(customer_id)))
            text = "Customer %s: %s, %s in %s, %s plan since %s, %s" % (
                c["id"], c["name"], c["business"], c["city"], c["plan"], c["customer_since"], c["email"])
            return result(msg_id, {"content": text_content(text), "structuredContent": c})
        return error_response(msg_id, INVALID_PARAMS, "Unknown tool: " + name)


def check_meta(params):
    """Checks the _meta of a 2026-07-28 request: both required keys, and a
    version this server speaks. Returns an error member, or None."""
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return {"code": INVALID_PARAMS, "message": "Invalid params: params must be an object that holds _meta"}
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        meta = {}
    missing = [key for key in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES) if key not in meta]
    if missing:
        return {"code": INVALID_PARAMS, "message": "Invalid params: params._meta needs " + " and ".join(missing), "data": {"missing": missing}}
    if meta[META_PROTOCOL_VERSION] != PROTOCOL_VERSION:
        return {"code": UNSUPPORTED_VERSION, "message": "Unsupported protocol version",
                "data": {"supported": [PROTOCOL_VERSION], "requested": meta[META_PROTOCOL_VERSION]}}
    return None


def string_arg(args, tool, name, example):
    """Reads one required string argument: (value, None), or (None, a tool
    error) when it is missing or not a string."""
    if name not in args:
        return None, tool_error("%s needs the argument %s, a string such as %s." % (tool, name, json.dumps(example)))
    value = args[name]
    if not isinstance(value, str):
        return None, tool_error("%s's argument %s must be a string such as %s, not %s." % (tool, name, json.dumps(example), json.dumps(value)))
    return value, None


def quote_arg(arg):
    """Quotes an argument for a tool's error text. A long one is cut: an
    answer that echoed a megabyte-long argument in full would cost the
    server and the model as much again."""
    limit = 64
    if len(arg) <= limit:
        return json.dumps(arg, ensure_ascii=False)
    return "%s... (%d characters in all)" % (json.dumps(arg[:limit], ensure_ascii=False), len(arg))


def text_content(text):
    return [{"type": "text", "text": text}]


def tool_error(text):
    """The result of a tool call that failed."""
    return {"content": text_content(text), "isError": True}


def result(msg_id, res):
    """A complete 2026-07-28 result: it says it is complete, and who
    answered."""
    res["resultType"] = "complete"
    res["_meta"] = {META_SERVER_INFO: SERVER_INFO}
    return {"jsonrpc": "2.0", "id": msg_id, "result": res}


def error_response(msg_id, code, message, data=None):
    error = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    response = {"jsonrpc": "2.0", "id": msg_id, "error": error}
    if msg_id is NO_ID:
        del response["id"]
    return response


def usable_id(msg_id):
    """Returns msg_id when it is a string or an integer, the only ids a
    response may copy, and else NO_ID."""
    if isinstance(msg_id, str) or (isinstance(msg_id, int) and not isinstance(msg_id, bool)):
        return msg_id
    return NO_ID


def encode(message):
    """A message as compact UTF-8 JSON."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
