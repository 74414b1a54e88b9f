"""Where your lesson 2 server begins: a stateless MCP server, revision
2026-07-28, that talks JSON-RPC over stdio. It is the company's helpdesk:
it will look up support tickets for a model.

Messages arrive on stdin, one to a line, and answers leave on stdout,
one to a line. Since stdout carries the protocol, logs are written to stderr. It uses
Python 3's standard library only.

It runs and can be graded as it is. Four parts are left for you, each marked
"TODO(lesson 2)", in the order the lesson teaches them:

 1. errors without an id: a parse error has no id member, and a request
    whose id is null is not a request;
 2. _meta on every request: the protocol version and the client's
    capabilities travel with each request, not in a handshake;
 3. tools: list get_ticket and call it;
 4. legacy clients: answer initialize, then follow the older rules.

Run it:   python3 server.py
Grade it: lab grade --lesson 2 -- python3 server.py
"""

import json
import os
import sys

# The protocol revision this server speaks.
PROTOCOL_VERSION = "2026-07-28"

# The JSON-RPC error codes of lesson 2. -32022 is MCP's own.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
UNSUPPORTED_VERSION = -32022

# The _meta keys every 2026-07-28 request carries in its params.
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

# Who this server says it is.
SERVER_INFO = {"name": "helpdesk-starter", "version": "0.1.0"}

# The sentence server/discover gives a model.
INSTRUCTIONS = "Support desk for gym and studio booking software: look up a support ticket by its number."

# The tickets, a copy of the lesson's data, next to this file.
TICKETS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tickets.json")

# No id member at all: the marker handle_line and send use for "leave it out".
NO_ID = object()


class Server:
    """What the helpdesk knows. legacy is set once a client has opened with
    initialize (TODO 4)."""

    def __init__(self, tickets):
        self.tickets = tickets
        self.legacy = False

    def handle_line(self, line):
        """Answers one line, or stays silent when it is a notification."""
        line = line.rstrip(b"\r\n")
        if not line.strip():
            return  # an empty line, such as an extra Enter in a terminal
        try:
            msg = json.loads(line)
        except ValueError:  # not JSON, or not UTF-8
            log("not JSON: %r" % line[:80])
            # TODO(lesson 2), part 1: errors without an id.
            # This answer carries "id": null, as lesson 1's server did. In
            # 2026-07-28 an id is never null: when the id could not be
            # read, the response has no id member at all. Pass NO_ID here.
            # Fixes errors.parse-no-id.
            self.fail(None, PARSE_ERROR, "Parse error: the line is not valid JSON")
            return
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
            log("not a request: %r" % line[:80])
            msg_id = msg.get("id", NO_ID) if isinstance(msg, dict) else NO_ID
            self.fail(usable_id(msg_id), INVALID_REQUEST,
                      'Invalid Request: a request is an object with "jsonrpc": "2.0", a "method" string and an "id"')
            return
        method = msg["method"]
        if "id" not in msg:
            log("notification %s (never answered)" % method)
            return
        msg_id = msg["id"]
        # TODO(lesson 2), part 1, continued: a null id.
        # A message with "id": null is neither a request (its id may not be
        # null) nor a notification (it has an id member). This starter
        # answers it like a request and echoes the null. Answer -32600
        # Invalid Request instead, with no id member.
        # Fixes errors.null-id.
        log("request %s id=%s" % (method, json.dumps(msg_id)))

        # TODO(lesson 2), part 2: _meta on every request.
        # A 2026-07-28 request carries params._meta with
        # META_PROTOCOL_VERSION and META_CLIENT_CAPABILITIES, every time,
        # even when an earlier request on this same pipe had them. Before
        # you look at the method:
        #   - read params._meta (params may be missing, or not an object);
        #   - if either key is missing, answer -32602 Invalid params with a
        #     message that names what is missing;
        #   - if the version is not PROTOCOL_VERSION, answer -32022 with
        #     data {"supported": [PROTOCOL_VERSION], "requested": VERSION}.
        # initialize never carries _meta (part 4), and once a client has
        # sent initialize, its requests need none.
        # Fixes meta.required and version.unsupported.

        # TODO(lesson 2), part 3: tools.
        # Add two methods below.
        #   tools/list: a result with "tools": a list holding one tool,
        #     {"name": "get_ticket", "description": ..., "inputSchema":
        #     {"type": "object", "properties": {"ticket_id": {"type":
        #     "string"}}, "required": ["ticket_id"]}}, and the caching
        #     hints "ttlMs" and "cacheScope" that server/discover has.
        #   tools/call: params has "name" and "arguments". For get_ticket,
        #     look arguments.ticket_id up in self.tickets and answer a
        #     result with "content": [{"type": "text", "text": ...}]
        #     describing the ticket. An unknown ticket is still a result,
        #     with "isError": true and a text that says what went wrong, so
        #     the model can fix its call. An unknown tool name is -32602
        #     Invalid params.
        #   cursors: tools/list may carry params.cursor, a token the server
        #     handed out in an earlier page's nextCursor. This server puts
        #     its one tool on one page and hands out no cursor, so any
        #     cursor at all is one it never gave: answer -32602 Invalid
        #     params, not the first page again.
        # Build each result with self.complete, as server/discover does.
        # Fixes tools.list, tools.bad-cursor, tools.call, tools.unknown-ticket
        # and tools.unknown-tool.

        # TODO(lesson 2), part 4: legacy clients, one more method.
        # Clients from before 2026-07-28 open with "initialize" and send no
        # _meta. Answer it with {"protocolVersion": V, "capabilities": ...,
        # "serverInfo": SERVER_INFO, "instructions": INSTRUCTIONS}, where V
        # is the version the client asked for (params.protocolVersion) when
        # it is one of "2025-03-26", "2025-06-18", "2025-11-25", and else
        # "2025-11-25". Then set self.legacy: from now on this process
        # needs no _meta, answers "ping" with an empty result, and its
        # results carry no resultType (see self.complete).
        # Fixes legacy.initialize.

        if method == "server/discover":
            self.reply(msg_id, self.complete({
                "supportedVersions": [PROTOCOL_VERSION],
                # The tools capability promises tools/list and tools/call:
                # part 3 keeps that promise.
                "capabilities": {"tools": {}},
                "instructions": INSTRUCTIONS,
                "ttlMs": 3600000,
                "cacheScope": "public",
            }))
            return
        self.fail(msg_id, METHOD_NOT_FOUND, "Method not found: " + method)

    def complete(self, result):
        """Finishes a result: 2026-07-28 results say they are complete and
        who answered. A legacy process (part 4) leaves both out."""
        if not self.legacy:
            result["resultType"] = "complete"
            result["_meta"] = {META_SERVER_INFO: SERVER_INFO}
        return result

    def reply(self, msg_id, result):
        send({"jsonrpc": "2.0", "id": msg_id, "result": result})

    def fail(self, msg_id, code, message, data=None):
        error = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        send({"jsonrpc": "2.0", "id": msg_id, "error": error})


def usable_id(msg_id):
    """Returns msg_id when it is a string or an integer, the only ids a
    response may copy, and else NO_ID."""
    if isinstance(msg_id, str) or (isinstance(msg_id, int) and not isinstance(msg_id, bool)):
        return msg_id
    return NO_ID


def send(message):
    """Writes one message as one line, and flushes it at once: a client is
    waiting for it. An id of NO_ID leaves the id member out."""
    if message.get("id", None) is NO_ID:
        del message["id"]
    line = json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n"
    sys.stdout.buffer.write(line.encode("utf-8"))
    sys.stdout.buffer.flush()


def load_tickets(path):
    """Reads the tickets from a JSON file, by id."""
    with open(path, "rb") as f:
        return {t["id"]: t for t in json.load(f)}


def log(text):
    """Writes one log line to stderr, never to stdout."""
    sys.stderr.write("helpdesk-starter: %s\n" % text)
    sys.stderr.flush()


def main():
    try:
        tickets = load_tickets(TICKETS_FILE)
    except (OSError, ValueError, KeyError, TypeError) as e:
        # Not fatal: everything but the ticket lookups still works.
        log("no tickets: %s" % e)
        tickets = {}
    server = Server(tickets)
    log("listening on stdin (%d tickets)" % len(tickets))
    stdin = sys.stdin.buffer
    while True:
        # One line is one message. readline returns a last line without a
        # newline when stdin closes, and b"" after that.
        line = stdin.readline()
        if not line:
            break
        server.handle_line(line)
    log("stdin closed, exiting")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
