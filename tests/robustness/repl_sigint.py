"""Drives the arr REPL on a pseudo-terminal, as a user would: defines a variable,
starts a long loop and a long computation, presses Ctrl-C during each, and checks
that the REPL says `interrupted`, gives the prompt back and keeps the variables.

Usage: repl_sigint.py ARR_BINARY HOME_DIR. Prints `ok` and exits 0 on success;
otherwise exits 1 with the transcript on stderr."""

import os
import pty
import select
import sys
import time

ARR, HOME = sys.argv[1], sys.argv[2]
PROMPT = b"arr> "
transcript = bytearray()


def fail(why):
    sys.stderr.write(f"FAILED: {why}\n--- transcript ---\n")
    sys.stderr.write(transcript.decode("utf-8", "replace"))
    sys.exit(1)


pid, fd = pty.fork()
if pid == 0:
    os.environ["HOME"] = HOME
    os.environ["TERM"] = "xterm"
    os.execv(ARR, [ARR, "--backend", "cpu"])


pos = 0  # how far the transcript has been matched


def read_until(marker, timeout):
    """Reads output until `marker` appears after what was matched before; returns
    the output before it and moves past it."""
    global pos
    deadline = time.monotonic() + timeout
    while (found := transcript.find(marker, pos)) < 0:
        left = deadline - time.monotonic()
        if left <= 0:
            fail(f"no {marker!r} within {timeout} s")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                fail(f"arr ended while waiting for {marker!r}")
            transcript.extend(chunk)
    out, pos = bytes(transcript[pos:found]), found + len(marker)
    return out


def send(line):
    os.write(fd, line.encode() + b"\r")
    # The editor echoes the line and a newline once it has taken it; the statement
    # runs after that, with the terminal back in its usual (signal-generating) mode.
    read_until(b"\n", 30)


def wait_for_raw_mode(timeout=30):
    """Waits until the line editor has put the terminal in raw mode, as it is by the
    time a person types at the prompt: before that, on a loaded machine, a Ctrl-C
    would still be a signal and typed text would be the terminal's own line."""
    import termios
    deadline = time.monotonic() + timeout
    while termios.tcgetattr(fd)[3] & termios.ICANON:
        if time.monotonic() > deadline:
            fail("the terminal never left canonical mode at the prompt")
        time.sleep(0.01)


def value_of(expr):
    send(f"print({expr})")
    out = read_until(PROMPT, 60)
    return out.split(b"\n")[0].strip(b"\r\n ").decode()


# Start-up on a loaded machine can take a while (standard library, backend).
read_until(PROMPT, 120)
send("let x = 42")
read_until(PROMPT, 60)
send("let acc = 0")
read_until(PROMPT, 60)

# 1. A long loop: Ctrl-C between iterations.
send("for i in 0..100000000 { acc += 1 }")
time.sleep(1.0)
os.write(fd, b"\x03")
out = read_until(PROMPT, 60)
if b"interrupted" not in out:
    fail("no `interrupted` after Ctrl-C during the loop")
if value_of("x") != "42":
    fail("x changed")
acc, i = int(value_of("acc")), int(value_of("i"))
# The stop comes after `i` is bound and before the body runs: iterations 0..i-1 finished.
if not (0 < acc < 100000000 and acc == i):
    fail(f"after the stopped loop acc = {acc}, i = {i}; expected 0 < acc == i < 1e8")

# 1b. A loop that carries an array: each iteration ends with a realize (a kernel), where
# Ctrl-C may land too; a stop there still counts the iteration as finished, so the array
# holds exactly k increments, k being the iteration that did not run.
send("let v = zeros([1000])")
read_until(PROMPT, 60)
send("for k in 0..100000000 { v = v + 1.0 }")
time.sleep(1.0)
os.write(fd, b"\x03")
out = read_until(PROMPT, 60)
if b"interrupted" not in out:
    fail("no `interrupted` after Ctrl-C during the array loop")
k = int(value_of("k"))
if not (0 < k < 100000000 and value_of("all(v == k)") == "true"):
    fail(f"after the stopped array loop k = {k} but v is not all k")

# 2. A long computation: Ctrl-C between (or inside) kernels. 128 chained
# 1024x1024 matrix products take tens of seconds on two cores and seconds on
# sixteen; Ctrl-C comes after 0.7 s.
send("let y = 7")
read_until(PROMPT, 60)
send("let a = rand([1024, 1024])")
read_until(PROMPT, 60)
send("fn f(m) = matmul(matmul(matmul(matmul(m, a), a), a), a) / 1000.0")
read_until(PROMPT, 60)
send("fn g(m) = f(f(f(f(m))))")
read_until(PROMPT, 60)
long = "sum(g(g(g(g(g(g(g(g(a)))))))))"
started = time.monotonic()
send(f"print({long})")
time.sleep(0.7)
os.write(fd, b"\x03")
out = read_until(PROMPT, 120)
if b"interrupted" not in out:
    fail(f"no `interrupted` after Ctrl-C during the computation ({time.monotonic() - started:.1f} s)")
if value_of("x + y") != "49":
    fail("x or y changed")
# The session still computes, and the interrupted graph's value is still right.
if value_of("acc == i") != "true":
    fail("acc == i does not hold any more")

# 3. Multi-line input gets a continuation prompt and runs as one input.
send("for j in 0..3 {")
read_until(b"...  ", 30)
send("acc += 100")
read_until(b"...  ", 30)
send("}")
read_until(PROMPT, 60)
if value_of("acc - i") != "300":
    fail("the multi-line loop did not run once as a whole")

# 4. Tab lists the candidates when there are several.
wait_for_raw_mode()
os.write(fd, b"cum\t\t")
listing = b""
deadline = time.monotonic() + 30
while not all(c in listing for c in (b"cumsum", b"cumprod", b"cummax", b"cummin")):
    if time.monotonic() > deadline:
        fail("Tab did not list cumsum, cumprod, cummax and cummin")
    ready, _, _ = select.select([fd], [], [], 0.5)
    if ready:
        chunk = os.read(fd, 4096)
        transcript.extend(chunk)
        listing += chunk
# Ctrl-U clears the line; an empty input gives the prompt again.
pos = len(transcript)
os.write(fd, b"\x15\r")
read_until(PROMPT, 30)

# 5. Ctrl-C on a line with text abandons that line only, however often.
def echoed(text, timeout):
    """Whether the editor echoed `text` within `timeout` s (it shows what it has taken)."""
    deadline = time.monotonic() + timeout
    while transcript.find(text, pos) < 0:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                transcript.extend(os.read(fd, 4096))
            except OSError:
                fail("arr ended while a line was typed")
    return True


for typed in (b"let gone = 1", b"let gone = 2"):
    wait_for_raw_mode()
    # As a person would: press Ctrl-C once the editor shows the text on its line (its
    # redraw ends a synchronized-output block, ESC[?2026l, before the text). Text typed
    # while the terminal was briefly cooked between two lines is echoed by the terminal
    # first and taken by the editor after, or dropped when the editor sets its mode;
    # only the editor's echo says it has the text, and dropped text is typed again.
    for _ in range(5):
        os.write(fd, typed)
        if echoed(b"\x1b[?2026l" + typed, 5):
            break
    else:
        fail(f"the editor never showed {typed!r}")
    os.write(fd, b"\x03")
    time.sleep(0.3)
# However the prompts interleaved, the session must still answer, with x unchanged.
send("print(x + 1000)")
read_until(b"1042", 30)
read_until(PROMPT, 30)

# 6. Ctrl-C twice at an empty prompt leaves, having written the history.
wait_for_raw_mode()
os.write(fd, b"\x03")
time.sleep(0.3)
os.write(fd, b"\x03")
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    ready, _, _ = select.select([fd], [], [], 0.2)
    if ready:
        try:
            transcript.extend(os.read(fd, 4096))
        except OSError:
            pass
else:
    fail("arr did not leave after Ctrl-C twice at the prompt")
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    fail(f"arr left with status {status}")
history = open(os.path.join(HOME, ".arr_history"), encoding="utf-8").read()
if "let x = 42" not in history or "for i in 0..100000000" not in history:
    fail(f"history lacks the inputs: {history!r}")
print("ok")
