#!/usr/bin/env python3
"""A tiny HTTP server for the HTTP client tests (Tests/VaultCoreTests/HTTPClientTests.swift).

Listens on 127.0.0.1:PORT (the first argument) and answers:
  /echo/...          200, a JSON object: the method, path, headers, the body (base64) and the
                     client's port (which tells connections apart)
  /status/N          status N with the body "status N"
  /oauth-error/CODE  400 with an OAuth error body {"error": "CODE"} (RFC 6749 section 5.2)
  /redirect          307 with Location: /echo/redirected
  /hang              accepts the request and never answers
  /bytes/N           200 with N bytes 0..255 repeated
As a proxy (a request line with a whole http:// URL) it answers as for the URL's path.
A second listener on PORT2 (the second argument) accepts connections and never reads them.
"""
import base64
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = self.path
        if path.startswith("http://"):  # a request through a proxy names the whole URL
            path = "/" + path.split("/", 3)[3]
        if path.startswith("/echo"):
            payload = json.dumps({
                "method": self.command,
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body_base64": base64.b64encode(body).decode(),
                "client_port": self.client_address[1],
            }).encode()
            self.send(200, payload, "application/json")
        elif path.startswith("/status/"):
            code = int(path.split("/")[2])
            self.send(code, b"status %d" % code, "text/plain")
        elif path.startswith("/oauth-error/"):
            self.send(400, json.dumps({"error": path.split("/")[2]}).encode(), "application/json")
        elif path == "/redirect":
            self.send(307, b"", "text/plain", [("Location", "/echo/redirected")])
        elif path == "/hang":
            time.sleep(3600)
        elif path.startswith("/bytes/"):
            count = int(path.split("/")[2])
            self.send(200, bytes(i % 256 for i in range(count)), "application/octet-stream")
        else:
            self.send(404, b"no such path", "text/plain")

    def send(self, code, body, content_type, extra=()):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Test-Server", "vault")
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_LIST = answer


def silent(port):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    held = []
    while True:
        connection, _ = listener.accept()
        held.append(connection)


ThreadingHTTPServer.daemon_threads = True
server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
threading.Thread(target=silent, args=(int(sys.argv[2]),), daemon=True).start()
server.serve_forever()
