import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultAge

@Suite struct Bech32Tests {
    @Test func roundTrip() throws {
        for count in [0, 1, 5, 31, 32, 33, 100] {
            let data = patternBytes(count: count, seed: UInt64(count + 1))
            let encoded = Bech32.encode(hrp: "age", data: data)
            let decoded = try Bech32.decode(encoded)
            #expect(decoded.hrp == "age")
            #expect(decoded.data == data)
            #expect(try Bech32.decode(encoded.uppercased()).data == data)
        }
    }

    @Test func rejectsBadChecksumMixedCaseAndBadCharacters() {
        let good = Bech32.encode(hrp: "age", data: patternBytes(count: 32))
        var chars = Array(good)
        chars[10] = chars[10] == "q" ? "p" : "q"
        for (text, reason) in [
            (String(chars), "bad checksum"), ("A" + good.dropFirst(), "mixed case"),
            (good + "b", "unexpected character"), ("age1qqqqqq", "bad checksum"),
            ("1qqqqqqqq", "missing separator or checksum"),
        ] {
            let error = expectAgeError([.invalidKey], "\(text)") { _ = try Bech32.decode(text) }
            #expect(error?.message == "invalid Bech32 string: \(reason)", "\(String(describing: error))")
        }
    }

    /// The example key pair from the age specification.
    @Test func specificationExampleKeys() throws {
        let identity = try X25519Identity(
            "AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX")
        #expect(identity.recipient.encoded == "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj")
        #expect(identity.encoded == "AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX")
        let lower = try X25519Identity(identity.encoded.lowercased())
        #expect(lower.recipient == identity.recipient)
        let recipient = try X25519Recipient("age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj")
        #expect(recipient == identity.recipient)
    }

    @Test func keyStringsRoundTripAndRejectWrongKinds() throws {
        let identity = X25519Identity.generate()
        #expect(identity.encoded.hasPrefix("AGE-SECRET-KEY-1"))
        #expect(try X25519Identity(identity.encoded).encoded == identity.encoded)
        #expect(try X25519Recipient(identity.recipient.encoded) == identity.recipient)
        let wrongKinds: [() throws -> Void] = [
            { _ = try X25519Identity(identity.recipient.encoded) },
            { _ = try X25519Recipient(identity.encoded) },
            { _ = try X25519Identity("AGE-SECRET-KEY-1" + identity.encoded.dropFirst(16).lowercased()) },
            { _ = try X25519Recipient(Bech32.encode(hrp: "age", data: patternBytes(count: 31))) },
            // The all-zero point (and every other low-order point) would give an all-zero secret.
            { _ = try X25519Recipient(Bech32.encode(hrp: "age", data: [UInt8](repeating: 0, count: 32))) },
        ]
        for attempt in wrongKinds {
            #expect {
                try attempt()
            } throws: { error in
                (error as? AgeError)?.kind == .invalidKey
            }
        }
    }
}

@Suite struct Base64Tests {
    @Test func unpaddedRoundTrip() {
        for count in 0..<70 {
            let data = patternBytes(count: count, seed: UInt64(count + 7))
            let encoded = Base64.encodeUnpadded(data)
            #expect(!encoded.contains("="))
            #expect(Base64.decodeUnpadded(encoded) == data)
        }
    }

    @Test func unpaddedRejectsNonCanonicalInput() {
        #expect(Base64.decodeUnpadded("QUE") == [0x41, 0x41])
        #expect(Base64.decodeUnpadded("QUF") == nil)  // unused low bits set
        #expect(Base64.decodeUnpadded("QQ") == [0x41])
        #expect(Base64.decodeUnpadded("QR") == nil)
        #expect(Base64.decodeUnpadded("QUE=") == nil)  // padding is not allowed in the header
        #expect(Base64.decodeUnpadded("Q") == nil)  // impossible length
        #expect(Base64.decodeUnpadded("QU\nE") == nil)
        #expect(Base64.decodeUnpadded("QU E") == nil)
        #expect(Base64.decodeUnpadded("QU-E") == nil)  // URL-safe alphabet
    }

    @Test func paddedRejectsNonCanonicalInput() {
        #expect(Base64.decodePadded(Array("QUE=".utf8)) == [0x41, 0x41])
        #expect(Base64.decodePadded(Array("QQ==".utf8)) == [0x41])
        #expect(Base64.decodePadded(Array("QUE".utf8)) == nil)
        #expect(Base64.decodePadded(Array("QUF=".utf8)) == nil)
        #expect(Base64.decodePadded(Array("QR==".utf8)) == nil)
        #expect(Base64.decodePadded(Array("Q===".utf8)) == nil)
        #expect(Base64.decodePadded(Array("====".utf8)) == nil)
        #expect(Base64.decodePadded(Array("QQ=A".utf8)) == nil)
        #expect(Base64.decodePadded(Array("QUJD".utf8)) == [0x41, 0x42, 0x43])
        #expect(Base64.encodePadded([0x41]) == Array("QQ==".utf8))
    }

    @Test("the decoders read a slice in place and a collection without contiguous bytes by copy, alike")
    func decodersTakeAnyCollection() {
        let text = Array("..QUJD..".utf8)
        #expect(Base64.decodeUnpadded(text.dropFirst(2).dropLast(2)) == [0x41, 0x42, 0x43])
        #expect(Base64.decodePadded(text.dropFirst(2).dropLast(2)) == [0x41, 0x42, 0x43])
        #expect(Base64.decodeUnpadded(text.dropFirst(2)) == nil)
        // A lazily mapped collection has no contiguous storage.
        #expect(Base64.decodeUnpadded(Array("QUJD".utf8).lazy.map { $0 }) == [0x41, 0x42, 0x43])
        #expect(Base64.decodePadded(Array("QQ==".utf8).lazy.map { $0 }) == [0x41])
        #expect(Base64.decodeUnpadded(Array("QUF".utf8).lazy.map { $0 }) == nil)
        #expect(Base64.decodePadded(Array("QUE".utf8).lazy.map { $0 }) == nil)
    }
}

@Suite struct ArmorTests {
    @Test func armorRoundTripAndLineLengths() throws {
        let identity = X25519Identity.generate()
        for count in [0, 1, 47, 48, 100, 5000] {
            let plaintext = patternBytes(count: count)
            let armored = Armor.encode(try Age.encrypt(plaintext, to: [identity.recipient]))
            let lines = String(decoding: armored, as: UTF8.self).split(separator: "\n")
            #expect(lines.first == "-----BEGIN AGE ENCRYPTED FILE-----")
            #expect(lines.last == "-----END AGE ENCRYPTED FILE-----")
            #expect(lines.dropFirst().dropLast().dropLast().allSatisfy { $0.count == 64 })
            #expect(try Age.decrypt(armored, identities: [identity]) == plaintext)
            let crlf = Array(String(decoding: armored, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
            #expect(try Age.decrypt(crlf, identities: [identity]) == plaintext)
        }
    }

    @Test func armorRejectsGarbage() throws {
        let identity = X25519Identity.generate()
        let armored = Armor.encode(try Age.encrypt([1, 2, 3], to: [identity.recipient]))
        let text = String(decoding: armored, as: UTF8.self)
        let bad = [
            "x" + text,
            text + "x",
            text.replacingOccurrences(of: "-----\n", with: "-----\n\n"),
            text.replacingOccurrences(of: "\n-----END", with: " \n-----END"),
            String(text.dropLast(33)),
        ]
        for candidate in bad {
            #expect {
                try Age.decrypt(Array(candidate.utf8), identities: [identity])
            } throws: { error in
                (error as? AgeError)?.kind == .armor
            }
        }
        #expect(
            try Age.decrypt(Array((" \n\t\n" + text + "\n  \n").utf8), identities: [identity]) == [1, 2, 3])
    }
}
