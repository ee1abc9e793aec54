#!/usr/bin/env python3
"""An HTTP proxy in front of a test server (OpenBao) that fails one way on purpose, so a test can
put vault in a chosen state without a hook in vault. Every request on 127.0.0.1:PORT goes to
UPSTREAM (plain HTTP on loopback) and its answer comes back, except:

    fault-proxy.py PORT UPSTREAM hold METHOD SUFFIX WHEN MARKER
        the first METHOD request whose path ends with SUFFIX is held for ever, before it is
        forwarded (WHEN=before: the server never sees it) or after the server answered
        (WHEN=after: the server applied it, the client never learns); once it holds the request
        it writes "held" to MARKER, and the test kills the client (the fleet tests).

    fault-proxy.py PORT UPSTREAM lose-answers COUNT
        the first COUNT POSTs to a KV `/data/` path are forwarded (the server runs them), then the
        client's connection is closed without an answer, as when the active node dies after a
        write landed (OpenBaoSafetyTests: the write is made once and acknowledged).
"""
import http.client
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

PORT = int(sys.argv[1])
UPSTREAM = urlsplit(sys.argv[2])
MODE = sys.argv[3]
if MODE == "hold":
    METHOD, SUFFIX, WHEN, MARKER = sys.argv[4:8]
    faults_left = 1
elif MODE == "lose-answers":
    faults_left = int(sys.argv[4])
else:
    sys.exit(f"fault-proxy.py: unknown mode {MODE}")
lock = threading.Lock()


def is_target(command, path):
    if MODE == "hold":
        return command == METHOD and path.split("?")[0].endswith(SUFFIX)
    return command == "POST" and "/data/" in path


def take_fault(command, path):
    """Whether this request is one of the ones to fail (each fault is taken once)."""
    global faults_left
    with lock:
        if faults_left > 0 and is_target(command, path):
            faults_left -= 1
            return True
    return False


def hold():
    with open(MARKER, "w") as marker:
        marker.write("held\n")
    while True:
        time.sleep(3600)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        fault = take_fault(self.command, self.path)
        if fault and MODE == "hold" and WHEN == "before":
            hold()
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        upstream = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port, timeout=60)
        upstream.request(self.command, self.path, body=body, headers=headers)
        answer = upstream.getresponse()
        payload = answer.read()
        upstream.close()
        if fault and MODE == "hold":
            hold()
        if fault:
            self.close_connection = True
            return
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_LIST = forward


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
