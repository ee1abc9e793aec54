"""Writes a vault document (docs/file-format.md) holding N secrets to standard output.

Usage: python3 make-document.py COUNT [SERVICE]

Names are bench-00000 ... in the given service (default "vault"), sorted as vault writes them;
each value is 40 bytes. The benchmark encrypts the output with `age -r`, which is how a
vault file is built by hand, and much faster than COUNT runs of `vault set`.
"""

import base64
import sys


def main() -> None:
    count = int(sys.argv[1])
    service = sys.argv[2] if len(sys.argv) > 2 else "vault"
    out = sys.stdout
    out.write('{"vault":1}\n')
    for index in range(count):
        name = "bench-%05d" % index
        value = base64.b64encode(("value-%05d-" % index).encode().ljust(40, b"x")).decode()
        out.write(
            '{"service":"%s","account":"%s","value":"%s",'
            '"created":"2026-11-21T10:00:00Z","updated":"2026-11-21T10:00:00Z"}\n' % (service, name, value)
        )


if __name__ == "__main__":
    main()
