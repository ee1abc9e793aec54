"""Runs a command with its standard input and standard error on a new pseudo-terminal.

Usage: python3 Tests/on-terminal.py COMMAND [ARG...]

This is how a person at a terminal runs vault: its standard input and standard error are a
terminal (the pty, which is also its controlling terminal), while its standard output stays the
caller's (a file or a pipe the test reads). What the command writes to the terminal is copied to
this program's standard error. Nothing is typed: the terminal only has to be there. The exit
status is the command's (128 + N if signal N ended it).
"""

import os
import pty
import sys


def main() -> int:
    command = sys.argv[1:]
    if not command:
        sys.stderr.write(__doc__)
        return 2
    stdout = os.dup(1)
    pid, master = pty.fork()
    if pid == 0:
        # pty.fork put the terminal on 0, 1 and 2 and made it the controlling terminal.
        os.dup2(stdout, 1)
        os.close(stdout)
        try:
            os.execvp(command[0], command)
        except OSError as error:
            os.write(2, ("on-terminal.py: %s: %s\n" % (command[0], error.strerror)).encode())
        os._exit(127)
    os.close(stdout)
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal's last descriptor
            break
        if not data:
            break
        sys.stderr.buffer.write(data)
        sys.stderr.buffer.flush()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
