#!/usr/bin/env python3
"""The starter of lesson 3: an MCP client for revision 2026-07-28, written by
hand with nothing but Python's standard library (Python 3.8 or later).

It mounts the servers named in a configuration file, starting the stdio ones
itself and POSTing to the Streamable HTTP ones, puts all their tools in one
namespace (mcp__ALIAS__TOOL), and answers one JSON command per line on stdin
with one JSON answer per line on stdout:

    {"command":"list_tools"}
    {"command":"call_tool","name":"mcp__notes__search","arguments":{"query":"retry"}}

The contract it follows is the lesson's CONTRACT.md. Five parts are left for
you; each is marked TODO(lesson 3), in the order to do them.

The file reads from the top down: the configuration, the JSON-RPC core shared
by both transports, stdio, Streamable HTTP, the namespace that joins the
servers, and last the command loop. Each stdio server gets two threads that
read its stdout and stderr; the commands run one at a time on the main thread.
"""

import base64
import hashlib
import http.client
import itertools
import json
import string
import subprocess
import sys
import threading
import time
import urllib.parse

# The MCP revision this client speaks. There is no handshake in 2026-07-28:
# every request names it in its _meta.
PROTOCOL_VERSION = "2026-07-28"
# How long a request to a server without timeoutMs may wait. Thirty seconds
# is a choice, not a rule; what matters is that a server that never answers
# cannot hang the client.
DEFAULT_TIMEOUT = 30.0
# How long the servers get to exit on their own, once their stdin is closed,
# before they are killed: one that never exits costs this much at every end.
CLOSE_GRACE = 0.5
# The longest message read from a server or from stdin, so that a peer cannot
# make the client hold unbounded memory.
MAX_MESSAGE = 16 << 20
# The budget of one tool result, in characters.
MAX_RESULT_CHARS = 8000
# The longest tool name most model APIs accept.
MAX_NAME_LENGTH = 64
# The characters a tool name may hold there.
NAME_CHARACTERS = frozenset(string.ascii_letters + string.digits + "_-")


def log(text):
    """Write a note for the person running the client. stdout carries the
    answers and nothing else, so notes go to stderr."""
    sys.stderr.write("mcpclient: %s\n" % text)
    sys.stderr.flush()


def quote(text):
    """text in double quotes, as JSON writes it."""
    return json.dumps(text, ensure_ascii=False)


class ClientError(Exception):
    """Why a request got no result: it says what happened, in words."""


# ---------------------------------------------------------------------------
# The configuration
# ---------------------------------------------------------------------------


def _no_duplicates(pairs):
    """json.load calls this for every object with its members in order. A
    plain dict would keep only the last of two members with the same name,
    and an alias given twice must be an error before anything starts."""
    names = [name for name, _ in pairs]
    for name in names:
        if names.count(name) > 1:
            raise ValueError("%s appears twice in one object; an alias in particular must be unique, "
                             "since it prefixes the server's tool names" % quote(name))
    return dict(pairs)  # dicts keep their order: the servers stay in the file's order


def load_config(path):
    """Read the configuration: a list of server entries, in the file's order,
    each with its alias."""
    with open(path, "rb") as f:
        config = json.loads(f.read(MAX_MESSAGE).decode("utf-8"), object_pairs_hook=_no_duplicates)
    servers = config.get("servers") if isinstance(config, dict) else None
    if not isinstance(servers, dict) or not servers:
        raise ValueError('no servers: the configuration needs {"servers": {ALIAS: {...}}}')
    out = []
    for alias, entry in servers.items():
        if not alias or not isinstance(entry, dict):
            raise ValueError("server %r must be an object with a non-empty alias" % alias)
        if ("command" in entry) == ("url" in entry):
            raise ValueError('server %r needs either "command" (stdio) or "url" (HTTP)' % alias)
        timeout_ms = entry.get("timeoutMs")
        if timeout_ms is not None and (not isinstance(timeout_ms, (int, float)) or timeout_ms <= 0):
            raise ValueError("server %r: timeoutMs must be a positive number of milliseconds" % alias)
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ValueError('server %r: "args" must be a list of strings' % alias)
        out.append({
            "alias": alias,
            "command": entry.get("command"),
            "args": args,
            "url": entry.get("url"),
            "timeout": timeout_ms / 1000.0 if timeout_ms is not None else DEFAULT_TIMEOUT,
        })
    return out


# ---------------------------------------------------------------------------
# The JSON-RPC core
# ---------------------------------------------------------------------------


def is_notification(message):
    """A message without an id is a notification: it answers no request."""
    return "id" not in message and isinstance(message.get("method"), str)


def answers(message, request_id):
    """Whether message is the response to the request with request_id."""
    return "method" not in message and type(message.get("id")) is int and message["id"] == request_id


class Connection:
    """The client's side of one server: it numbers the requests and puts
    _meta in each. The transport carries them."""

    def __init__(self, alias, timeout, transport):
        self.alias = alias
        self.timeout = timeout
        self.transport = transport
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def call(self, method, params=None):
        """Send method with params and return the result, or raise ClientError
        saying why there is none."""
        # Numbering: the next integer of this connection. Ids only have to be
        # unique among the requests still open here, so a counter does it.
        with self._lock:
            request_id = next(self._ids)
        params = dict(params or {})
        # _meta goes inside params, on every request: the protocol is
        # stateless, so each request says again which revision it speaks and
        # what the client can do (nothing extra: an empty object).
        meta = {
            "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "lesson3-starter-python", "version": "0.1.0"},
        }
        name = None
        if method == "tools/call":
            # Ask for progress reports, with the request's own id as the
            # token: a slow tool can then say how it is doing (and a server
            # may only send progress when asked).
            meta["progressToken"] = request_id
            name = params.get("name")
        params["_meta"] = meta
        request = {"jsonrpc": "2.0", "method": method, "params": params}
        request["id"] = request_id
        body = json.dumps(request,
                          ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        # Every request gets a deadline.
        deadline = time.monotonic() + self.timeout
        try:
            message = self.transport.round_trip(request_id, method, name, body, deadline)
        except TimeoutError:
            raise ClientError("%s (id %d) got no answer within %gs" % (method, request_id, self.timeout))
        except ClientError as e:
            raise ClientError("%s (id %d): %s" % (method, request_id, e))
        error = message.get("error")
        if error is not None:
            if isinstance(error, dict):
                raise ClientError("%s (id %d): the server answered with error %s: %s"
                                  % (method, request_id, error.get("code"), error.get("message")))
            raise ClientError("%s (id %d): the server answered with error %r" % (method, request_id, error))
        # A response carries either a result or an error. One with neither is read as
        # an empty result, as many clients do.
        result = message.get("result", {})
        if not isinstance(result, dict):
            raise ClientError("%s (id %d): the result is not an object" % (method, request_id))
        return result


# ---------------------------------------------------------------------------
# stdio: a child process, one message per line
# ---------------------------------------------------------------------------


class Waiter:
    """One request waiting for its answer, from another thread."""

    def __init__(self):
        self.done = threading.Event()
        self.message = None
        self.error = None


class StdioTransport:
    """A server the client started: requests go to its stdin, answers come
    from its stdout, and its stderr is its log."""

    def __init__(self, alias, command, args):
        self.alias = alias
        # A command that cannot start raises here, at once (FileNotFoundError,
        # PermissionError), not when the first request times out. bufsize=0
        # makes stdout a raw pipe, so that a read returns what it holds.
        self.proc = subprocess.Popen([command] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0)
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._waiting = {}  # request id -> Waiter
        self._gone = None  # why the server is gone; None while it runs
        self._log_reader = threading.Thread(target=self._read_logs, daemon=True)
        self._log_reader.start()
        threading.Thread(target=self._read_messages, daemon=True).start()

    def _read_logs(self):
        """Pass the server's stderr on to ours, a line at a time, marked with
        the server's alias. A server's logs never go to stdout, where they
        would break the protocol stream."""
        while True:
            line = self.proc.stderr.readline(1 << 20)
            if not line:
                return
            log_line = line.decode("utf-8", "replace").rstrip("\r\n")
            sys.stderr.write("[%s] %s\n" % (self.alias, log_line))
            sys.stderr.flush()

    def _read_messages(self):
        """Read the server's stdout until it ends, handing every message to
        the request that waits for it.

        self.proc.stdout.readline() would find the lines for us; here we read
        the raw bytes, to see what a read really returns."""
        while True:
            chunk = self.proc.stdout.read(65536)
            if not chunk:
                break  # the end of the stream
            # TODO(lesson 3), part 2: framing.
            # A read hands over the bytes the pipe holds at that moment, not a
            # message: it may stop inside one and start with the rest of the one
            # before. This splits each read on its own and drops the pieces that
            # do not parse, so a long answer, which the notes server writes in
            # 4 KiB pieces, is lost every time. Keep the bytes after the last
            # newline and put them in front of the next read; hand on only lines
            # that ended in a newline (and at the end of the stream, what is
            # left). Fixes framing and truncation.
            for piece in chunk.split(b"\n"):
                self._handle_line(piece)
        self._server_gone()

    def _handle_line(self, line):
        """Read one line from the server. A line that is not a message is
        noted and skipped: one stray line must not end the connection."""
        line = line.strip()
        if not line:
            return
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError:
            log("%s: skipped %d bytes that are not a JSON message: %r" % (self.alias, len(line), line[:60]))
            return
        if not isinstance(message, dict):
            log("%s: skipped a line that is not a JSON object" % self.alias)
            return
        # Correlation: only a message that carries an id can answer a
        # request. One without is a notification, whatever else it holds.
        if is_notification(message):
            log("%s: notification %s" % (self.alias, message["method"]))
            return
        if "method" in message:
            log("%s: skipped a request (%s): a 2026-07-28 server sends none" % (self.alias, message["method"]))
            return
        with self._lock:
            waiter = self._waiting.pop(message.get("id"), None) if type(message.get("id")) is int else None
        if waiter is None:
            # Too late (its request timed out) or never asked for: drop it.
            log("%s: dropped a response with id %r: no request is waiting for it" % (self.alias, message.get("id")))
            return
        waiter.message = message
        waiter.done.set()

    def _server_gone(self):
        """stdout ended. Every request still waiting fails now, with the
        reason: no answer can come, so none should sit until its deadline."""
        # Wait a moment for the exit status and the last lines of stderr:
        # they say why the server is gone.
        deadline = time.monotonic() + 1.0
        try:
            code = self.proc.wait(timeout=1.0)
            reason = "the server exited with status %d" % code
        except subprocess.TimeoutExpired:
            reason = "the server closed its stdout"
        self._log_reader.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            self._gone = reason
            waiters, self._waiting = list(self._waiting.values()), {}
        for waiter in waiters:
            waiter.error = reason
            waiter.done.set()

    def round_trip(self, request_id, method, name, body, deadline):
        waiter = Waiter()
        with self._lock:
            if self._gone is not None:
                raise ClientError(self._gone)
            self._waiting[request_id] = waiter
        try:
            self._write_line(body)
        except OSError as e:  # BrokenPipeError: the server no longer reads
            # Most often it has exited, and the reader, seeing the end of its
            # stdout, fails this request with the reason in a moment.
            if not waiter.done.wait(min(2.0, max(0.0, deadline - time.monotonic()))):
                self._forget(request_id)
                raise ClientError("writing to the server: %s" % e)
        if not waiter.done.wait(max(0.0, deadline - time.monotonic())):
            # Stop waiting, and tell the server it may stop working on it. An
            # answer that still comes finds no one waiting and is dropped.
            self._forget(request_id)
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": request_id, "reason": "the client timed out"}}
            try:
                self._write_line(json.dumps(cancel).encode("utf-8"))
            except OSError:
                pass
            raise TimeoutError()
        if waiter.error is not None:
            raise ClientError(waiter.error)
        return waiter.message

    def _forget(self, request_id):
        with self._lock:
            self._waiting.pop(request_id, None)

    def _write_line(self, body):
        with self._write_lock:
            self.proc.stdin.write(body + b"\n")
            self.proc.stdin.flush()

    def close_input(self):
        with self._write_lock:
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    def finish(self, deadline):
        """Wait for the server to exit until deadline, then kill it. Nothing
        ends it for us when this program exits: a server we started and
        forgot keeps running."""
        try:
            self.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            log("%s: still running after its stdin closed; killing it" % self.alias)
            self.proc.kill()
            self.proc.wait()


# ---------------------------------------------------------------------------
# Streamable HTTP: one POST per request
# ---------------------------------------------------------------------------


def header_value(value):
    """How a value goes in Mcp-Name: as it is when it is plain visible
    ASCII, else (and also when it merely looks like the sentinel) as
    =?base64?...?= around the Base64 of its UTF-8 bytes. Header values
    cannot hold other characters."""
    plain = (all(0x20 <= ord(c) <= 0x7E for c in value)
             and not value.startswith(" ") and not value.endswith(" ")
             and not (value.startswith("=?base64?") and value.endswith("?=")))
    if plain:
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


class HTTPTransport:
    """POSTs every request to one endpoint. Each POST has an answer of its
    own, whose end HTTP marks, so no lines need finding; the answer is one
    JSON message, or an event stream with the response in it."""

    def __init__(self, alias, url):
        self.alias = alias
        self.url = url
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ClientError("%r is not an http:// or https:// URL" % url)
        self._parts = parts

    def _remaining(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError()
        return left

    def round_trip(self, request_id, method, name, body, deadline):
        p = self._parts
        kind = http.client.HTTPSConnection if p.scheme == "https" else http.client.HTTPConnection
        conn = kind(p.hostname, p.port, timeout=self._remaining(deadline))
        path = (p.path or "/") + ("?" + p.query if p.query else "")
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            # Three headers repeat the body, so that a proxy can route
            # without reading it. The server checks that they agree.
            "MCP-Protocol-Version": PROTOCOL_VERSION,
            "Mcp-Method": method,
        }
        if method == "tools/call":
            headers["Mcp-Name"] = header_value(name or "")
        try:
            conn.request("POST", path, body=body, headers=headers)
            sock = conn.sock  # kept: the response reads through it
            response = conn.getresponse()
            content_type = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
            if content_type == "application/json":
                # One message. An error (a 400 for headers that do not match
                # the body, say) comes this way too, with its JSON-RPC error.
                sock.settimeout(self._remaining(deadline))
                data = response.read(MAX_MESSAGE + 1)
                try:
                    message = json.loads(data.decode("utf-8"))
                except ValueError as e:
                    raise ClientError("the answer (%d) is not a JSON-RPC message: %s" % (response.status, e))
                if isinstance(message, dict) and ("error" in message or answers(message, request_id)):
                    return message
                raise ClientError("the answer (%d) is not the response to request %d" % (response.status, request_id))
            if content_type == "text/event-stream":
                return self._read_event_stream(response, sock, request_id, deadline)
            snippet = response.read(200).decode("utf-8", "replace").strip()
            raise ClientError("the server answered %d with Content-Type %r: %s"
                              % (response.status, response.getheader("Content-Type"), snippet))
        except OSError as e:  # refused, reset, and socket.timeout (a TimeoutError)
            if time.monotonic() >= deadline:
                raise TimeoutError()
            raise ClientError("POST %s: %s" % (self.url, e))
        except http.client.HTTPException as e:  # a broken answer, such as a cut chunk
            raise ClientError("POST %s: the answer broke off: %r" % (self.url, e))
        finally:
            # Closing before the end also cancels the request on the
            # server's side: on HTTP, that is how a client gives up.
            conn.close()

    def _read_event_stream(self, response, sock, request_id, deadline):
        """Read an event stream until it holds the response to request_id.
        Each event is a few "field: value" lines and a blank line; its data
        lines, joined, are one JSON-RPC message."""
        data = []
        notifications = 0
        while True:
            sock.settimeout(self._remaining(deadline))
            raw = response.readline(MAX_MESSAGE + 1)
            if not raw:
                break  # the stream is over
            if not raw.endswith(b"\n") and len(raw) > MAX_MESSAGE:
                raise ClientError("an event in the stream is longer than %d bytes" % MAX_MESSAGE)
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if line:
                field, _, value = line.partition(":")
                if field == "data":
                    data.append(value[1:] if value.startswith(" ") else value)
                continue  # other fields (event, id, retry) and comments do not matter here
            if not data:
                continue
            text, data = "\n".join(data), []
            try:
                message = json.loads(text)
            except ValueError as e:
                log("%s: skipped an event that is not a JSON message: %s" % (self.alias, e))
                continue
            if not isinstance(message, dict):
                continue
            # TODO(lesson 3), part 4: response by id.
            # An event stream may carry notifications before the response (the
            # ticket system sends progress first) and after it. This takes the
            # first message as the response. Take the message whose id is the
            # request's; count a message without an id as a notification and
            # read on. Fixes response-by-id.
            return message
        # The stream is over and the response never came: the request failed,
        # and we say so now, not when its deadline passes.
        raise ClientError("the event stream ended before the response to request %d, after %d notification(s)"
                          % (request_id, notifications))

    def close_input(self):
        pass  # HTTP holds no process: nothing to close or wait for

    def finish(self, deadline):
        pass


# ---------------------------------------------------------------------------
# The namespace: several servers, one list of tools
# ---------------------------------------------------------------------------


class Server:
    """One configured server and how mounting it went."""

    def __init__(self, config):
        self.config = config
        self.alias = config["alias"]
        self.conn = None  # a Connection, or None when it could not be reached
        self.error = None  # why it is missing
        self.tools = []


def connect(config):
    """Open the transport a server's configuration asks for."""
    if config["url"] is not None:
        transport = HTTPTransport(config["alias"], config["url"])
    else:
        try:
            transport = StdioTransport(config["alias"], config["command"], config["args"])
        except (OSError, ValueError) as e:
            raise ClientError("could not start %s: %s" % (config["command"], e))
    return Connection(config["alias"], config["timeout"], transport)


def list_tools(conn):
    """Ask the server for its tools."""
    result = conn.call("tools/list")
    tools = result.get("tools")
    if not isinstance(tools, list) or not all(isinstance(t, dict) and isinstance(t.get("name"), str) for t in tools):
        raise ClientError("tools/list: the result is not a list of tools")
    # TODO(lesson 3), part 3: pagination.
    # tools/list answers one page. When the result has a nextCursor, there
    # is more: send tools/list again with params.cursor set to it, exactly
    # as received, and repeat until a page has no nextCursor. A short page
    # proves nothing. Fixes pagination (the notes server lists three tools,
    # two to a page).
    return tools


def sanitize(text):
    """Replace each character that is not allowed by one "_". Iterating over
    a str gives code points: one character, one "_"."""
    return "".join(c if c in NAME_CHARACTERS else "_" for c in text)


def hashed_name(alias, tool_name):
    """The sanitized name cut to at most 57 characters, then "_" and the first
    six hex digits of the SHA-1 of alias::tool."""
    raw = sanitize("mcp__%s__%s" % (alias, tool_name))
    digest = hashlib.sha1(("%s::%s" % (alias, tool_name)).encode("utf-8")).hexdigest()[:6]
    return raw[:MAX_NAME_LENGTH - 7] + "_" + digest


def namespaced_name(alias, tool_name):
    """The name a model sees for tool_name of the server mounted as alias:
    mcp__alias__tool, with every character other than a letter, a digit,
    "_" or "-" made "_", and, when that is too long, cut to 57 characters
    plus "_" and six hex digits of a hash, so that two long names that begin
    alike stay apart."""
    name = sanitize("mcp__" + alias + "__" + tool_name)
    return name if len(name) <= MAX_NAME_LENGTH else hashed_name(alias, tool_name)


def truncate(text):
    """Keep a result within the budget that every tool, remote or local,
    shares, and say how much was cut. A Python str counts code points."""
    if len(text) <= MAX_RESULT_CHARS:
        return text
    cut = len(text) - MAX_RESULT_CHARS
    return text[:MAX_RESULT_CHARS] + "\n\n[%d more characters were cut from this result.]" % cut


class Host:
    """Every server, and the namespace built from them."""

    def __init__(self, configs):
        self.servers = [Server(c) for c in configs]
        self.tools = []  # the entries in order: dicts with the answer's members
        self.by_name = {}  # the only way back from a name to its tool
        self._mount()

    def _mount(self):
        """Connect to every server at once, each inside its own failure
        boundary: a server that cannot start, cannot be reached or answers
        nonsense costs its own tools and no one else's."""
        threads = [threading.Thread(target=self._discover, args=(s,)) for s in self.servers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # The namespace follows the configuration's order, then each server's.
        for server in self.servers:
            if server.error is not None:
                log("server %s is unavailable, so its tools are missing: %s" % (server.alias, server.error))
                continue
            for remote in server.tools:
                self._add(server, remote)

    def _discover(self, server):
        try:
            server.conn = connect(server.config)
            server.tools = list_tools(server.conn)
        except Exception as e:  # anything at all: this server's failure, not the host's
            server.error = str(e) or type(e).__name__
            if server.conn is not None:
                server.conn.transport.close_input()
                server.conn.transport.finish(time.monotonic() + CLOSE_GRACE)
                server.conn = None

    def _add(self, server, remote):
        alias, original = server.alias, remote["name"]
        name = namespaced_name(alias, original)
        if name in self.by_name:
            # Two tools became one name (créer_ticket and créer.ticket, say):
            # the later one takes the hashed form.
            name = hashed_name(alias, original)
        if name in self.by_name:
            other = self.by_name[name]
            log("tool %r of server %s is left out: its name %s is taken by tool %r of server %s"
                % (original, alias, name, other["original"], other["server"].alias))
            return
        # A model picks among tools by reading their descriptions, so each
        # one names its tool and its server.
        description = remote.get("description")
        description = description.strip() if isinstance(description, str) else ""
        source = "(Tool %s of MCP server %s.)" % (quote(original), quote(alias))
        description = description + " " + source if description else source
        annotations = remote.get("annotations")
        # TODO(lesson 3), part 5: annotations.
        # readOnlyHint is the server's claim about its own tool, and a server
        # you do not control can claim anything. This trusts it and lets
        # "read-only" tools skip approval. Every remote tool needs approval:
        # set needsApproval to true whatever the annotations say. Fixes
        # annotations.
        needs_approval = not (isinstance(annotations, dict) and annotations.get("readOnlyHint") is True)
        entry = {"name": name, "description": description, "needsApproval": needs_approval,
                 "server": server, "original": original}
        if "inputSchema" in remote:
            entry["inputSchema"] = remote["inputSchema"]
        self.by_name[name] = entry
        self.tools.append(entry)

    def list_tools(self):
        public = ("name", "description", "needsApproval", "inputSchema")
        return {
            "tools": [{k: t[k] for k in public if k in t} for t in self.tools],
            "failedServers": [{"server": s.alias, "error": s.error} for s in self.servers if s.error is not None],
        }

    def call(self, name, arguments):
        """Run the tool a model names. It never raises: whatever goes wrong
        becomes a failed result that says what happened, so the model can
        try something else."""
        entry = self.by_name.get(name)  # through the table, never by taking the name apart
        if entry is None:
            text = "No tool is named %s." % quote(name)
            for s in self.servers:
                if s.error is not None:
                    text += " Server %s is unavailable, so its tools are missing (%s)." % (s.alias, s.error)
            return {"text": text, "isError": True}
        server = entry["server"]
        # TODO(lesson 3), part 1: the original name.
        # This sends the server the namespaced name (mcp__notes__search).
        # That name is ours, made for the model's list: the server listed the
        # tool as search, knows it by no other name, and answers that the
        # tool does not exist. Send the tool's own name, kept in the table
        # entry. Fixes original-name, two-searches, isolation, stream-break
        # and timeout-teardown.
        params = {"name": entry["name"]}
        if arguments is not None:
            params["arguments"] = arguments
        try:
            result = server.conn.call("tools/call", params)
        except Exception as e:
            return {"text": "Calling tool %s of server %s failed: %s" % (quote(entry["original"]), server.alias, e),
                    "isError": True}
        result_type = result.get("resultType", "complete")
        if result_type != "complete":
            # "input_required" means the server needs more from us before it can
            # finish. This client cannot supply it, and passing a half-done result
            # on as a finished one would mislead the model.
            return {"text": "Tool %s of server %s did not finish: its result is of type %s, which this client "
                            "cannot continue." % (quote(entry["original"]), server.alias, quote(result_type)), "isError": True}
        content = result.get("content", [])
        if not isinstance(content, list):
            return {"text": "Tool %s of server %s gave a result whose content is not a list." % (quote(entry["original"]), server.alias),
                    "isError": True}
        texts = [b["text"] for b in content
                 if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
        return {"text": truncate("\n".join(texts)), "isError": result.get("isError") is True}

    def close(self):
        """End every server: first all stdins close, then each server has
        until the same deadline to exit before it is killed."""
        deadline = time.monotonic() + CLOSE_GRACE
        for s in self.servers:
            if s.conn is not None:
                s.conn.transport.close_input()
        for s in self.servers:
            if s.conn is not None:
                s.conn.transport.finish(deadline)


# ---------------------------------------------------------------------------
# The commands
# ---------------------------------------------------------------------------


def run(host, line):
    """Answer one command line."""
    try:
        command = json.loads(line.decode("utf-8"))
    except ValueError as e:
        return {"error": "the line is not a JSON object with a command: %s" % e}
    if not isinstance(command, dict):
        return {"error": "the line is not a JSON object with a command"}
    kind = command.get("command")
    if kind == "list_tools":
        return host.list_tools()
    if kind == "call_tool":
        name = command.get("name")
        if not isinstance(name, str):
            return {"error": 'call_tool needs "name", the tool\'s namespaced name as a string'}
        arguments = command.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            return {"error": '"arguments" must be a JSON object'}
        return host.call(name, arguments)
    if kind is None:
        return {"error": 'the command has no "command"; use "list_tools" or "call_tool"'}
    return {"error": 'unknown command %s; use "list_tools" or "call_tool"' % quote(kind)}


def main(argv):
    config_path = "servers.json"
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--config" and args:
            config_path = args.pop(0)
        elif arg.startswith("--config="):
            config_path = arg[len("--config="):]
        else:
            log("unexpected argument %r; usage: client.py --config servers.json" % arg)
            return 2
    try:
        configs = load_config(config_path)
    except (OSError, ValueError) as e:
        log("the configuration %s: %s" % (config_path, e))
        return 2
    host = Host(configs)

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        line = stdin.readline(MAX_MESSAGE + 1)
        if not line:
            break  # stdin is over
        if len(line) > MAX_MESSAGE and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip to the line's end
                line = stdin.readline(MAX_MESSAGE)
            answer = {"error": "the command is longer than %d bytes" % MAX_MESSAGE}
        elif not line.strip():
            continue
        else:
            answer = run(host, line)
        stdout.write(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
        stdout.flush()
    # stdin is over: close every server, then leave.
    host.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
