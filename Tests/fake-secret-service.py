"""A Secret Service that misbehaves, once, the way real providers sometimes do.

Usage: /usr/bin/python3 Tests/fake-secret-service.py MODE CALLS

It owns org.freedesktop.secrets on the session bus and holds one item, service "fake" and
username "a", value "fake value" (replaced by SetSecret), in a collection that is never locked.

In the modes "empty" and "no-session", sessions are "plain" (the DH algorithm is refused as not
supported, so a client falls back to plain), and the first GetSecrets of the process is answered
badly; every later one correctly:
  empty        an empty answer: no secret and no error
  no-session   the error KWallet sends when it lost the caller's session ("Can't find session")

In the other modes, sessions use dh-ietf1024-sha256-aes128-cbc-pkcs7, computed here with Python's
own integers and python3-cryptography, apart from the client's code. A client public key that is
not 128 bytes with a first byte other than zero is refused as KWallet refuses it ("Client public
key size is invalid"). The fake's own public key is 129 bytes, a zero byte first, as KWallet's.
Then:
  dh            nothing goes wrong
  drop-writes   SetSecret is acknowledged and the value kept as it was (as KWallet does when its
                Secret Service side writes through a wallet handle it no longer holds)
  dh-ambiguous  the first session's shared secret begins with a zero byte, which providers encode
                differently (a client must not use that session)
  dh-invalid    every session is answered with the public value 1, which gives a key anyone knows
  bad-padding   the first GetSecrets sends a secret that decrypts to invalid PKCS#7 padding

In the modes below, sessions are as in "dh", and one reply has the wrong shape, sent as it is (a
D-Bus reply carries its own signature; a client must check it against the method's):
  open-session-v     OpenSession answers (v), its session path left out
  open-session-vu    OpenSession answers (vu), a number where the session path belongs
  get-secrets-type   GetSecrets answers (a{ss}) instead of (a{o(oayays)})
  search-type        SearchItems answers (ao) instead of (aoao)
  get-all-type       Properties.GetAll answers (as) instead of (a{sv})

Each method call is appended to the file CALLS, one line each ("OpenSession ALGORITHM",
"SearchItems", "GetSecrets", "SetSecret", "Close"), so a test can count them.
Needs python3-gi (GLib's Gio) and python3-cryptography; it is a test fixture, not a Secret
Service to keep secrets in.
"""

import os
import sys

from cryptography.hazmat.primitives import hashes, padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from gi.repository import Gio, GLib

MALFORMED = ("open-session-v", "open-session-vu", "get-secrets-type", "search-type", "get-all-type")
MODES = ("empty", "no-session", "dh", "drop-writes", "dh-ambiguous", "dh-invalid", "bad-padding") + MALFORMED
DH = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
# RFC 2409, section 6.2: the Second Oakley Group (generator 2).
PRIME = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879"
    "8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B"
    "0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF", 16)
assert PRIME.bit_length() == 1024

SERVICE_PATH = "/org/freedesktop/secrets"
COLLECTION_PATH = SERVICE_PATH + "/collection/fake"
ITEM_PATH = COLLECTION_PATH + "/1"
ATTRIBUTES = {"service": "fake", "username": "a"}
VALUE = b"fake value"

INTERFACES = Gio.DBusNodeInfo.new_for_xml("""
<node>
  <interface name="org.freedesktop.Secret.Service">
    <method name="OpenSession">
      <arg direction="in" type="s"/><arg direction="in" type="v"/>
      <arg direction="out" type="v"/><arg direction="out" type="o"/>
    </method>
    <method name="SearchItems">
      <arg direction="in" type="a{ss}"/><arg direction="out" type="ao"/><arg direction="out" type="ao"/>
    </method>
    <method name="GetSecrets">
      <arg direction="in" type="ao"/><arg direction="in" type="o"/><arg direction="out" type="a{o(oayays)}"/>
    </method>
    <property name="Collections" type="ao" access="read"/>
  </interface>
  <interface name="org.freedesktop.Secret.Session">
    <method name="Close"/>
  </interface>
  <interface name="org.freedesktop.Secret.Item">
    <method name="SetSecret"><arg direction="in" type="(oayays)"/></method>
    <property name="Locked" type="b" access="read"/>
    <property name="Attributes" type="a{ss}" access="readwrite"/>
    <property name="Label" type="s" access="read"/>
    <property name="Created" type="t" access="read"/>
    <property name="Modified" type="t" access="read"/>
  </interface>
</node>
""")


def answer_raw(invocation, body):
    """Replies with `body` whatever the method's signature: GDBus would refuse to send a return
    value of the wrong type through `return_value`."""
    reply = Gio.DBusMessage.new_method_reply(invocation.get_message())
    reply.set_body(body)
    invocation.get_connection().send_message(reply, Gio.DBusSendMessageFlags.NONE)


class FakeService:
    def __init__(self, mode, calls, connection):
        self.mode = mode
        self.calls = calls
        self.connection = connection
        self.sessions = 0
        self.reads = 0
        self.value = VALUE
        self.attributes = dict(ATTRIBUTES)
        self.keys = {}  # session path -> AES key, None for a plain session

    def log(self, name):
        with open(self.calls, "a") as calls:
            calls.write(name + "\n")

    def new_session(self, key):
        self.sessions += 1
        session = "%s/session/%d" % (SERVICE_PATH, self.sessions)
        self.keys[session] = key
        self.connection.register_object(
            session, INTERFACES.lookup_interface("org.freedesktop.Secret.Session"), self.session_call, None, None)
        return session

    def session_call(self, connection, sender, path, interface, method, parameters, invocation):
        self.log("Close")
        self.keys.pop(path, None)
        invocation.return_value(None)

    def open_dh(self, client, invocation):
        if len(client) != 128 or client[0] == 0:
            invocation.return_dbus_error("org.freedesktop.DBus.Error.InvalidArgs", "Client public key size is invalid")
            return
        if self.mode == "dh-invalid":
            session = self.new_session(bytes(16))
            invocation.return_value(GLib.Variant("(vo)", (GLib.Variant("ay", b"\x01"), session)))
            return
        # The first session of "dh-ambiguous" has a shared secret with a zero first byte; every
        # other one has none, so that the client's encoding of it cannot matter.
        ambiguous = self.mode == "dh-ambiguous" and self.sessions == 0
        while True:
            exponent = int.from_bytes(os.urandom(32), "big") | 1
            shared = pow(int.from_bytes(client, "big"), exponent, PRIME).to_bytes(128, "big")
            if (shared[0] == 0) == ambiguous:
                break
        key = HKDF(algorithm=hashes.SHA256(), length=16, salt=None, info=b"").derive(shared)
        # With a zero byte first, 129 in all, as KWallet sends it (QCA writes a sign byte).
        public = b"\x00" + pow(2, exponent, PRIME).to_bytes(128, "big")
        session = self.new_session(key)
        if self.mode == "open-session-v":
            answer_raw(invocation, GLib.Variant("(v)", (GLib.Variant("ay", public),)))
        elif self.mode == "open-session-vu":
            answer_raw(invocation, GLib.Variant("(vu)", (GLib.Variant("ay", public), 7)))
        else:
            invocation.return_value(GLib.Variant("(vo)", (GLib.Variant("ay", public), session)))

    def encrypt(self, key, plain, pad=True):
        iv = os.urandom(16)
        if pad:
            padder = padding.PKCS7(128).padder()
            plain = padder.update(plain) + padder.finalize()
        encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
        return iv, encryptor.update(plain) + encryptor.finalize()

    def decrypt(self, key, iv, data):
        decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
        unpadder = padding.PKCS7(128).unpadder()
        return unpadder.update(decryptor.update(data) + decryptor.finalize()) + unpadder.finalize()

    def secret_for(self, session):
        key = self.keys[session]
        if key is None:
            return (session, b"", self.value, "text/plain")
        if self.mode == "bad-padding" and self.reads == 1:
            # One block whose last byte is 0, which no PKCS#7 padding ends with.
            iv, data = self.encrypt(key, bytes(16), pad=False)
        else:
            iv, data = self.encrypt(key, self.value)
        return (session, iv, data, "text/plain")

    def service_call(self, connection, sender, path, interface, method, parameters, invocation):
        if method == "OpenSession":
            algorithm, argument = parameters.unpack()
            self.log("OpenSession " + algorithm)
            plain_only = self.mode in ("empty", "no-session")
            if algorithm == DH and not plain_only:
                self.open_dh(bytes(argument), invocation)
                return
            if algorithm != "plain" or not plain_only:
                invocation.return_dbus_error("org.freedesktop.DBus.Error.NotSupported", "not this algorithm")
                return
            session = self.new_session(None)
            invocation.return_value(GLib.Variant("(vo)", (GLib.Variant("s", ""), session)))
        elif method == "SearchItems":
            self.log("SearchItems")
            query = parameters.unpack()[0]
            found = [ITEM_PATH] if all(self.attributes.get(k) == v for k, v in query.items()) else []
            if self.mode == "search-type":
                answer_raw(invocation, GLib.Variant("(ao)", (found,)))
                return
            invocation.return_value(GLib.Variant("(aoao)", (found, [])))
        elif method == "GetSecrets":
            self.log("GetSecrets")
            items, session = parameters.unpack()
            self.reads += 1
            if (self.reads == 1 and self.mode == "no-session") or session not in self.keys:
                invocation.return_dbus_error("org.freedesktop.Secret.Error.NoSession", "Can't find session")
                return
            if self.mode == "get-secrets-type":
                answer_raw(invocation, GLib.Variant("(a{ss})", ({ITEM_PATH: "fake value"},)))
                return
            secrets = {}
            if not (self.reads == 1 and self.mode == "empty"):
                secrets = {item: self.secret_for(session) for item in items if item == ITEM_PATH}
            invocation.return_value(GLib.Variant("(a{o(oayays)})", (secrets,)))

    def item_call(self, connection, sender, path, interface, method, parameters, invocation):
        self.log("SetSecret")
        session, iv, data, _ = parameters.unpack()[0]
        if session not in self.keys:
            invocation.return_dbus_error("org.freedesktop.Secret.Error.NoSession", "Can't find session")
            return
        key = self.keys[session]
        value = bytes(data) if key is None else self.decrypt(key, bytes(iv), bytes(data))
        if self.mode != "drop-writes":
            self.value = value
        invocation.return_value(None)

    def service_property(self, connection, sender, path, interface, name):
        return GLib.Variant("ao", [COLLECTION_PATH])

    def item_set_property(self, connection, sender, path, interface, name, value):
        self.attributes = value.unpack()
        return True

    def item_property(self, connection, sender, path, interface, name):
        return {
            "Locked": GLib.Variant("b", False),
            "Attributes": GLib.Variant("a{ss}", self.attributes),
            "Label": GLib.Variant("s", "fake"),
            "Created": GLib.Variant("t", 1700000000),
            "Modified": GLib.Variant("t", 1700000000),
        }[name]


def malformed_get_all(connection, message, incoming):
    """A message filter (it runs on GDBus's worker thread) that answers the item's
    Properties.GetAll with (as); GDBus would answer it itself, correctly."""
    if incoming and message.get_member() == "GetAll" and message.get_path() == ITEM_PATH:
        reply = Gio.DBusMessage.new_method_reply(message)
        reply.set_body(GLib.Variant("(as)", (["Locked", "Attributes"],)))
        connection.send_message(reply, Gio.DBusSendMessageFlags.NONE)
        return None
    return message


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in MODES:
        sys.stderr.write(__doc__)
        return 2
    connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    fake = FakeService(sys.argv[1], sys.argv[2], connection)
    if fake.mode == "get-all-type":
        connection.add_filter(lambda c, m, i: malformed_get_all(c, m, i))
    connection.register_object(
        SERVICE_PATH, INTERFACES.lookup_interface("org.freedesktop.Secret.Service"),
        fake.service_call, fake.service_property, None)
    connection.register_object(
        ITEM_PATH, INTERFACES.lookup_interface("org.freedesktop.Secret.Item"), fake.item_call, fake.item_property,
        fake.item_set_property)
    loop = GLib.MainLoop()
    Gio.bus_own_name_on_connection(
        connection, "org.freedesktop.secrets", Gio.BusNameOwnerFlags.NONE, None, lambda *_: loop.quit())
    loop.run()
    return 1  # the name was lost or never owned


if __name__ == "__main__":
    sys.exit(main())
