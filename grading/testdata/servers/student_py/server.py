#!/usr/bin/env python3
"""A stdio JSON-RPC server for lesson 1, written the way a careful student would.

With no options it is correct. --mistake NAME breaks one rule on purpose so the
grader's tests can check that it notices:

  chunk-as-line          treats each chunk read from stdin as one whole line
  sequential             handles every request inline, so a slow wait holds up the rest
  answers-notifications  answers a notification with error -32601 and id null
  stringify-ids          sends every id that is not null back as a JSON string
  banner                 prints "Server starting..." to stdout before anything else
  no-exit                keeps running after stdin closes, until it is killed
  crash-on-bad-json      has no try around json.loads, so the first line that is
                         not JSON ends it with a traceback (exit status 1)
  hang                   logs that it is ready, then never reads, answers or exits
  fork-bomb              logs that it is ready, then forks children in a loop
                         (at most 10000 forks in all) and never answers
  no-ready               answers correctly but writes nothing at all to stderr

Standard library only.
"""

import argparse
import json
import os
import sys
import threading
import time

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
MAX_WAIT_MS = 60000
MAX_FORKS = 10000

MISTAKES = [
    "chunk-as-line", "sequential", "answers-notifications", "stringify-ids",
    "banner", "no-exit", "crash-on-bad-json", "hang", "fork-bomb", "no-ready",
]


class NotJSON(Exception):
    """The line is not valid UTF-8 JSON."""


def reject_constant(name):
    # Python's json accepts NaN and Infinity; JSON does not.
    raise NotJSON("%s is not JSON" % name)


def is_integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


class Server:
    def __init__(self, mistake):
        self.mistake = mistake
        self.write_lock = threading.Lock()
        self.log_lock = threading.Lock()
        self.waits = []  # threads still waiting to answer

    def log(self, text):
        if self.mistake == "no-ready":
            return
        with self.log_lock:
            write_all(2, ("log: " + text + "\n").encode("utf-8", "backslashreplace"))

    def send(self, message):
        message = dict(message)
        if self.mistake == "stringify-ids" and message["id"] is not None \
                and not isinstance(message["id"], str):
            message["id"] = str(message["id"])
        ordered = {"jsonrpc": "2.0", "id": message["id"]}
        ordered.update((k, v) for k, v in message.items() if k != "id")
        try:
            data = json.dumps(ordered, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate such as "\ud800" cannot be written as UTF-8;
            # escape it the way it came in.
            data = json.dumps(ordered, separators=(",", ":")).encode("ascii")
        data += b"\n"
        with self.write_lock:
            write_all(1, data)

    def send_error(self, id_, code, text):
        self.send({"id": id_, "error": {"code": code, "message": text}})

    def run(self):
        if self.mistake == "banner":
            write_all(1, b"Server starting...\n")
        self.log("ready")
        if self.mistake == "hang":
            sleep_forever()
        if self.mistake == "fork-bomb":
            fork_bomb()
            sleep_forever()

        pending = b""
        while True:
            chunk = os.read(0, 65536)
            if not chunk:
                break
            if self.mistake == "chunk-as-line":
                self.handle_line(chunk.rstrip(b"\r\n"))
                continue
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self.handle_line(line)
        if pending:
            self.handle_line(pending)  # the last line had no newline
        for t in self.waits:
            t.join()
        self.log("stdin closed, all answers sent")
        if self.mistake == "no-exit":
            sleep_forever()
        return 0

    def handle_line(self, line):
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line.strip():
            return  # blank lines are skipped
        if self.mistake == "crash-on-bad-json":
            # The mistake: no try around json.loads, so a bad line raises and
            # ends the program.
            json.loads(line)
        try:
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                raise NotJSON("the line is not valid UTF-8")
            try:
                msg = json.loads(text, parse_constant=reject_constant)
            except ValueError as err:
                raise NotJSON(str(err))
        except NotJSON as err:
            self.log("got a line that is not JSON")
            self.send_error(None, PARSE_ERROR, "Parse error: %s" % err)
            return

        if not isinstance(msg, dict):
            self.log("got JSON that is not an object")
            self.send_error(None, INVALID_REQUEST, "Invalid Request: a request must be a JSON object")
            return
        has_id = "id" in msg
        id_ = msg.get("id")
        copy_id = id_ if isinstance(id_, str) or is_integer(id_) else None
        method = msg.get("method")
        if not isinstance(method, str):
            self.log("got an object whose method is not a string")
            self.send_error(copy_id, INVALID_REQUEST, "Invalid Request: method must be a string")
            return
        if msg.get("jsonrpc") != "2.0":
            self.log("got %r with a wrong jsonrpc member" % method)
            self.send_error(copy_id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be the string "2.0"')
            return
        if not has_id:
            self.log("got notification %r" % method)
            if self.mistake == "answers-notifications":
                self.send_error(None, METHOD_NOT_FOUND, "Method not found: " + method)
            return
        if copy_id is None:
            self.log("got %r with an id that is not a string or an integer" % method)
            self.send_error(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
            return
        self.log("got %r (id %s)" % (method, json.dumps(id_, ensure_ascii=False)))
        self.answer(id_, method, msg.get("params"))

    def answer(self, id_, method, params):
        if method == "ping":
            self.send({"id": id_, "result": {}})
        elif method == "wait":
            ms, problem = wait_time(params)
            if problem:
                self.send_error(id_, INVALID_PARAMS, "Invalid params: " + problem)
                return
            if self.mistake == "sequential":
                time.sleep(ms / 1000)
                self.send({"id": id_, "result": {"waited": ms}})
                return
            # The wait runs on its own so that later requests are not held up.
            # A daemon thread does not keep a crashed program alive; at end of
            # input run() joins every wait before it exits.
            t = threading.Thread(target=self.finish_wait, args=(id_, ms), daemon=True)
            t.start()
            self.waits = [w for w in self.waits if w.is_alive()]
            self.waits.append(t)
        else:
            self.send_error(id_, METHOD_NOT_FOUND, "Method not found: " + method)

    def finish_wait(self, id_, ms):
        time.sleep(ms / 1000)
        self.send({"id": id_, "result": {"waited": ms}})


def wait_time(params):
    """Return (ms, "") for a good wait, or (0, what is wrong)."""
    if not isinstance(params, dict) or "ms" not in params:
        return 0, 'wait needs params {"ms": N}, and ms is missing'
    ms = params["ms"]
    if not is_integer(ms):
        return 0, "ms must be a whole number of milliseconds, not %s" % json.dumps(ms)
    if ms < 0:
        return 0, "ms must not be negative, got %d" % ms
    if ms > MAX_WAIT_MS:
        return 0, "ms must be at most %d, got %d" % (MAX_WAIT_MS, ms)
    return ms, ""


def write_all(fd, data):
    while data:
        n = os.write(fd, data)
        data = data[n:]


def sleep_forever():
    while True:
        time.sleep(3600)


def fork_bomb():
    """Fork children in a loop, as a runaway program would.

    It stops after MAX_FORKS attempts (failed ones count too), so outside a
    sandbox it cannot take the machine down. Each child exits at once, but
    the parent never reaps it, so every child keeps its slot in the process
    table (as a zombie) until the parent is killed: to a process limit this
    looks just like a fork bomb, while it costs almost no memory. Inside a
    sandbox the forks start failing once the limit is reached.
    """
    failed = 0
    for _ in range(MAX_FORKS):
        try:
            pid = os.fork()
        except OSError:
            failed += 1
            continue
        if pid == 0:
            os._exit(0)
    if failed:
        sys.stderr.write("fork: Resource temporarily unavailable (%d times)\n" % failed)
        sys.stderr.flush()


def main():
    parser = argparse.ArgumentParser(description="lesson 1 stdio JSON-RPC server")
    parser.add_argument("--mistake", choices=MISTAKES, default="",
                        help="break one rule on purpose")
    args = parser.parse_args()
    return Server(args.mistake).run()


if __name__ == "__main__":
    sys.exit(main())
