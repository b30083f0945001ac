"""Runs a command in a real pseudo-terminal and relays it, for tests that drive a CLI as a person does.

Usage: python3 pty-bridge.py COMMAND [ARGS...]. Bytes on this process's stdin are typed into the
terminal (a Ctrl-C byte is Ctrl-C, as the terminal's line discipline takes it); everything the command
writes to the terminal comes out on stdout as it is written. The terminal is PTY_COLS x PTY_ROWS
(default 100 x 30). Exits with the command's exit status (128 + N when a signal N ended it).
"""
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios

cols = int(os.environ.get("PTY_COLS", "100"))
rows = int(os.environ.get("PTY_ROWS", "30"))

pid, master = pty.fork()
if pid == 0:
    # The child's stdin is the terminal: give it a size before the command asks for one.
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.execvp(sys.argv[1], sys.argv[1:])

# Stopping the bridge stops the command (a test cleaning up): it hears SIGTERM, then SIGKILL if it lingers.
def stop(signum, frame):
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    signal.signal(signal.SIGALRM, lambda *_: os.kill(pid, signal.SIGKILL))
    signal.alarm(5)


signal.signal(signal.SIGTERM, stop)
# A test process that dies outright (killed, crashed) cannot stop us: the kernel sends SIGTERM when it goes
# (Linux's PR_SET_PDEATHSIG), so its command does not live on. Checked once more in case it went already.
try:
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
except (OSError, AttributeError):
    pass
if os.getppid() == 1:
    stop(signal.SIGTERM, None)

inputs = [master, 0]
while True:
    try:
        ready, _, _ = select.select(inputs, [], [])
    except InterruptedError:
        continue
    if master in ready:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the command closed the terminal (it exited)
            data = b""
        if not data:
            break
        os.write(1, data)
    if 0 in ready:
        data = os.read(0, 65536)
        if not data:
            inputs.remove(0)  # the test is done typing; keep relaying the output
        else:
            os.write(master, data)

_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if os.waitstatus_to_exitcode(status) >= 0 else 128 - os.waitstatus_to_exitcode(status))
