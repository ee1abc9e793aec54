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
    /// The one place a GLib error becomes a `VaultError`.
    ///
    /// The message keeps the GError's domain, code and message. A time-out, a missing bus or a
    /// missing provider is `.unavailable`; a locked keyring is `.cannotUnlock`; nothing is ever
    /// reported as "not found".
    static func secretService(
        _ error: GLibError, step: SecretServiceStep, action: String, timeout: Double, timedOut: Bool
    ) -> VaultError {
        let detail = "\(oneLine(error.message)) [\(error.domain) \(error.code)]"
        let (domain, code) = (error.domain, error.code)
        if timedOut || isTimeout(domain: domain, code: code) {
            return VaultError(
                .unavailable,
                "the Secret Service did not answer within \(formatSeconds(timeout)) s while \(action) (\(detail))")
        }
        if domain == GLibErrorCode.secretDomain && code == GLibErrorCode.secretIsLocked
            || error.message.contains("org.freedesktop.Secret.Error.IsLocked")
        {
            return VaultError(
                .cannotUnlock, "the keyring is locked; unlock it (e.g. log in to the desktop) and retry: \(detail)")
        }
        if step == .bus {
            return VaultError(.unavailable, "no D-Bus session bus to reach the Secret Service: \(detail)")
        }
        if domain == GLibErrorCode.dbusDomain,
            code == GLibErrorCode.dbusServiceUnknown || code == GLibErrorCode.dbusNameHasNoOwner
                || GLibErrorCode.dbusSpawnFailures.contains(code)
        {
            return VaultError(
                .unavailable, "no Secret Service provider (e.g. gnome-keyring) on the session bus: \(detail)")
        }
        if domain == GLibErrorCode.dbusDomain,
            code == GLibErrorCode.dbusNoServer || code == GLibErrorCode.dbusDisconnected
        {
            return VaultError(.unavailable, "lost the D-Bus session bus while \(action): \(detail)")
        }
        if domain == GLibErrorCode.ioDomain,
            code == GLibErrorCode.ioClosed || code == GLibErrorCode.ioConnectionClosed
        {
            return VaultError(.unavailable, "lost the D-Bus session bus while \(action): \(detail)")
        }
        return VaultError(.other, "the Secret Service failed while \(action): \(detail)")
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

/// `5` for 5.0, `0.5` for 0.5: how a time-out appears in messages.
func formatSeconds(_ seconds: Double) -> String {
    if seconds.isFinite, seconds == seconds.rounded(), abs(seconds) < 1e15 {
        return String(Int64(seconds))
    }
    return String(seconds)
}

/// A message on one line: GLib messages may contain newlines, our errors may not.
private func oneLine(_ text: String) -> String {
    String(text.map { $0.isNewline ? " " : $0 })
}
