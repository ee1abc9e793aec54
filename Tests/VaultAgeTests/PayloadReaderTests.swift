import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultAge

/// What reading a file gives: its plaintext, the kind of error, or "read it whole instead".
enum ReadOutcome: Equatable {
    case plaintext([UInt8])
    case failure(AgeError.Kind)
    case readWhole
}

/// Reads `file` as FileStore does: its first `prefixSize` bytes, then one sealed chunk at a time.
func readInChunks(_ file: [UInt8], identities: [any AgeIdentity], prefixSize: Int = AgePayloadReader.prefixSize)
    -> ReadOutcome
{
    do throws(AgeError) {
        let prefix = Array(file.prefix(prefixSize))
        guard var reader = try AgePayloadReader(prefix: prefix, fileSize: file.count, identities: identities) else {
            return .readWhole
        }
        var plaintext: [UInt8] = []
        while let range = reader.nextChunk {
            let sealed = Array(file[range])
            try sealed.withUnsafeBufferPointer { (bytes) throws(AgeError) in
                try reader.open(UnsafeRawBufferPointer(bytes)) { plaintext.append(contentsOf: $0) }
            }
        }
        return .plaintext(plaintext)
    } catch {
        return .failure(error.kind)
    }
}

/// What `Age.decrypt` gives for the same file.
func readWhole(_ file: [UInt8], identities: [any AgeIdentity]) -> ReadOutcome {
    do throws(AgeError) {
        return .plaintext(try Age.decrypt(file, identities: identities).unprotectedArray)
    } catch {
        return .failure(error.kind)
    }
}

/// Checks that reading in chunks gives what `Age.decrypt` gives (or asks to read the file whole).
func expectSameRead(
    _ file: [UInt8], identities: [any AgeIdentity], prefixSize: Int = AgePayloadReader.prefixSize,
    _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
    let chunked = readInChunks(file, identities: identities, prefixSize: prefixSize)
    if chunked == .readWhole { return }
    #expect(chunked == readWhole(file, identities: identities), "\(comment)", sourceLocation: sourceLocation)
}

@Suite struct PayloadReaderTests {
    @Test func chunkedReadsMatchOpenAcrossChunkSizes() throws {
        let identity = X25519Identity.generate()
        for count in [0, 1, 65_535, 65_536, 65_537, 131_072, 200_000] {
            let plaintext = patternBytes(count: count)
            let file = try Age.encrypt(plaintext, to: [identity.recipient])
            #expect(readInChunks(file, identities: [identity]) == .plaintext(plaintext), "\(count) bytes")
        }
    }

    @Test func everyTruncationAndFlippedBitFailsAsOpenFails() throws {
        let identity = X25519Identity.generate()
        let small = try Age.encrypt(Array("truncate me".utf8), to: [identity.recipient])
        for length in 0...small.count {
            expectSameRead(Array(small.prefix(length)), identities: [identity], "length \(length)")
        }
        for index in small.indices {
            var altered = small
            altered[index] ^= 0x01
            expectSameRead(altered, identities: [identity], "byte \(index)")
        }
        let large = try Age.encrypt(patternBytes(count: 2 * 65_536 + 10), to: [identity.recipient])
        let payloadStart = try Header.parse(large).length + 16
        for chunkEnd in [payloadStart + 65_552, payloadStart + 2 * 65_552] {
            for length in (chunkEnd - 17)...(chunkEnd + 17) {
                expectSameRead(Array(large.prefix(length)), identities: [identity], "length \(length)")
            }
        }
        expectSameRead(large + [0], identities: [identity], "one byte appended")
        var lastChunkAltered = large
        lastChunkAltered[lastChunkAltered.count - 20] ^= 0x80
        expectSameRead(lastChunkAltered, identities: [identity], "last chunk altered")
        #expect(readInChunks(lastChunkAltered, identities: [identity]) == .failure(.payload))
    }

    @Test func wrongKeysAndPassphrasesFailAsOpenFails() throws {
        let passphrase = SecureBytes("hunter2 hunter2".utf8)
        let file = try Age.encrypt(Array("scrypt".utf8), to: [ScryptRecipient(passphrase: passphrase, workFactor: 10)])
        #expect(
            readInChunks(file, identities: [ScryptIdentity(passphrase: passphrase)]) == .plaintext(Array("scrypt".utf8))
        )
        #expect(
            readInChunks(file, identities: [ScryptIdentity(passphrase: SecureBytes("nope".utf8))]) == .failure(.noMatch)
        )
        #expect(readInChunks(file, identities: [X25519Identity.generate()]) == .failure(.noMatch))
        #expect(
            readInChunks(file, identities: [ScryptIdentity(passphrase: passphrase, maxWorkFactor: 9)])
                == .failure(.workFactor)
        )
    }

    @Test func armorAndHeadersLongerThanThePrefixAreReadWhole() throws {
        let identity = X25519Identity.generate()
        let file = try Age.encrypt(Array("armored".utf8), to: [identity.recipient])
        #expect(readInChunks(Armor.encode(file), identities: [identity]) == .readWhole)
        let headerLength = try Header.parse(file).length
        // Cut inside the header, then inside the nonce: the rest of the file is still to come.
        #expect(readInChunks(file, identities: [identity], prefixSize: headerLength - 5) == .readWhole)
        #expect(readInChunks(file, identities: [identity], prefixSize: headerLength + 8) == .readWhole)
        #expect(
            readInChunks(file, identities: [identity], prefixSize: headerLength + 16)
                == .plaintext(Array("armored".utf8)))
    }

    @Test func aKnownEnvelopeOpensTheSameHeaderWithoutIdentities() throws {
        let identity = X25519Identity.generate()
        let (file, envelope) = try Age.encryptReturningEnvelope(Array("v1".utf8), to: [identity.recipient])
        let resealed = Age.seal(Array("v2".utf8), envelope: envelope)
        var reader = try #require(try AgePayloadReader(prefix: resealed, fileSize: resealed.count, envelope: envelope))
        #expect(try reader.decryptRemaining(of: resealed) == Array("v2".utf8))
        let other = try Age.encrypt(Array("v1".utf8), to: [identity.recipient])
        #expect(try AgePayloadReader(prefix: other, fileSize: other.count, envelope: envelope) == nil)
        #expect(file != resealed)
    }

    @Test func ageTestkitVectorsReadInChunksAsOpenReadsThem() throws {
        let vectors = try testkitVectors()
        var compared = 0
        for vector in vectors {
            let keys: [any AgeIdentity] = vector.identities.compactMap { try? X25519Identity($0) }
            let identities = keys + vector.passphrases.map { ScryptIdentity(passphrase: SecureBytes($0.utf8)) }
            for prefixSize in [AgePayloadReader.prefixSize, 200] {
                let chunked = readInChunks(vector.body, identities: identities, prefixSize: prefixSize)
                guard chunked != .readWhole else { continue }
                #expect(
                    chunked == readWhole(vector.body, identities: identities), "\(vector.name), prefix \(prefixSize)")
                compared += 1
            }
        }
        #expect(compared > 100, "too few vectors compared: \(compared)")
    }
}
