"""Where your lesson 1 server begins: a stdio JSON-RPC server.

It reads requests from stdin, one per line, and writes one answer per line
to stdout. Everything else it has to say goes to stderr. It uses Python 3's
standard library only.

It runs and can be graded as it is. Five parts are left for you, each
marked "TODO(lesson 1)", in the order the lesson teaches them:

 1. framing: cut the stream of bytes into lines;
 2. parse errors: answer a line that is not JSON;
 3. invalid requests: answer JSON that is not a request;
 4. notifications: never answer a message that has no id;
 5. concurrency: answer a slow wait without holding up the rest.

README.md says which checks it passes as shipped and how to grade it.
"""

import json
import os
import sys
import time

# The JSON-RPC error codes of lesson 1.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

# The longest wait a client may ask for, in milliseconds.
MAX_WAIT_MS = 60000


def main():
    log("ready")
    while True:
        chunk = os.read(sys.stdin.fileno(), 64 * 1024)
        if not chunk:
            break  # stdin is closed
        # TODO(lesson 1): framing.
        # One read returns whatever bytes were waiting: half a line, one
        # line, or several lines and a bit. The starter takes it for
        # exactly one line. Keep a buffer (bytes) outside this loop
        # instead: add each chunk, hand every complete line (the bytes
        # before a b"\n") to handle_line, and keep the rest for the next
        # chunk. When stdin closes, bytes left in the buffer are a last
        # line without a newline: handle them too.
        # Fixes framing.split-message and framing.many-per-chunk.
        handle_line(chunk)
    log("stdin closed, exiting")


def log(text):
    """Write one line to stderr. Never print to stdout: the client reads
    every stdout line as a message."""
    print("log: " + text, file=sys.stderr, flush=True)


def handle_line(line):
    """Handle one line of input (bytes). Send at most one answer."""
    line = line.strip()  # also drops the "\r" of a "\r\n" ending
    if not line:
        return  # a blank line is not a message

    # TODO(lesson 1): parse errors.
    # A line that is not JSON is left as None here, so it gets the same
    # answer as JSON that is not an object: -32600, from the check below.
    # JSON-RPC gives it a code of its own: answer -32700 (Parse error) with
    # id None, since no id can be read from it. Beware: json.loads also
    # accepts NaN and Infinity, which are not JSON (see its parse_constant
    # argument).
    # Fixes errors.parse.
    try:
        message = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8, not JSON, or too deep
        message = None

    # TODO(lesson 1): invalid requests.
    # Only a line that is not a JSON object gets -32600 here. Any object is
    # taken for a request: "jsonrpc" is never looked at, any method goes to
    # answer(), and any id (true, 1.5, None) is copied into the answer.
    # Answer those with -32600 too. Its id is the request's id when that is
    # a string or an integer, and None otherwise. Careful: in Python, True
    # is an int too.
    # Fixes errors.invalid-request and ids.string-or-integer.
    if not isinstance(message, dict):
        log("got a line that is not a JSON object")
        send_error(None, INVALID_REQUEST, "Invalid Request: a request is a JSON object")
        return
    method = message.get("method")

    # TODO(lesson 1): notifications.
    # A message without an "id" member is a notification. It never gets an
    # answer, not even an error, whatever its method. The starter answers
    # it anyway, with id None (sent as null).
    # Fixes notifications.silent.
    request_id = message.get("id")
    log(f"got {method!r} (id {request_id!r})")
    answer(request_id, method, message.get("params"))


def answer(request_id, method, params):
    """Work out the answer to one request and send it."""
    if method == "ping":
        send({"id": request_id, "result": {}})
    elif method == "wait":
        ms, problem = wait_time(params)
        if problem:
            send_error(request_id, INVALID_PARAMS, "Invalid params: " + problem)
            return
        # TODO(lesson 1): concurrency.
        # This sleeps before anything else is read, so a wait of 80 ms holds
        # up a ping sent after it. Sleep and answer in a thread of its own
        # instead (threading.Thread), so each answer goes out when it is
        # ready. Then two threads may write at once: guard the write in
        # send() with a threading.Lock. Python waits for running threads
        # before it exits (unless they are daemon threads), so their answers
        # still go out after stdin closes.
        # Fixes order.concurrent.
        time.sleep(ms / 1000)
        send({"id": request_id, "result": {"waited": ms}})
    else:
        send_error(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")


def wait_time(params):
    """Read params["ms"] of a wait request. Return (ms, None) when it is a
    whole number from 0 to MAX_WAIT_MS, else (None, a sentence saying why)."""
    if not isinstance(params, dict) or "ms" not in params:
        return None, 'wait needs params {"ms": N}, and ms is missing'
    ms = params["ms"]
    if isinstance(ms, bool) or not isinstance(ms, int):
        return None, "ms must be a whole number of milliseconds, not " + json.dumps(ms)
    if ms < 0 or ms > MAX_WAIT_MS:
        return None, f"ms must be from 0 to {MAX_WAIT_MS}, not {ms}"
    return ms, None


def send_error(request_id, code, text):
    send({"id": request_id, "error": {"code": code, "message": text}})


def send(fields):
    """Write one answer to stdout as one line of JSON, in one write."""
    line = json.dumps({"jsonrpc": "2.0", **fields}, separators=(",", ":")) + "\n"
    sys.stdout.write(line)
    sys.stdout.flush()  # stdout is buffered when it is a pipe


if __name__ == "__main__":
    main()
