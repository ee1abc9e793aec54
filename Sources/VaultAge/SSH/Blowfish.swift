internal import VaultSecureBytes

/// The Blowfish block cipher with the "expensive key schedule" variant bcrypt uses (eksblowfish),
/// as far as OpenSSH's `bcrypt_pbkdf` needs it: key expansion with and without salt, and ECB
/// encryption of 64-bit blocks held as pairs of big-endian words.
///
/// The state is derived from a passphrase, so it lives in memory this type owns and zeroes on
/// release. The round function reads the tables through unchecked pointers: `bcrypt_pbkdf` calls
/// it millions of times per key, and bounds checks would double the wait for a passphrase.
final class Blowfish {
    private static let stateWords = 18 + 4 * 256
    private let state: UnsafeMutablePointer<UInt32>

    /// The initial state: pi's digits.
    init() {
        state = .allocate(capacity: Self.stateWords)
        var offset = 0
        for table in [BlowfishTables.p, BlowfishTables.s0, BlowfishTables.s1, BlowfishTables.s2, BlowfishTables.s3] {
            table.withUnsafeBufferPointer { (state + offset).initialize(from: $0.baseAddress!, count: $0.count) }
            offset += table.count
        }
    }

    deinit {
        zeroSecret(UnsafeMutableRawBufferPointer(start: state, count: Self.stateWords * 4))
        state.deallocate()
    }

    /// Encrypts one block in place.
    @inline(__always)
    func encrypt(_ left: inout UInt32, _ right: inout UInt32) {
        let p = state
        let s = state + 18
        var l = left ^ p[0]
        var r = right
        var round = 1
        while round <= 16 {
            r ^= Self.f(s, l) ^ p[round]
            l ^= Self.f(s, r) ^ p[round + 1]
            round += 2
        }
        left = r ^ p[17]
        right = l
    }

    @inline(__always)
    private static func f(_ s: UnsafeMutablePointer<UInt32>, _ x: UInt32) -> UInt32 {
        ((s[Int(x >> 24)] &+ s[256 + Int((x >> 16) & 0xFF)]) ^ s[512 + Int((x >> 8) & 0xFF)])
            &+ s[768 + Int(x & 0xFF)]
    }

    /// eksblowfish's ExpandKey(state, salt, key): the key into P, then the whole state re-encrypted
    /// with the salt mixed in (`salt` nil: Blowfish_expand0state, no salt).
    func expand(key: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer?) {
        var keyCursor = 0
        for index in 0..<18 {
            state[index] ^= Self.word(key, &keyCursor)
        }
        var saltCursor = 0
        var left: UInt32 = 0
        var right: UInt32 = 0
        var index = 0
        while index < Self.stateWords {
            if let salt {
                left ^= Self.word(salt, &saltCursor)
                right ^= Self.word(salt, &saltCursor)
            }
            encrypt(&left, &right)
            state[index] = left
            state[index + 1] = right
            index += 2
        }
    }

    /// The next big-endian word of `bytes`, read cyclically (Blowfish_stream2word).
    static func word(_ bytes: UnsafeRawBufferPointer, _ cursor: inout Int) -> UInt32 {
        var word: UInt32 = 0
        for _ in 0..<4 {
            if cursor >= bytes.count { cursor = 0 }
            word = word << 8 | UInt32(bytes[cursor])
            cursor += 1
        }
        return word
    }
}
