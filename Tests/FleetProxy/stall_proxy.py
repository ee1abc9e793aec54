"""An HTTP proxy for vault's fleet tests that stalls one chosen request, so that a test can kill
the `vault` that sent it at a known step of a refresh, without a hook in vault.

Forwards every request to UPSTREAM (plain HTTP, 127.0.0.1) and returns the answer, except the
first one whose method is METHOD and whose path ends with SUFFIX: that one is held for ever,
before it is forwarded (WHEN=before: the server never sees it) or after the server answered
(WHEN=after: the server applied it, the client never learns). When it holds the request it
writes "held" to MARKER, and the test then kills the client.

usage: stall_proxy.py PORT UPSTREAM METHOD SUFFIX WHEN MARKER
"""

import http.client
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1])
UPSTREAM = sys.argv[2].removeprefix("http://")
METHOD, SUFFIX, WHEN, MARKER = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
lock = threading.Lock()
fired = [False]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        with lock:
            trap = not fired[0] and self.command == METHOD and self.path.split("?")[0].endswith(SUFFIX)
            if trap:
                fired[0] = True
        if trap and WHEN == "before":
            self.hold()
        upstream = http.client.HTTPConnection(UPSTREAM, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        upstream.request(self.command, self.path, body=body, headers=headers)
        answer = upstream.getresponse()
        data = answer.read()
        upstream.close()
        if trap:
            self.hold()
        self.send_response(answer.status)
        for key, value in answer.getheaders():
            if key.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def hold(self):
        with open(MARKER, "w") as marker:
            marker.write("held\n")
        while True:
            time.sleep(3600)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_LIST = handle_any


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
