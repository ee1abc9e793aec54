import Testing

@testable import VaultCore
@testable import VaultSecretService
@testable import VaultStorage
@testable import VaultSystem

/// The Secret Service store's pure-Swift parts: attributes, metadata and error mapping.
/// No keyring needed.
@Suite("Secret Service mapping")
struct SecretServiceMappingTests {
    let name = try! SecretName(service: "github.com", account: "ci/token")

    @Test("GLib errors map to the right codes, in the user's words, without GLib's internals")
    func errorMapping() {
        func map(
            _ domain: String, _ code: Int32, _ step: SecretServiceStep = .service, timedOut: Bool = false,
            message: String = "detail\nline two"
        ) -> VaultError {
            VaultError.secretService(
                GLibError(domain: domain, code: code, message: message), step: step, action: "reading 'x'",
                timeout: 2.5, timedOut: timedOut)
        }
        let dbus = GLibErrorCode.dbusDomain
        let io = GLibErrorCode.ioDomain
        func remote(_ name: String, _ text: String) -> VaultError {
            map(dbus, 36, message: "GDBus.Error:\(name): \(text)")
        }
        let cases: [(VaultError, VaultError.Code, String)] = [
            (map(io, GLibErrorCode.ioCancelled, timedOut: true), .unavailable, "did not answer within 2.5 s"),
            (map(dbus, GLibErrorCode.dbusNoReply), .unavailable, "did not answer within 2.5 s"),
            (map(io, GLibErrorCode.ioTimedOut), .unavailable, "did not answer within"),
            (map(GLibErrorCode.secretDomain, GLibErrorCode.secretIsLocked), .cannotUnlock, "the keyring is locked"),
            (map(io, 1, .bus), .unavailable, "cannot connect to the D-Bus session bus"),
            (map(dbus, GLibErrorCode.dbusServiceUnknown), .unavailable, "no Secret Service provider"),
            (
                map(dbus, GLibErrorCode.dbusNameHasNoOwner), .unavailable,
                "no Secret Service provider on the session bus"
            ),
            (map(dbus, 25), .unavailable, "no Secret Service provider"),
            (map(dbus, GLibErrorCode.dbusDisconnected), .unavailable, "lost the D-Bus session bus"),
            (map(dbus, 9), .other, "failed while reading 'x'"),
            (
                remote("org.freedesktop.DBus.Error.InvalidArgs", "Error return with empty body:"), .other,
                "refused vault's request while reading 'x'"
            ),
            (remote("org.freedesktop.Secret.Error.IsLocked", "locked"), .cannotUnlock, "locked"),
            (remote("org.freedesktop.DBus.Error.AccessDenied", ""), .cannotUnlock, "refused vault access"),
            (remote("org.freedesktop.Secret.Error.NoSuchObject", "gone"), .other, "an item went away"),
            (
                remote(
                    "org.freedesktop.DBus.Error.InvalidArgs",
                    "Interface org.freedesktop.Secret.Item was not found in object /org/freedesktop/secrets/collection/c/1"
                ),
                .other, "an item went away"
            ),
            (
                remote("org.freedesktop.DBus.Error.Failed", "createDLGroup failed: maybe libqca-ossl is missing"),
                .unavailable, "KWallet lacks QCA's OpenSSL plug-in"
            ),
        ]
        // The library says what happened; the remedy, as data, is what the command-line tool words.
        let remedies: [(VaultError, VaultError.Remedy)] = [
            (map(io, GLibErrorCode.ioTimedOut), .answerDialogOrRaiseTimeout),
            (map(GLibErrorCode.secretDomain, GLibErrorCode.secretIsLocked), .unlockKeyring),
            (map(io, 1, .bus), .runInDesktopSession),
            (map(dbus, GLibErrorCode.dbusNameHasNoOwner), .startProvider),
            (map(dbus, GLibErrorCode.dbusDisconnected), .retry),
            (remote("org.freedesktop.DBus.Error.AccessDenied", ""), .approveInProvider),
            (remote("org.freedesktop.Secret.Error.NoSuchObject", "gone"), .retry),
            (
                remote("org.freedesktop.DBus.Error.Failed", "createDLGroup failed: maybe libqca-ossl is missing"),
                .installQCAPlugin
            ),
        ]
        for (error, remedy) in remedies {
            #expect(error.remedy == remedy && !error.message.contains("--"), "\(error.message)")
        }
        for (error, code, text) in cases {
            #expect(error.code == code, "\(error.message)")
            #expect(error.message.contains(text), "\(error.message)")
            for leak in ["quark", "GDBus", "empty body", "[", "\n"] {
                #expect(!error.message.contains(leak), "GLib's internals in: \(error.message)")
            }
            #expect(error.code != .notFound)
        }
    }

    @Test("KWallet's transient key-exchange failures are told apart (vault retries them on a fresh session)")
    func brokenSession() {
        func error(_ message: String) -> GLibError { GLibError(domain: "secret-error", code: 1, message: message) }
        #expect(VaultError.isBrokenSession(error("Received invalid secret from the secret storage")))
        #expect(
            VaultError.isBrokenSession(
                GLibError(
                    domain: GLibErrorCode.dbusDomain, code: 36,
                    message: "GDBus.Error:org.freedesktop.DBus.Error.Failed: Client public key size is invalid")))
        #expect(
            VaultError.isBrokenSession(
                GLibError(
                    domain: GLibErrorCode.dbusDomain, code: 36,
                    message: "GDBus.Error:org.qtproject.QtDBus.Error.InvalidObjectPath: "
                        + "Can't find session /org/freedesktop/secrets/session/7")))
        #expect(!VaultError.isBrokenSession(error("Cannot create an item in a locked collection")))
    }

    @Test("seconds print as whole numbers when whole")
    func seconds() {
        #expect(formatSeconds(5) == "5")
        #expect(formatSeconds(0.5) == "0.5")
    }

    @Test("vault's items: lookup attributes, schema, metadata attributes, label")
    func attributesForRecord() {
        let record = SecretRecord(
            name: name, value: [1],
            metadata: SecretMetadata(
                created: Timestamp(secondsSince1970: 0), updated: Timestamp(secondsSince1970: 60),
                expires: Timestamp(secondsSince1970: 3600)))
        #expect(SecretServiceItems.query(name) == ["service": "github.com", "username": "ci/token"])
        #expect(SecretServiceItems.query(service: nil) == [:])
        #expect(
            SecretServiceItems.attributes(for: record) == [
                "service": "github.com", "username": "ci/token", "xdg:schema": "org.freedesktop.Secret.Generic",
                "vault.created": "1970-01-01T00:00:00Z", "vault.updated": "1970-01-01T00:01:00Z",
                "vault.expires": "1970-01-01T01:00:00Z", "vault.nonempty": "true",
            ])
        #expect(SecretServiceItems.label(for: name) == "vault: github.com/ci/token")
    }

    @Test("an item that says its value is not empty and holds an empty one is a write that never finished")
    func halfWritten() {
        let empty = SecretRecord(
            name: name, value: [],
            metadata: SecretMetadata(created: Timestamp(secondsSince1970: 0), updated: Timestamp(secondsSince1970: 0)))
        let attributes = SecretServiceItems.attributes(for: empty)
        #expect(attributes["vault.nonempty"] == nil)
        #expect(!SecretServiceItems.isHalfWritten(attributes, valueIsEmpty: true))
        // An empty value written over one that was not: empty, not left out (KeePassXC keeps it).
        #expect(SecretServiceItems.merging(empty, into: ["vault.nonempty": "true"])["vault.nonempty"] == "")
        let full = SecretServiceItems.attributes(for: SecretRecord(name: name, value: [0], metadata: empty.metadata))
        #expect(SecretServiceItems.isHalfWritten(full, valueIsEmpty: true))
        #expect(!SecretServiceItems.isHalfWritten(full, valueIsEmpty: false))
        // Items of other tools and of vault 1.0 carry no mark: an empty value there is a value.
        #expect(!SecretServiceItems.isHalfWritten(["service": "github.com", "username": "ci"], valueIsEmpty: true))
    }

    @Test("updating another tool's item keeps its attributes and drops a stale expiry")
    func merging() {
        let record = SecretRecord(
            name: name, value: [1],
            metadata: SecretMetadata(created: Timestamp(secondsSince1970: 0), updated: Timestamp(secondsSince1970: 0)))
        let existing = [
            "service": "github.com", "username": "ci/token", "application": "Python keyring library",
            "vault.expires": "2000-01-01T00:00:00Z",
        ]
        let merged = SecretServiceItems.merging(record, into: existing)
        #expect(merged["application"] == "Python keyring library")
        // Empty, not left out: KeePassXC keeps an attribute that a write leaves out.
        #expect(merged["vault.expires"] == "")
        #expect(merged["xdg:schema"] == nil)
        #expect(merged["vault.created"] == "1970-01-01T00:00:00Z")
        #expect(SecretServiceItems.merging(record, into: ["service": "github.com"])["vault.expires"] == nil)
    }

    @Test("a provider's computed attributes (KeePassXC's Uuid and Path) are never written back")
    func computedAttributes() {
        let record = SecretRecord(
            name: name, value: [1],
            metadata: SecretMetadata(created: Timestamp(secondsSince1970: 0), updated: Timestamp(secondsSince1970: 0)))
        let existing = [
            "service": "github.com", "username": "ci/token", "Uuid": "0123456789abcdef", "Path": "/ci/token",
            "Title": "ci/token",
        ]
        let merged = SecretServiceItems.merging(record, into: existing)
        #expect(merged["Uuid"] == nil && merged["Path"] == nil)
        #expect(merged["Title"] == "ci/token")
        let restored = SecretServiceItems.restoring(existing, over: record)
        #expect(restored["Uuid"] == nil && restored["Path"] == nil)
        #expect(restored["vault.created"] == "" && restored["vault.updated"] == "")
        #expect(restored["Title"] == "ci/token" && restored["service"] == "github.com")
    }

    @Test("metadata: vault's attributes first, then the item's times, then now")
    func metadata() {
        let now = Timestamp(secondsSince1970: 2_000_000_000)
        let fromVault = SecretServiceItems.metadata(
            attributes: ["vault.created": "2023-11-14T22:13:20Z", "vault.updated": "2023-11-14T22:15:00Z"],
            created: 5, modified: 6, now: now)
        #expect(
            fromVault
                == SecretMetadata(
                    created: Timestamp(secondsSince1970: 1_700_000_000),
                    updated: Timestamp(secondsSince1970: 1_700_000_100)))
        let fromItem = SecretServiceItems.metadata(
            attributes: ["vault.created": "garbage"], created: 5, modified: 6, now: now)
        #expect(
            fromItem == SecretMetadata(created: Timestamp(secondsSince1970: 5), updated: Timestamp(secondsSince1970: 6))
        )
        let unknown = SecretServiceItems.metadata(attributes: [:], created: 0, modified: 0, now: now)
        #expect(unknown == SecretMetadata(created: now, updated: now))
    }

    @Test("content type: text/plain for text, octet-stream for binary")
    func contentType() {
        #expect(SecretServiceItems.contentType(for: Array("tøken".utf8)) == "text/plain")
        #expect(SecretServiceItems.contentType(for: []) == "text/plain")
        #expect(SecretServiceItems.contentType(for: [0x61, 0]) == "application/octet-stream")
        #expect(SecretServiceItems.contentType(for: [0xFF]) == "application/octet-stream")
    }

    @Test("the preferred item is the newest unlocked one; none if all are locked")
    func preferred() {
        typealias Candidate = SecretServiceItems.Candidate
        let items = [
            Candidate(locked: false, created: 1, modified: 10), Candidate(locked: true, created: 1, modified: 99),
            Candidate(locked: false, created: 1, modified: 20),
        ]
        #expect(SecretServiceItems.preferred(items) == 2)
        #expect(SecretServiceItems.preferred([Candidate(locked: true, created: 0, modified: 0)]) == nil)
        #expect(SecretServiceItems.preferred([]) == nil)
    }

    @Test("names: both attributes and a valid name, else not listed")
    func names() {
        #expect(
            SecretServiceItems.name(of: ["service": "s", "username": "u"])
                == (try? SecretName(service: "s", account: "u")))
        #expect(SecretServiceItems.name(of: ["service": "s"]) == nil)
        #expect(SecretServiceItems.name(of: ["service": "s", "username": ""]) == nil)
    }
}
