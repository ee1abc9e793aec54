"""Runs a command on a new pseudo-terminal and types a passphrase at its prompt.

Usage: python3 age-pty.py PASSPHRASE_FILE [--print] [--no-prompt] -- COMMAND [ARG...]

age reads passphrases only from /dev/tty, never from standard input or the environment, so
`age -d` of a passphrase file can only be timed through a terminal. The child gets the pty as
its controlling terminal (pty.fork makes it a session leader), so its /dev/tty is the pty.
Each time the child prints a prompt containing "passphrase" (age -p asks twice, age -d once),
the passphrase and a newline are typed; so the passphrase itself must not contain that word.
Everything the child prints is read (and shown with --print) until it exits. The
exit status is the child's. With --no-prompt nothing is typed: that times the wrapper alone
(Python start-up, the pty, fork and exec), to subtract or state next to the age figure.
"""

import os
import pty
import signal
import sys

# A child that never finishes (a second prompt, a wrong passphrase asked again) fails the run.
TIMEOUT_SECONDS = 120


def main() -> int:
    args = sys.argv[1:]
    if "--" not in args:
        sys.stderr.write(__doc__)
        return 2
    split = args.index("--")
    options, command = args[:split], args[split + 1 :]
    with open(options[0], "rb") as handle:
        passphrase = handle.read().rstrip(b"\n")
    if b"passphrase" in passphrase.lower():
        sys.stderr.write("age-pty.py: the passphrase must not contain the word it waits for\n")
        return 2
    show = "--print" in options
    prompt = "--no-prompt" not in options

    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)

    def give_up(_signal: int, _frame: object) -> None:
        os.kill(pid, signal.SIGKILL)
        sys.stderr.write("age-pty.py: %s did not finish within %d s\n" % (command[0], TIMEOUT_SECONDS))
        os._exit(124)

    signal.signal(signal.SIGALRM, give_up)
    signal.alarm(TIMEOUT_SECONDS)
    seen = b""  # what the child printed since the passphrase was last typed
    output = bytearray()
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
        if prompt:
            seen += chunk.lower()
            if b"passphrase" in seen:
                os.write(fd, passphrase + b"\n")
                seen = b""
    _, status = os.waitpid(pid, 0)
    if show:
        sys.stdout.buffer.write(bytes(output))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
