"""A Secret Service that fails a client's first read the way KWallet sometimes does.

Usage: /usr/bin/python3 Tests/fake-secret-service.py MODE CALLS

It owns org.freedesktop.secrets on the session bus and holds one item, service "fake" and
username "a", value "fake value", in a collection that is never locked. Sessions are "plain"
(the DH algorithm is refused as not supported, so libsecret falls back to plain). The first
GetSecrets of the process is answered badly, as MODE says; every later one correctly:
  empty        an empty answer: libsecret then hands over no secret and no error
  no-session   the error KWallet sends when it lost the caller's session ("Can't find session")
Each method call is appended to the file CALLS, one name a line, so a test can count them.
Needs python3-gi (GLib's Gio); it is a test fixture, not a Secret Service to keep secrets in.
"""

import sys

from gi.repository import Gio, GLib

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
  <interface name="org.freedesktop.Secret.Item">
    <property name="Locked" type="b" access="read"/>
    <property name="Attributes" type="a{ss}" access="read"/>
    <property name="Label" type="s" access="read"/>
    <property name="Created" type="t" access="read"/>
    <property name="Modified" type="t" access="read"/>
  </interface>
</node>
""")


class FakeService:
    def __init__(self, mode, calls):
        self.mode = mode
        self.calls = calls
        self.sessions = 0
        self.reads = 0

    def log(self, name):
        with open(self.calls, "a") as calls:
            calls.write(name + "\n")

    def service_call(self, connection, sender, path, interface, method, parameters, invocation):
        if method == "OpenSession":
            algorithm = parameters.unpack()[0]
            self.log("OpenSession " + algorithm)
            if algorithm != "plain":
                invocation.return_dbus_error("org.freedesktop.DBus.Error.NotSupported", "only plain")
                return
            self.sessions += 1
            session = "%s/session/%d" % (SERVICE_PATH, self.sessions)
            invocation.return_value(GLib.Variant("(vo)", (GLib.Variant("s", ""), session)))
        elif method == "SearchItems":
            self.log("SearchItems")
            query = parameters.unpack()[0]
            found = [ITEM_PATH] if all(ATTRIBUTES.get(k) == v for k, v in query.items()) else []
            invocation.return_value(GLib.Variant("(aoao)", (found, [])))
        elif method == "GetSecrets":
            self.log("GetSecrets")
            items, session = parameters.unpack()
            self.reads += 1
            if self.reads == 1 and self.mode == "no-session":
                invocation.return_dbus_error("org.freedesktop.Secret.Error.NoSession", "Can't find session")
                return
            secrets = {}
            if not (self.reads == 1 and self.mode == "empty"):
                secrets = {item: (session, b"", VALUE, "text/plain") for item in items if item == ITEM_PATH}
            invocation.return_value(GLib.Variant("(a{o(oayays)})", (secrets,)))

    def service_property(self, connection, sender, path, interface, name):
        return GLib.Variant("ao", [COLLECTION_PATH])

    def item_property(self, connection, sender, path, interface, name):
        return {
            "Locked": GLib.Variant("b", False),
            "Attributes": GLib.Variant("a{ss}", ATTRIBUTES),
            "Label": GLib.Variant("s", "fake"),
            "Created": GLib.Variant("t", 1700000000),
            "Modified": GLib.Variant("t", 1700000000),
        }[name]


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("empty", "no-session"):
        sys.stderr.write(__doc__)
        return 2
    fake = FakeService(sys.argv[1], sys.argv[2])
    connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    connection.register_object(
        SERVICE_PATH, INTERFACES.lookup_interface("org.freedesktop.Secret.Service"),
        fake.service_call, fake.service_property, None)
    connection.register_object(
        ITEM_PATH, INTERFACES.lookup_interface("org.freedesktop.Secret.Item"), None, fake.item_property, None)
    loop = GLib.MainLoop()
    Gio.bus_own_name_on_connection(
        connection, "org.freedesktop.secrets", Gio.BusNameOwnerFlags.NONE, None, lambda *_: loop.quit())
    loop.run()
    return 1  # the name was lost or never owned


if __name__ == "__main__":
    sys.exit(main())
