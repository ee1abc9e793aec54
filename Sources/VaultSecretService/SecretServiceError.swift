import VaultStorage
import VaultSystem

/// A GLib error as the shim hands it over: domain, code and message, nothing lost.
struct GLibError: Error, Sendable, Equatable {
    var domain: String
    var code: Int32
    var message: String
}

/// The GLib and libsecret error codes the store tells apart.
///
/// Their values come from GLib's `gioenums.h` and libsecret's `secret-types.h`;
/// `SecretServiceABITests` compiles them against the real headers, so a mismatch fails a test.
enum GLibErrorCode {
    static let dbusDomain = "g-dbus-error-quark"
    static let ioDomain = "g-io-error-quark"
    static let secretDomain = "secret-error"
    /// The errors vault's own session makes (the shim's Session.c).
    static let sessionDomain = "vault-secret-session-error"

    static let dbusServiceUnknown: Int32 = 2
    static let dbusNameHasNoOwner: Int32 = 3
    static let dbusNoReply: Int32 = 4
    static let dbusNoServer: Int32 = 11
    static let dbusTimeout: Int32 = 12
    static let dbusDisconnected: Int32 = 15
    static let dbusTimedOut: Int32 = 20
    /// What gnome-keyring answers for an item path that no longer exists.
    static let dbusUnknownMethod: Int32 = 19
    static let dbusUnknownObject: Int32 = 41
    /// G_DBUS_ERROR_SPAWN_EXEC_FAILED ... G_DBUS_ERROR_SPAWN_NO_MEMORY: the bus could not start
    /// the service it knows how to activate.
    static let dbusSpawnFailures: ClosedRange<Int32> = 23...34
    /// What GDBus reports for a reply whose type is not the one the call asked for.
    static let ioInvalidArgument: Int32 = 13
    static let ioClosed: Int32 = 18
    static let ioCancelled: Int32 = 19
    static let ioTimedOut: Int32 = 24
    static let ioConnectionClosed: Int32 = 44
    static let secretIsLocked: Int32 = 2

    /// Every constant above with its C name, for the header check.
    static let checked: [(name: String, value: Int32)] = [
        ("G_DBUS_ERROR_SERVICE_UNKNOWN", dbusServiceUnknown),
        ("G_DBUS_ERROR_NAME_HAS_NO_OWNER", dbusNameHasNoOwner),
        ("G_DBUS_ERROR_NO_REPLY", dbusNoReply),
        ("G_DBUS_ERROR_NO_SERVER", dbusNoServer),
        ("G_DBUS_ERROR_TIMEOUT", dbusTimeout),
        ("G_DBUS_ERROR_UNKNOWN_METHOD", dbusUnknownMethod),
        ("G_DBUS_ERROR_UNKNOWN_OBJECT", dbusUnknownObject),
        ("G_DBUS_ERROR_DISCONNECTED", dbusDisconnected),
        ("G_DBUS_ERROR_TIMED_OUT", dbusTimedOut),
        ("G_DBUS_ERROR_SPAWN_EXEC_FAILED", dbusSpawnFailures.lowerBound),
        ("G_DBUS_ERROR_SPAWN_NO_MEMORY", dbusSpawnFailures.upperBound),
        ("G_IO_ERROR_INVALID_ARGUMENT", ioInvalidArgument),
        ("G_IO_ERROR_CLOSED", ioClosed),
        ("G_IO_ERROR_CANCELLED", ioCancelled),
        ("G_IO_ERROR_TIMED_OUT", ioTimedOut),
        ("G_IO_ERROR_CONNECTION_CLOSED", ioConnectionClosed),
        ("SECRET_ERROR_IS_LOCKED", secretIsLocked),
    ]
}

/// Where in an operation a GLib error happened; it decides what "failed" means to the user.
enum SecretServiceStep: Sendable {
    /// Connecting to the D-Bus session bus.
    case bus
    /// Any call to the Secret Service itself.
    case service
}

extension VaultError {
    /// The Secret Service did not answer an operation within its time-out.
    static func secretServiceTimeout(action: String, timeout: Double) -> VaultError {
        VaultError(
            .unavailable, "the Secret Service did not answer within \(formatSeconds(timeout)) s while \(action)",
            remedy: .answerDialogOrRaiseTimeout)
    }

    /// The one place a GLib error becomes a `VaultError`.
    ///
    /// The message says what happened in the user's words, the remedy what to do; GLib's domains,
    /// codes and boilerplate stay out of it, the provider's own words (a remote D-Bus error's
    /// text) stay in. A time-out, a missing bus or a missing provider is `.unavailable`; a locked
    /// keyring or a refused access is `.cannotUnlock`; nothing is ever reported as "not found".
    static func secretService(
        _ error: GLibError, step: SecretServiceStep, action: String, timeout: Double, timedOut: Bool
    ) -> VaultError {
        let (domain, code) = (error.domain, error.code)
        let remote = RemoteError(error.message)
        if timedOut || isTimeout(domain: domain, code: code) {
            return secretServiceTimeout(action: action, timeout: timeout)
        }
        if domain == GLibErrorCode.secretDomain && code == GLibErrorCode.secretIsLocked
            || remote?.name == "org.freedesktop.Secret.Error.IsLocked"
        {
            return VaultError(.cannotUnlock, "the keyring is locked", remedy: .unlockKeyring)
        }
        if step == .bus {
            return VaultError(
                .unavailable,
                "cannot connect to the D-Bus session bus to reach the Secret Service",
                remedy: .runInDesktopSession)
        }
        if isAbsence(error, step: step) {
            return VaultError(
                .unavailable,
                "no Secret Service provider on the session bus", remedy: .startProvider)
        }
        if domain == GLibErrorCode.dbusDomain,
            code == GLibErrorCode.dbusNoServer || code == GLibErrorCode.dbusDisconnected
        {
            return VaultError(.unavailable, "lost the D-Bus session bus while \(action)", remedy: .retry)
        }
        if domain == GLibErrorCode.ioDomain,
            code == GLibErrorCode.ioClosed || code == GLibErrorCode.ioConnectionClosed
        {
            return VaultError(.unavailable, "lost the D-Bus session bus while \(action)", remedy: .retry)
        }
        if remote?.name == "org.freedesktop.DBus.Error.AccessDenied" {
            return VaultError(
                .cannotUnlock, "the Secret Service refused vault access while \(action)", remedy: .approveInProvider)
        }
        if isMissingEncryption(error) {
            return VaultError(
                .unavailable,
                "the Secret Service provider cannot encrypt secrets to hand them over while \(action): KWallet "
                    + "lacks QCA's OpenSSL plug-in", remedy: .installQCAPlugin)
        }
        if isMalformedReply(error) {
            return VaultError(
                .other,
                "the Secret Service provider sent an answer of the wrong shape while \(action) "
                    + "(\(oneLine(error.message)))", remedy: .diagnoseAndReport(toProvider: true))
        }
        if isVanished(error) {
            return VaultError(
                .other, "an item went away while \(action) (another program changed the keyring)", remedy: .retry)
        }
        if remote?.name == "org.freedesktop.DBus.Error.InvalidArgs" {
            return VaultError(
                .other,
                "the Secret Service provider refused vault's request while \(action)\(remote?.said ?? "")",
                remedy: .diagnoseAndReport(toProvider: false))
        }
        let said = remote.map { $0.said ?? " (\($0.name))" } ?? ": \(oneLine(error.message))"
        return VaultError(
            .other, "the Secret Service failed while \(action)\(said)", remedy: .retryOrDiagnose)
    }

    /// Whether the error says the object at a path no longer exists: gnome-keyring answers
    /// UnknownMethod for a deleted item's path, KWallet and KeePassXC NoSuchObject, and
    /// KeePassXC's Properties.GetAll on it (Qt) InvalidArgs "Interface ... was not found in object".
    static func isVanished(_ error: GLibError) -> Bool {
        if RemoteError(error.message)?.name == "org.freedesktop.Secret.Error.NoSuchObject" { return true }
        if error.message.contains("Interface org.freedesktop.Secret.Item was not found in object") { return true }
        return error.domain == GLibErrorCode.dbusDomain
            && (error.code == GLibErrorCode.dbusUnknownMethod || error.code == GLibErrorCode.dbusUnknownObject)
    }

    /// Whether GDBus refused a reply whose type is not the method's (the shim passes every call's
    /// reply type, so nothing reads a reply of another shape).
    static func isMalformedReply(_ error: GLibError) -> Bool {
        error.domain == GLibErrorCode.ioDomain && error.code == GLibErrorCode.ioInvalidArgument
    }

    /// Whether the provider says it cannot set up the session's encryption: kwalletd without
    /// libqca-ossl answers every key exchange with "createDLGroup failed: maybe libqca-ossl is missing".
    static func isMissingEncryption(_ error: GLibError) -> Bool {
        error.message.contains("libqca-ossl") || error.message.contains("createDLGroup failed")
    }

    /// Whether the error says the session is broken, so that a fresh one may work: vault's own
    /// session refused the provider's key or could not agree one (`sessionDomain`), or KWallet
    /// failed its side of the key exchange. KWallet answers a secret it cannot decrypt with
    /// "Can't find session" (and keeps a created item's attributes: the retry fills that item in
    /// place).
    static func isBrokenSession(_ error: GLibError) -> Bool {
        error.domain == GLibErrorCode.sessionDomain
            || error.message.contains("Client public key size is invalid")
            || error.message.contains("Received invalid secret from the secret storage")
            || error.message.contains("Can't find session")
    }

    /// Whether the error says there is no Secret Service at all (no bus to reach, nothing owns
    /// or can start the service's name), as opposed to one that answers but cannot be used now
    /// (locked, too slow, failing). `auto` falls back to the file only for the first.
    static func isAbsence(_ error: GLibError, step: SecretServiceStep) -> Bool {
        if step == .bus { return true }
        guard error.domain == GLibErrorCode.dbusDomain else { return false }
        return error.code == GLibErrorCode.dbusServiceUnknown || error.code == GLibErrorCode.dbusNameHasNoOwner
            || GLibErrorCode.dbusSpawnFailures.contains(error.code)
    }

    private static func isTimeout(domain: String, code: Int32) -> Bool {
        switch domain {
        case GLibErrorCode.ioDomain: return code == GLibErrorCode.ioTimedOut
        case GLibErrorCode.dbusDomain:
            return code == GLibErrorCode.dbusNoReply || code == GLibErrorCode.dbusTimeout
                || code == GLibErrorCode.dbusTimedOut
        default: return false
        }
    }
}

/// An error the provider sent over D-Bus, as GLib words it: `GDBus.Error:NAME: TEXT`.
struct RemoteError {
    /// The D-Bus error name, e.g. `org.freedesktop.DBus.Error.AccessDenied`.
    var name: String
    /// The provider's own text, or nil when it sent none worth showing.
    var text: String?

    init?(_ message: String) {
        let prefix = "GDBus.Error:"
        guard message.hasPrefix(prefix) else { return nil }
        let rest = Array(message.dropFirst(prefix.count))
        guard let colon = rest.indices.first(where: { rest[$0] == ":" && $0 + 1 < rest.count && rest[$0 + 1] == " " })
        else {
            name = String(rest)
            return
        }
        name = String(rest[..<colon])
        let text = oneLine(String(rest[(colon + 2)...])).trimmingSpaces
        // GLib's words for "the provider said nothing", not the provider's.
        let empty =
            text.isEmpty || text.hasPrefix("Error return with empty body")
            || text.contains("was not provided by any .service files")
        self.text = empty ? nil : text
    }

    /// ": the provider said: TEXT", or nil without a text.
    var said: String? { text.map { ": the provider said: \($0)" } }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// A message on one line: GLib messages may contain newlines, our errors may not.
private func oneLine(_ text: String) -> String {
    String(text.map { $0.isNewline ? " " : $0 })
}
