import Testing
import VaultTestSupport

@testable import VaultAge
@testable import VaultSecureBytes

/// The age layer hands out plaintext and takes passphrases only as ``SecureBytes``: whole files,
/// single chunks of a streamed read, scrypt's input.
@Suite("Age plaintext in SecureBytes")
struct AgePlaintextTests {
    @Test("decrypted plaintext is SecureBytes, whole or read chunk by chunk")
    func decryptedPlaintext() throws {
        let identity = X25519Identity.generate()
        let plaintext = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        let file = try Age.encrypt(SecureBytes(plaintext), to: [identity.recipient])
        let whole: SecureBytes = try Age.decrypt(file, identities: [identity])
        #expect(whole == plaintext)
        var reader = try #require(
            try AgePayloadReader(prefix: file, fileSize: file.count, identities: [identity]))
        let remaining: SecureBytes = try reader.decryptRemaining(of: file)
        #expect(remaining == plaintext)
    }

    @Test("a passphrase is SecureBytes through scrypt: no copy of it outlives the calls, and it is zeroed")
    func passphraseThroughScrypt() throws {
        let releases = ReleaseLog()
        do {
            let passphrase = SecureBytes(Array("hunter2 hunter2".utf8), releaseObserver: releases.observer())
            let file = try Age.encrypt(
                SecureBytes([1, 2]), to: [ScryptRecipient(passphrase: passphrase, workFactor: 10)])
            let plaintext = try Age.decrypt(
                file, identities: [ScryptIdentity(passphrase: passphrase, maxWorkFactor: 10)])
            #expect(plaintext == [1, 2])
            #expect(releases.seen.isEmpty, "held by the caller alone")
        }
        #expect(releases.seen.count == 1 && releases.seen.allSatisfy { $0.zeroed })
    }

    @Test("a streamed read hands each chunk's plaintext to its reader, in order, and then nothing more")
    func chunks() throws {
        let identity = X25519Identity.generate()
        let plaintext = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let file = try Age.encrypt(SecureBytes(plaintext), to: [identity.recipient])
        var reader = try #require(
            try AgePayloadReader(prefix: file, fileSize: file.count, identities: [identity]))
        var joined: [UInt8] = []
        var sizes: [Int] = []
        while let range = reader.nextChunk {
            let chunk: SecureBytes = try file[range].withUnsafeBytes {
                try reader.open($0) { SecureBytes(copying: $0) }
            }
            sizes.append(chunk.count)
            joined += chunk
        }
        #expect(sizes == [65_536, 65_536, 150_000 - 2 * 65_536])
        #expect(joined == plaintext)
    }
}
