"""A real OAuth 2.0 authorization server (Authlib + Flask) for vault's living-token tests.

Serves on 127.0.0.1 only:
  POST /token                 RFC 6749 token endpoint: refresh_token (rotation, INCLUDE_NEW_REFRESH_TOKEN)
                              and the RFC 8628 device_code grant
  POST /device_authorization  RFC 8628 device authorization endpoint
Test-only routes:
  GET  /test/stats            token-endpoint request counts, revoked families, slow_downs sent and
                              polls that came sooner than the interval, as JSON
  POST /test/issue            a fresh token set (as a token response) for a new family
  POST /test/device           approve or deny a user code: user_code=...&action=approve|deny
  POST /test/fail             answer the next N token requests with 503: count=N
  POST /test/slow-down        answer the next pending device poll with slow_down
  POST /test/introspect       whether an access token is valid (token=...): issued here and its family not
                              revoked, as {"active": true|false} (after RFC 7662)

Refresh tokens are single use: a refresh revokes the one it used, and presenting a revoked one
again revokes its whole family (every token descended from the same login), as servers that
detect refresh-token replay do. A double refresh is therefore caught: the second one gets
invalid_grant and so does everything after it.

usage: server.py PORT ACCESS_TOKEN_LIFETIME_SECONDS
"""

import os
import sys
import threading
import time

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import ClientMixin
from authlib.oauth2.rfc6749 import grants
from authlib.oauth2.rfc8628 import DeviceAuthorizationEndpoint
from authlib.oauth2.rfc8628 import DeviceCodeGrant
from authlib.oauth2.rfc8628 import DeviceCredentialDict
from flask import Flask
from flask import request

# Plain HTTP on the loopback interface only: Authlib otherwise insists on https.
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

PORT = int(sys.argv[1])
LIFETIME = int(sys.argv[2])
BASE = f"http://127.0.0.1:{PORT}"

lock = threading.RLock()
stats = {
    "token_requests": 0,
    "refresh_requests": 0,
    "device_requests": 0,
    "revoked_families": 0,
    "polls": 0,
    "slow_downs": 0,
    "fast_polls": 0,
}
refresh_tokens = {}  # refresh token -> {"family", "user", "client_id", "scope", "revoked"}
access_tokens = {}  # access token -> family
revoked_families = set()
device_credentials = {}  # device code -> credential data
user_grants = {}  # user code -> (user, approved)
poll_state = {}  # device code -> {"interval": seconds the client must wait now, "last": time of the last poll}
slow_down_next = [False]  # answer the next pending poll with slow_down
failures = {"remaining": 0}
next_family = [0]


class Client(ClientMixin):
    def __init__(self, client_id, secret):
        self.client_id = client_id
        self.secret = secret

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        return scope or ""

    def check_redirect_uri(self, redirect_uri):
        return False

    def check_client_secret(self, client_secret):
        return self.secret is not None and client_secret == self.secret

    def check_endpoint_auth_method(self, method, endpoint):
        if self.secret is None:
            return method == "none"
        return method in ("client_secret_basic", "client_secret_post")

    def check_response_type(self, response_type):
        return False

    def check_grant_type(self, grant_type):
        return grant_type in ("refresh_token", DeviceCodeGrant.GRANT_TYPE)


CLIENTS = {"public-cli": Client("public-cli", None), "confidential-cli": Client("confidential-cli", "s3cret-client")}


class Token:
    def __init__(self, data):
        self.data = data

    def check_client(self, client):
        return client.get_client_id() == self.data["client_id"]

    def get_scope(self):
        return self.data["scope"]

    def get_expires_in(self):
        return 0

    def is_expired(self):
        return False

    def is_revoked(self):
        return self.data["revoked"]

    def get_user(self):
        return self.data["user"]

    def get_client(self):
        return CLIENTS[self.data["client_id"]]


def new_family():
    next_family[0] += 1
    return next_family[0]


def save_token(token, req):
    with lock:
        if "refresh_token" not in token:
            return
        old = getattr(req, "refresh_token", None)
        family = old.data["family"] if old is not None else new_family()
        access_tokens[token["access_token"]] = family
        refresh_tokens[token["refresh_token"]] = {
            "family": family,
            "user": "user",
            "client_id": req.client.get_client_id(),
            "scope": token.get("scope", ""),
            "revoked": False,
        }


class RefreshTokenGrant(grants.RefreshTokenGrant):
    INCLUDE_NEW_REFRESH_TOKEN = True
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def authenticate_refresh_token(self, refresh_token):
        with lock:
            data = refresh_tokens.get(refresh_token)
            if data is None or data["family"] in revoked_families:
                return None
            if data["revoked"]:
                # Replay of a rotated refresh token: revoke the whole family.
                revoked_families.add(data["family"])
                stats["revoked_families"] += 1
                return None
            return Token(data)

    def authenticate_user(self, refresh_token):
        return refresh_token.get_user()

    def revoke_old_credential(self, refresh_token):
        with lock:
            refresh_token.data["revoked"] = True


class DeviceAuthorization(DeviceAuthorizationEndpoint):
    INTERVAL = 1
    EXPIRES_IN = 60

    def get_verification_uri(self):
        return BASE + "/device"

    def save_device_credential(self, client_id, scope, data):
        with lock:
            device_credentials[data["device_code"]] = dict(
                data, client_id=client_id, scope=scope or "", expires_at=time.time() + self.EXPIRES_IN
            )


class DeviceGrant(DeviceCodeGrant):
    def query_device_credential(self, device_code):
        with lock:
            data = device_credentials.get(device_code)
            return DeviceCredentialDict(data) if data else None

    def query_user_grant(self, user_code):
        with lock:
            return user_grants.get(user_code)

    def should_slow_down(self, credential):
        # slow_down on request of the test (/test/slow-down), or to a client that polled faster
        # than its interval; either way the interval grows by 5 s for good (RFC 8628 section 3.5).
        with lock:
            state = poll_state[credential["device_code"]]
            if slow_down_next[0] or state["fast"]:
                slow_down_next[0] = False
                state["interval"] += 5
                stats["slow_downs"] += 1
                return True
            return False


def record_poll(device_code):
    """Counts a poll that came sooner than the client's current interval allows."""
    with lock:
        data = device_credentials.get(device_code)
        if data is None:
            return
        state = poll_state.setdefault(device_code, {"interval": data["interval"], "last": None, "fast": False})
        now = time.time()
        state["fast"] = state["last"] is not None and now - state["last"] < state["interval"] - 0.05
        if state["fast"]:
            stats["fast_polls"] += 1
        state["last"] = now


app = Flask(__name__)
app.config["OAUTH2_REFRESH_TOKEN_GENERATOR"] = True
app.config["OAUTH2_TOKEN_EXPIRES_IN"] = {"refresh_token": LIFETIME, DeviceCodeGrant.GRANT_TYPE: LIFETIME}
server = AuthorizationServer(app, query_client=CLIENTS.get, save_token=save_token)
server.register_grant(RefreshTokenGrant)
server.register_grant(DeviceGrant)
server.register_endpoint(DeviceAuthorization)


@app.post("/token")
def token():
    with lock:
        stats["token_requests"] += 1
        grant = request.form.get("grant_type")
        if grant == "refresh_token":
            stats["refresh_requests"] += 1
        if grant == DeviceCodeGrant.GRANT_TYPE:
            stats["polls"] += 1
            record_poll(request.form.get("device_code"))
        if failures["remaining"] > 0:
            failures["remaining"] -= 1
            return {"error": "temporarily_unavailable"}, 503
    return server.create_token_response()


@app.post("/device_authorization")
def device_authorization():
    with lock:
        stats["device_requests"] += 1
    return server.create_endpoint_response(DeviceAuthorization.ENDPOINT_NAME)


@app.get("/test/stats")
def test_stats():
    with lock:
        return dict(stats)


@app.post("/test/issue")
def test_issue():
    """A token set for a new family, as a login would give (client_id, scope, expires_in from the form)."""
    client = CLIENTS[request.form["client_id"]]
    scope = request.form.get("scope", "")
    token = server.generate_token("refresh_token", client, user="user", scope=scope, include_refresh_token=True)

    class Issued:
        pass

    issued = Issued()
    issued.client = client
    issued.refresh_token = None
    save_token(token, issued)
    if "expires_in" in request.form:
        # A token that is due at once, so that a test need not wait for one to expire.
        token["expires_in"] = int(request.form["expires_in"])
    return token


@app.post("/test/device")
def test_device():
    with lock:
        user_grants[request.form["user_code"]] = ("user", request.form["action"] == "approve")
    return {"ok": True}


@app.post("/test/slow-down")
def test_slow_down():
    with lock:
        slow_down_next[0] = True
    return {"ok": True}


@app.post("/test/introspect")
def test_introspect():
    with lock:
        family = access_tokens.get(request.form.get("token", ""))
        return {"active": family is not None and family not in revoked_families}


@app.post("/test/fail")
def test_fail():
    with lock:
        failures["remaining"] = int(request.form["count"])
    return {"ok": True}


if __name__ == "__main__":
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app.run(host="127.0.0.1", port=PORT, threaded=True)
