import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultAge

/// Expects `body` to throw an `AgeError` of one of `kinds`; returns it, for a test that also
/// checks its message or remedy.
@discardableResult
func expectAgeError(
    _ kinds: Set<AgeError.Kind>, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> AgeError? {
    let note = comment?.rawValue ?? ""
    do {
        try body()
        Issue.record("expected an AgeError of kind \(kinds), got success. \(note)", sourceLocation: sourceLocation)
    } catch let error as AgeError {
        #expect(kinds.contains(error.kind), "\(error.kind): \(error). \(note)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected an AgeError, got \(error). \(note)", sourceLocation: sourceLocation)
    }
    return nil
}

@Suite struct RoundTripTests {
    @Test func encryptDecryptAcrossChunkSizes() throws {
        let identity = X25519Identity.generate()
        for count in [0, 1, 65_535, 65_536, 65_537, 131_072, 200_000] {
            let plaintext = patternBytes(count: count)
            let file = try Age.encrypt(plaintext, to: [identity.recipient])
            let chunks = max(1, (count + 65_535) / 65_536)
            let header = try Header.parse(file)
            #expect(file.count == header.length + 16 + count + 16 * chunks)
            #expect(try Age.decrypt(file, identities: [identity]) == plaintext)
        }
    }

    @Test func sealReusesTheHeaderWithAFreshNonce() throws {
        let alice = X25519Identity.generate()
        let bob = X25519Identity.generate()
        let (file, envelope) = try Age.encryptReturningEnvelope(
            Array("v1".utf8), to: [alice.recipient, bob.recipient])
        #expect(envelope.stanzaTypes == [.x25519, .x25519])

        let opened = try Age.open(file, identities: [bob])
        #expect(opened.plaintext == Array("v1".utf8))
        #expect(opened.envelope.stanzaTypes == [.x25519, .x25519])

        let first = Age.seal(Array("v2".utf8), envelope: opened.envelope)
        let second = Age.seal(Array("v2".utf8), envelope: opened.envelope)
        #expect(first != second)
        let headerLength = try Header.parse(file).length
        #expect(first.prefix(headerLength) == file.prefix(headerLength))
        #expect(second.prefix(headerLength) == file.prefix(headerLength))
        #expect(first[headerLength..<(headerLength + 16)] != second[headerLength..<(headerLength + 16)])
        for sealed in [first, second] {
            #expect(try Age.decrypt(sealed, identities: [alice]) == Array("v2".utf8))
            #expect(try Age.decrypt(sealed, identities: [bob]) == Array("v2".utf8))
        }
        #expect(try Age.decrypt(Age.seal([], envelope: envelope), identities: [alice]) == [])
    }

    @Test func passphraseRoundTripAndWrongPassphrase() throws {
        let passphrase = SecureBytes("hunter2 hunter2".utf8)
        let (file, envelope) = try Age.encryptReturningEnvelope(
            Array("scrypt".utf8), to: [ScryptRecipient(passphrase: passphrase, workFactor: 10)])
        #expect(envelope.stanzaTypes == [.scrypt])
        #expect(try Age.stanzaTypes(of: file) == [.scrypt])
        #expect(try Age.decrypt(file, identities: [ScryptIdentity(passphrase: passphrase)]) == Array("scrypt".utf8))
        expectAgeError([.noMatch]) {
            _ = try Age.decrypt(file, identities: [ScryptIdentity(passphrase: SecureBytes("nope".utf8))])
        }
        expectAgeError([.noMatch]) { _ = try Age.decrypt(file, identities: [X25519Identity.generate()]) }
        expectAgeError([.noMatch]) { _ = try Age.decrypt(file, identities: []) }
        // A re-sealed payload keeps the scrypt header and needs no scrypt run to write.
        let resealed = Age.seal(Array("again".utf8), envelope: envelope)
        #expect(try Age.decrypt(resealed, identities: [ScryptIdentity(passphrase: passphrase)]) == Array("again".utf8))
    }

    @Test func wrongX25519KeyIsNoMatch() throws {
        let file = try Age.encrypt([1], to: [X25519Identity.generate().recipient])
        expectAgeError([.noMatch]) { _ = try Age.decrypt(file, identities: [X25519Identity.generate()]) }
    }

    @Test func recipientRules() {
        let passphrase = SecureBytes("pass".utf8)
        expectAgeError([.invalidKey]) { _ = try Age.encrypt([], to: []) }
        expectAgeError([.invalidKey]) {
            _ = try Age.encrypt(
                [], to: [ScryptRecipient(passphrase: passphrase), X25519Identity.generate().recipient])
        }
        expectAgeError([.invalidKey]) {
            _ = try Age.encrypt(
                [], to: [ScryptRecipient(passphrase: passphrase), ScryptRecipient(passphrase: passphrase)])
        }
        expectAgeError([.invalidKey]) { _ = try Age.encrypt([], to: [ScryptRecipient(passphrase: SecureBytes())]) }
        expectAgeError([.invalidKey]) {
            _ = try Age.encrypt([], to: [ScryptRecipient(passphrase: passphrase, workFactor: 0)])
        }
        expectAgeError([.invalidKey]) {
            _ = try Age.encrypt([], to: [ScryptRecipient(passphrase: passphrase, workFactor: 31)])
        }
    }
}

@Suite struct TamperTests {
    @Test func everyFlippedBitIsRejected() throws {
        let identity = X25519Identity.generate()
        let file = try Age.encrypt(Array("tamper me".utf8), to: [identity.recipient])
        for index in file.indices {
            for mask: UInt8 in [0x01, 0x20, 0x80] {
                var altered = file
                altered[index] ^= mask
                expectAgeError([.header, .hmac, .payload, .noMatch, .armor], "byte \(index) ^ \(mask)") {
                    _ = try Age.decrypt(altered, identities: [identity])
                }
            }
        }
    }

    @Test func everyTruncationIsRejected() throws {
        let identity = X25519Identity.generate()
        let small = try Age.encrypt(Array("truncate me".utf8), to: [identity.recipient])
        for length in 0..<small.count {
            expectAgeError([.header, .payload], "length \(length)") {
                _ = try Age.decrypt(Array(small.prefix(length)), identities: [identity])
            }
        }
        // Around the chunk boundaries of a three-chunk file, and with extra bytes appended.
        let large = try Age.encrypt(patternBytes(count: 2 * 65_536 + 10), to: [identity.recipient])
        let payloadStart = try Header.parse(large).length + 16
        for chunkEnd in [payloadStart + 65_552, payloadStart + 2 * 65_552] {
            for length in (chunkEnd - 17)...(chunkEnd + 17) {
                expectAgeError([.payload], "length \(length)") {
                    _ = try Age.decrypt(Array(large.prefix(length)), identities: [identity])
                }
            }
        }
        expectAgeError([.payload]) { _ = try Age.decrypt(large + [0], identities: [identity]) }
    }

    @Test func headerMACProtectsUnknownStanzas() throws {
        let identity = X25519Identity.generate()
        let file = try Age.encrypt([7], to: [identity.recipient])
        var text = String(decoding: file.prefix(try Header.parse(file).length), as: UTF8.self)
        text = text.replacingOccurrences(of: "\n---", with: "\n-> grease\n\n---")
        let altered = Array(text.utf8) + file.dropFirst(try Header.parse(file).length)
        #expect(try Age.stanzaTypes(of: altered) == [.x25519, StanzaType("grease")])
        expectAgeError([.hmac]) { _ = try Age.decrypt(altered, identities: [identity]) }
    }
}

@Suite struct WorkFactorTests {
    /// A header with an scrypt stanza of the given work factor, a made-up body and MAC.
    private func scryptFile(workFactor: String) -> [UInt8] {
        let header = """
            age-encryption.org/v1
            -> scrypt \(Base64.encodeUnpadded(patternBytes(count: 16))) \(workFactor)
            \(Base64.encodeUnpadded(patternBytes(count: 32)))
            --- \(Base64.encodeUnpadded(patternBytes(count: 32)))

            """
        return Array(header.utf8) + patternBytes(count: 40)
    }

    /// `.workFactor` is thrown only by the check before scrypt; scrypt at 2^62 would never end, so
    /// the time limit is a hang guard, not a speed test (speed: make bench).
    @Test(.timeLimit(.minutes(1)))
    func workFactorAboveTheLimitIsRejectedBeforeScryptRuns() {
        for workFactor in ["23", "30", "62"] {
            expectAgeError([.workFactor], "work factor \(workFactor)") {
                _ = try Age.decrypt(
                    scryptFile(workFactor: workFactor), identities: [ScryptIdentity(passphrase: SecureBytes([1]))])
            }
        }
        do {
            _ = try Age.decrypt(
                scryptFile(workFactor: "40"),
                identities: [ScryptIdentity(passphrase: SecureBytes([1]), maxWorkFactor: 22)])
            Issue.record("a work factor of 40 was accepted")
        } catch {
            #expect(error.kind == .workFactor)
            #expect(error.message.contains("40") && error.message.contains("22"))
        }
    }

    @Test func callerLimitApplies() throws {
        let passphrase = SecureBytes("limit".utf8)
        let file = try Age.encrypt([1], to: [ScryptRecipient(passphrase: passphrase, workFactor: 11)])
        expectAgeError([.workFactor]) {
            _ = try Age.decrypt(file, identities: [ScryptIdentity(passphrase: passphrase, maxWorkFactor: 10)])
        }
        #expect(try Age.decrypt(file, identities: [ScryptIdentity(passphrase: passphrase, maxWorkFactor: 11)]) == [1])
    }

    @Test func malformedWorkFactorsAreHeaderErrors() {
        for workFactor in ["0", "010", "+10", "-10", "0xa", "1a", "a1", "63", "99999999999999999999"] {
            expectAgeError([.header], "work factor \(workFactor)") {
                _ = try Age.decrypt(
                    scryptFile(workFactor: workFactor), identities: [ScryptIdentity(passphrase: SecureBytes([1]))])
            }
        }
    }
}

@Suite struct KeyFileTests {
    @Test func identityFileWithCommentsBlankLinesAndCRLF() throws {
        let first = X25519Identity.generate()
        let second = X25519Identity.generate()
        let text =
            "# created: today\r\n# public key: \(first.recipient.encoded)\r\n\(first.encoded)\r\n\r\n  \(second.encoded)  \n"
        let identities = try Age.parseIdentityFile(text)
        #expect(identities.compactMap { ($0 as? X25519Identity)?.encoded } == [first.encoded, second.encoded])
    }

    @Test func identityFileErrorsNameTheLineButNotTheKey() {
        let key = X25519Identity.generate().encoded
        let broken = String(key.dropLast()) + (key.last == "Q" ? "P" : "Q")
        let cases: [(String, String)] = [
            ("# comment\n\nAGE-PLUGIN-YUBIKEY-1QQQQQQQQQQ\n", "line 3"),
            ("\(key)\n\(broken)\n", "line 2"),
            ("AGE-SECRET-KEY-PQ-1QQQQQQ\n", "line 1"),
            ("# nothing here\n", "no secret keys"),
        ]
        for (text, expected) in cases {
            do {
                _ = try Age.parseIdentityFile(text)
                Issue.record("parsed \(expected)")
            } catch {
                #expect(error.kind == .invalidKey)
                #expect(error.message.contains(expected), "\(error.message)")
                #expect(!error.message.contains(broken) && !error.message.contains(key))
            }
        }
    }

    @Test func recipientsFile() throws {
        let first = X25519Identity.generate().recipient
        let second = X25519Identity.generate().recipient
        let file = try Age.parseRecipientsFile("# team\n\(first.encoded)\n\n\(second.encoded)\n")
        #expect(file.recipients.compactMap { $0 as? X25519Recipient } == [first, second])
        #expect(file.skipped.isEmpty)
        for bad in ["age1yubikey1qqqqqq\n", "ssh-ed25519 AAAA\n", "\n\nage1pq1qqqq\n", "# only comments\n"] {
            expectAgeError([.invalidKey], "\(bad)") { _ = try Age.parseRecipientsFile(bad) }
        }
    }

    @Test func stanzaTypesRejectsMalformedHeaders() {
        expectAgeError([.header]) { _ = try Age.stanzaTypes(of: []) }
        expectAgeError([.header]) { _ = try Age.stanzaTypes(of: Array("age-encryption.org/v2\n".utf8)) }
        expectAgeError([.header]) { _ = try Age.stanzaTypes(of: Array("age-encryption.org/v1\n--- AAAA\n".utf8)) }
        // The grammar requires at least one stanza.
        let mac = Base64.encodeUnpadded(patternBytes(count: 32))
        expectAgeError([.header]) { _ = try Age.stanzaTypes(of: Array("age-encryption.org/v1\n--- \(mac)\n".utf8)) }
        expectAgeError([.header]) {
            _ = try Age.stanzaTypes(of: Array("age-encryption.org/v1\r\n-> a\n\n--- \(mac)\n".utf8))
        }
    }
}
