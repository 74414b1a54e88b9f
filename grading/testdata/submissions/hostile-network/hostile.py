"""A hostile submission: it tries to reach a service on the grader's machine.

It connects to 127.0.0.1 on the port named in the file "port" beside it (the
test that grades this folder writes the port of a listener it watches), and
says on stderr whether it got through. Then it runs the correct Python server.
"""
import os
import socket
import sys

here = os.path.dirname(os.path.abspath(__file__))
try:
    with open(os.path.join(here, "port")) as f:
        port = int(f.read().strip())
except (OSError, ValueError):
    port = 0
if port:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(b"hostile-network got through\n")
        sys.stderr.write("hostile-network: connected\n")
    except OSError as e:
        sys.stderr.write("hostile-network: no connection (%s)\n" % e.__class__.__name__)
sys.stderr.flush()
server = os.path.join(here, "..", "..", "servers", "student_py", "server.py")
os.execvp("python3", ["python3", server])
