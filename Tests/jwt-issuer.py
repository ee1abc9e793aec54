#!/usr/bin/python3
"""A stand-in JWT issuer for vault's OpenBao JWT-login tests.

    jwt-issuer.py keygen DIR
        Makes an EC P-256 key pair: DIR/issuer.key (PKCS#8, private) and DIR/issuer.pub (the PEM
        public key OpenBao's jwt method takes as jwt_validation_pubkeys).
    jwt-issuer.py sign DIR CLAIMS_JSON
        Prints an ES256 JWT of CLAIMS_JSON signed with DIR/issuer.key. "exp_in": N becomes
        "exp": now + N; "iat" and "nbf" default to now.
    jwt-issuer.py actions DIR PORT REQUEST_TOKEN CLAIMS_JSON DEFAULT_AUDIENCE
        Serves a stand-in for the GitHub/Forgejo Actions id-token endpoint on 127.0.0.1:PORT:
        GET /token?api-version=2.0[&audience=AUD] with "Authorization: bearer REQUEST_TOKEN"
        answers {"value": JWT}, the JWT holding CLAIMS_JSON with "aud" set to AUD (as GitHub
        does), or DEFAULT_AUDIENCE without one. Any other bearer answers 401; another path 404.
        Each request appends one line to DIR/requests.log: "ok AUD", "refused" or "notfound".
        Stopped by its PID.

Needs Debian's python3-cryptography; a test fixture, never an issuer of real tokens.
"""

import base64
import http.server
import json
import os
import sys
import time
import urllib.parse

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def keygen(folder):
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fd = os.open(os.path.join(folder, "issuer.key"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(private)
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    with open(os.path.join(folder, "issuer.pub"), "wb") as out:
        out.write(public)


def sign(folder, claims):
    with open(os.path.join(folder, "issuer.key"), "rb") as source:
        key = serialization.load_pem_private_key(source.read(), None)
    claims = dict(claims)
    now = int(time.time())
    if "exp_in" in claims:
        claims["exp"] = now + claims.pop("exp_in")
    claims.setdefault("iat", now)
    claims.setdefault("nbf", now - 5)
    header = b64url(json.dumps({"alg": "ES256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps(claims).encode())
    signed = f"{header}.{payload}".encode()
    r, s = decode_dss_signature(key.sign(signed, ec.ECDSA(hashes.SHA256())))
    return f"{header}.{payload}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def serve(folder, port, request_token, claims, default_audience):
    log_path = os.path.join(folder, "requests.log")

    def log(line):
        with open(log_path, "a") as out:
            out.write(line + "\n")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query)
            if url.path != "/token" or query.get("api-version") != ["2.0"]:
                log("notfound")
                return self.answer(404, {"message": "not found"})
            scheme, _, token = (self.headers.get("Authorization") or "").partition(" ")
            if scheme.lower() != "bearer" or token != request_token:
                log("refused")
                return self.answer(401, {"message": "bad request token"})
            audience = query.get("audience", [default_audience])[0]
            log("ok " + audience)
            self.answer(200, {"count": 1, "value": sign(folder, dict(claims, aud=audience))})

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def main():
    command = sys.argv[1]
    if command == "keygen":
        keygen(sys.argv[2])
    elif command == "sign":
        print(sign(sys.argv[2], json.loads(sys.argv[3])))
    elif command == "actions":
        serve(sys.argv[2], int(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5]), sys.argv[6])
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
