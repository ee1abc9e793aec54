import Crypto
public import VaultSecureBytes
public import VaultStorage

extension OneTimeCodeSeed {
    /// The HOTP code for `counter` (RFC 4226 section 5.3): the HMAC of the counter's 8 big-endian
    /// bytes, dynamically truncated to 31 bits, modulo 10^``digits``, zero-padded. TOTP is HOTP
    /// of the time step (RFC 6238).
    public func code(counter: UInt64) -> SecureBytes {
        var message = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { message[index] = UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * index)) }
        var mac: [UInt8] = key.withUnsafeBytes { raw in
            let key = SymmetricKey(data: raw)
            switch algorithm {
            case .sha1: return Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
            case .sha256: return Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
            case .sha512: return Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
            }
        }
        defer { wipe(&mac) }
        let offset = Int(mac[mac.count - 1] & 0x0F)
        var binary =
            UInt32(mac[offset] & 0x7F) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8
            | UInt32(mac[offset + 3])
        var digitsOut = SecureBytes(zeros: digits)
        digitsOut.withUnsafeMutableBytes { out in
            for index in stride(from: digits - 1, through: 0, by: -1) {
                out[index] = UInt8(ascii: "0") + UInt8(binary % 10)
                binary /= 10
            }
        }
        binary = 0
        return digitsOut
    }

    /// The TOTP time step of `milliseconds` since the Unix epoch (RFC 6238, T0 = 0), and the
    /// milliseconds left until the next one.
    public func step(atMilliseconds milliseconds: Int64) -> (step: UInt64, millisecondsLeft: Int64) {
        let length = Int64(period) * 1000
        let step = milliseconds / length
        return (UInt64(max(step, 0)), (step + 1) * length - milliseconds)
    }

    /// What may be shown of the seed: everything but the key.
    public var summary: OneTimeCodeSummary {
        OneTimeCodeSummary(
            kind: kind, algorithm: algorithm, digits: digits, period: kind == .totp ? period : nil,
            counter: kind == .hotp ? counter : nil, label: label, issuer: issuer)
    }
}

/// A one-time code secret as `show` and `ls` describe it: never its key.
public struct OneTimeCodeSummary: Hashable, Sendable {
    public var kind: SecretKind
    public var algorithm: OneTimeCodeSeed.Algorithm
    public var digits: Int
    /// TOTP: seconds per code.
    public var period: Int?
    /// HOTP: the counter of the next code.
    public var counter: UInt64?
    public var label: String
    public var issuer: String?
}

/// The clock TOTP codes are read by, and how to wait for the next period: the system's real-time
/// clock (which libfaketime sets in tests), or a test's own.
public struct OneTimeCodeClock: Sendable {
    /// Milliseconds since the Unix epoch.
    public var now: @Sendable () -> Int64
    /// Sleeps about this many milliseconds.
    public var sleep: @Sendable (Int64) -> Void

    public init(now: @escaping @Sendable () -> Int64, sleep: @escaping @Sendable (Int64) -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// `CLOCK_REALTIME`, and `nanosleep`.
    public static let system = OneTimeCodeClock(
        now: { RefreshLease.nowMilliseconds() },
        sleep: { milliseconds in OAuthClient.pause(Double(milliseconds) / 1000) })
}
