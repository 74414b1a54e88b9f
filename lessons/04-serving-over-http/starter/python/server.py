"""Where your lesson 4 server begins: lesson 2's help desk, a stateless MCP
server of revision 2026-07-28, served over Streamable HTTP instead of
stdio. Each JSON-RPC message arrives as the body of one POST to /mcp, and
its answer is the body of the HTTP answer. Standard library only.

helpdesk.py is the help desk itself, finished in lesson 2. This file is
the HTTP side. It runs and can be graded as it is. Six parts are left for
you, each marked "TODO(lesson 4)", in the order the lesson teaches them:

 1. the status of each answer: 202 for a notification, 404 for an unknown
    method, 405 for anything but POST;
 2. the request headers MCP-Protocol-Version, Mcp-Method and Mcp-Name,
    checked against the body;
 3. Origin and Host, against DNS rebinding;
 4. Accept, Content-Type and a bound on the body;
 5. statelessness: a cursor any copy of the server can read (helpdesk.py);
 6. ending cleanly on SIGTERM.

It listens on 127.0.0.1, on the port the environment variable PORT names
(3140 when it is not set), and logs on stderr.

Run it:   python3 server.py
Grade it: lab grade --lesson 4 -- python3 server.py
"""

import http.server
import json
import os
import sys

import helpdesk

# The port used when PORT is not set.
DEFAULT_PORT = "3140"


class Handler(http.server.BaseHTTPRequestHandler):
    """Answers the POSTs to /mcp. One request a connection: the answers
    are HTTP/1.0 ones, which close the connection when they are done."""

    desk = None  # the help desk, set in main
    port = None  # the port this server listens on, as text

    def do_POST(self):
        if self.path != "/mcp":
            self.send_text(404, "the MCP endpoint is /mcp")
            return
        # TODO(lesson 4), part 3: Origin and Host.
        # A web page the user opens may POST here too: its browser adds an
        # Origin header naming the page's site. Answer 403 Forbidden when
        # Origin is set and is not this server's own (http://127.0.0.1:PORT
        # or http://localhost:PORT). Refuse with 403 a Host that is not a
        # loopback name as well: that is how DNS rebinding shows.
        # Fixes security.origin.
        # TODO(lesson 4), part 4: Content-Type, Accept and a bounded body.
        # The body is read whole, however long Content-Length says it is: a
        # client can make this process hold gigabytes. Read at most 1 MiB,
        # and answer a longer body with 413 without reading it all (a body
        # sent in chunks, with no Content-Length, needs a bound too). While
        # here, refuse a body that is not Content-Type: application/json
        # with 415, and see accepts_stream below.
        # Fixes http.body-bound (http.accept also needs accepts_stream, below).
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            msg = helpdesk.parse(body)
        except helpdesk.Invalid as e:
            self.send_message(400, e.response)
            return
        if "id" not in msg:
            # TODO(lesson 4), part 1, continued: a notification.
            # Nothing answers a notification, so this sends an empty 200.
            # Over HTTP a notification the server takes gets 202 Accepted,
            # with no body and no Content-Type.
            # Fixes http.notification-202.
            log("notification %s" % msg["method"])
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        # TODO(lesson 4), part 2: the request headers.
        # Every POST carries MCP-Protocol-Version, every request Mcp-Method,
        # and tools/call (like resources/read and prompts/get) Mcp-Name.
        # They repeat the body so that a proxy can route without reading
        # it, and the server must refuse a POST whose headers and body
        # disagree. Write check_headers: a header missing, or not equal to
        # the body's value (Mcp-Name decoded first when it is
        # =?base64?...?=), gets 400 with error -32020 and the request's id.
        # Fixes headers.protocol-version, headers.method and headers.name.
        log("%s id=%s" % (msg["method"], json.dumps(msg["id"])))
        reply = self.desk.answer(msg)
        if "result" in reply and msg["method"] == "tools/call" and accepts_stream(self.headers):
            self.send_stream(reply)
            return
        self.send_message(status(reply), reply)

    # TODO(lesson 4), part 1: the status of each answer (and see above).
    # Only POST has a method here, so http.server answers every other
    # method with its own 501 page. Clients of older revisions open a GET
    # stream or DELETE a session; 2026-07-28 has neither. Answer anything
    # but POST with 405 Method Not Allowed and the header "Allow: POST"
    # (define do_GET, do_DELETE and the others).
    # Fixes http.get-405.

    def send_message(self, code, message):
        """Answers with one JSON-RPC message as application/json."""
        body = helpdesk.encode(message)
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_stream(self, message):
        """Answers with an event stream that carries the response: one
        event, "data: " and the message, then a blank line. Notifications
        about the request, had the help desk any, would come first, each an
        event of its own; the response ends the stream, and the connection
        closes after it."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(b"data: " + helpdesk.encode(message) + b"\n\n")
        self.wfile.flush()

    def send_text(self, code, text):
        body = text.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass  # the handler logs what matters itself, on stderr


def status(reply):
    """The HTTP status of an answer."""
    if "error" not in reply:
        return 200
    # TODO(lesson 4), part 1, continued: a method the server does not have.
    # Over HTTP, -32601 goes with 404 Not Found, not 400.
    # Fixes mcp.unknown-method.
    return 400


def accepts_stream(headers):
    """Says whether the client reads an event stream. The help desk answers
    tools/call with one, to show the second answer shape."""
    # TODO(lesson 4), part 4, continued: Accept.
    # This sends an event stream to every client, even one whose Accept
    # header lists only application/json and cannot read a stream. Read
    # Accept and return True only when it lists text/event-stream (or
    # text/* or */*), or when there is no Accept header at all.
    # Fixes http.accept.
    return True


def log(text):
    """Writes one log line to stderr."""
    sys.stderr.write("helpdesk-starter: %s\n" % text)
    sys.stderr.flush()


def main():
    port = os.environ.get("PORT") or DEFAULT_PORT
    Handler.desk = helpdesk.Desk()
    Handler.port = port
    # Only this machine can reach 127.0.0.1: a server for one user's tools
    # should not listen on every network the machine is on.
    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), Handler)
    # TODO(lesson 4), part 6: ending cleanly on SIGTERM.
    # Whoever runs the server (a container engine, systemd, the grader)
    # asks it to stop with SIGTERM. As it is, the signal kills the process
    # in the middle of whatever it was answering, and its exit status says
    # it was killed. Catch SIGTERM (signal.signal), and in the handler start
    # a thread that calls server.shutdown(): serve_forever then returns,
    # and server_close() waits for the requests in flight (set
    # server.daemon_threads = False for that). Then exit with status 0.
    # Fixes lifecycle.sigterm.
    log("listening on http://127.0.0.1:%s/mcp (MCP %s)" % (port, helpdesk.PROTOCOL_VERSION))
    server.serve_forever()
    server.server_close()
    log("stopped")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
