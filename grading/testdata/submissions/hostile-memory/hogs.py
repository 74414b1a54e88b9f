"""A hostile build step: six processes of 450 MB each, all at once.

Each child takes 450 MB (every page written), says so on a pipe and holds it
until the parent lets go; the parent lets go once every child has either
said so or died, so the step ends whatever the sandbox does. Capped for the
job's processes together (a memory cgroup: the container, or the process
sandbox as root), the kernel kills the children past the cap; capped per
process only, all six hold their 450 MB, 2.7 GB in all. Either way the step
exits 0 and the correct server runs.
"""
import os
import sys

HOGS = 6
ready_r, ready_w = os.pipe()
release_r, release_w = os.pipe()
children = []
for i in range(HOGS):
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        os.close(release_w)
        try:
            hog = bytearray(b"\x01") * (450 << 20)
        except MemoryError:
            os._exit(1)
        os.write(ready_w, b"x")
        os.close(ready_w)  # the parent's read ends once every child is done
        os.read(release_r, 1)  # hold until the parent lets go
        os._exit(0)
    children.append(pid)
os.close(ready_w)
os.close(release_r)
held = 0
while held < HOGS:
    b = os.read(ready_r, HOGS)
    if not b:
        break  # every child said so or died
    held += len(b)
os.close(release_w)
killed = 0
for pid in children:
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        killed += 1
sys.stderr.write("hostile-memory: %d of %d processes held 450 MB, %d were killed\n" % (held, HOGS, killed))
sys.exit(0)
