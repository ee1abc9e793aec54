#!/usr/bin/env python3
"""A proxy in front of an OpenBao server that loses the answers to the first data writes.

Usage: openbao-lost-answer-proxy.py PORT UPSTREAM COUNT (UPSTREAM: http://127.0.0.1:8200)

Every request on 127.0.0.1:PORT is passed to UPSTREAM and its answer passed back, except the
first COUNT POSTs to a KV `/data/` path: each is passed on (so the server runs it) and then the
client's connection is closed without an answer, as when the active node dies after a write
landed. With COUNT 2, libcurl sends the first again by itself (a kept-alive connection that
closed with no answer) and vault the second. The OpenBao store tests (OpenBaoSafetyTests) check
that the write is made once and acknowledged.
"""
import http.client
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

UPSTREAM = urlsplit(sys.argv[2])
to_lose = int(sys.argv[3])
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        upstream = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port, timeout=30)
        upstream.request(self.command, self.path, body=body, headers=headers)
        response = upstream.getresponse()
        payload = response.read()
        upstream.close()
        global to_lose
        if self.command == "POST" and "/data/" in self.path:
            with lock:
                lose = to_lose > 0
                to_lose -= 1
            if lose:
                self.close_connection = True
                return
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_LIST = forward


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
