import Foundation
import Testing
import VaultAge
import VaultSecureBytes
import VaultTestSupport

/// One age-testkit vector: its `key: value` header and the age file after the blank line.
struct TestVector {
    var name: String
    var expect: String
    var payloadHash: String?
    var identities: [String] = []
    var passphrases: [String] = []
    var compressed = false
    var unknownKeys: [String] = []
    var body: [UInt8]

    static let knownKeys: Set<String> = [
        "expect", "payload", "identity", "passphrase", "armored", "compressed", "file key", "comment",
    ]

    init?(name: String, contents: [UInt8]) {
        guard let split = contents.indices.first(where: { contents[$0...].starts(with: [0x0A, 0x0A]) }) else {
            return nil
        }
        self.name = name
        self.body = Array(contents[(split + 2)...])
        var expect: String?
        for line in String(decoding: contents[...split], as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let key = String(line[..<colon])
            let value = String(line[line.index(after: colon)...].dropFirst())
            switch key {
            case "expect": expect = value
            case "payload": payloadHash = value
            case "identity": identities.append(value)
            case "passphrase": passphrases.append(value)
            case "compressed": compressed = value == "zlib"
            default: if !Self.knownKeys.contains(key) { unknownKeys.append(key) }
            }
        }
        guard let expect else { return nil }
        self.expect = expect
    }
}

/// The vectors, committed with the tests (`Tests/Fixtures/age-testkit`, README there: source and
/// licence), read by name; a missing folder or an unreadable vector fails the caller.
func testkitVectors() throws -> [TestVector] {
    let root = try #require(packageRoot(), "package root not found")
    let directory = root.appendingPathComponent("Tests/Fixtures/age-testkit")
    try #require(
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("README.md").path),
        "the age test vectors are missing: \(directory.path) (they are part of the repository)")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        .filter { $0 != "README.md" && !$0.hasPrefix(".") }.sorted()
    var vectors: [TestVector] = []
    for name in names {
        let contents = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
        vectors.append(try #require(TestVector(name: name, contents: contents), "unreadable vector \(name)"))
    }
    let inflated = try inflateAll(
        Dictionary(uniqueKeysWithValues: vectors.filter(\.compressed).map { ($0.name, $0.body) }))
    return vectors.map { vector in
        var vector = vector
        if let body = inflated[vector.name] { vector.body = body }
        return vector
    }
}

/// The age error kind each `expect` value calls for.
///
/// `scrypt_work_factor_23` expects "header failure"; this library reports a work factor above the
/// caller's limit (default 22) as the more specific `.workFactor`, so for that vector alone
/// `.workFactor` is the accepted answer. Syntactically bad work factors (zero, leading zeros, signs,
/// hex, overflow) stay `.header`.
private let expectedKinds: [String: AgeError.Kind] = [
    "header failure": .header, "HMAC failure": .hmac, "no match": .noMatch,
    "payload failure": .payload, "armor failure": .armor,
]
private let workFactorVectors: Set<String> = ["scrypt_work_factor_23"]

@Suite struct ConformanceTests {
    @Test func ageTestkitVectors() throws {
        let vectors = try testkitVectors()
        #expect(vectors.count > 100, "too few vectors found: \(vectors.count)")

        var passed = 0
        var skipped: [String: Int] = [:]
        var plaintexts: [String: [UInt8]] = [:]
        for vector in vectors {
            switch check(vector) {
            case .passed: passed += 1
            case .decrypted(let plaintext): plaintexts[vector.name] = plaintext
            case .failed(let message): Issue.record(Comment(rawValue: "\(vector.name): \(message)"))
            case .skipped(let reason): skipped[reason, default: 0] += 1
            }
        }
        let hashes = try sha256HexAll(plaintexts)
        for vector in vectors where plaintexts[vector.name] != nil {
            if let expected = vector.payloadHash, hashes[vector.name] == expected {
                passed += 1
            } else {
                Issue.record(Comment(rawValue: "\(vector.name): plaintext SHA-256 does not match the vector's payload"))
            }
        }
        let reasons = skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: "; ")
        let skippedCount = skipped.values.reduce(0, +)
        print("age-testkit: \(passed) passed, \(skippedCount) skipped (\(reasons.isEmpty ? "none" : reasons))")
        #expect(passed > 100, "too few vectors checked: \(passed)")
        // Every vector is decided, the post-quantum hybrid ones included.
        #expect(skippedCount == 0, "vectors skipped: \(reasons)")
        #expect(passed + skippedCount <= vectors.count)
    }

    enum Outcome {
        case passed
        /// Decrypted as expected; the plaintext's hash is checked afterwards, for all vectors at once.
        case decrypted([UInt8])
        case failed(String)
        case skipped(String)
    }

    private func check(_ vector: TestVector) -> Outcome {
        if !vector.unknownKeys.isEmpty { return .skipped("with unknown header keys") }
        var identities: [any AgeIdentity] = []
        for encoded in vector.identities {
            do {
                // Through the parsing table, as an identity file line: X25519 and hybrid alike.
                identities += try Age.parseIdentityFile(encoded)
            } catch {
                return .failed("identity does not parse: \(error)")
            }
        }
        identities += vector.passphrases.map { ScryptIdentity(passphrase: SecureBytes($0.utf8)) }
        do {
            let plaintext = try Age.decrypt(vector.body, identities: identities)
            guard vector.expect == "success" else { return .failed("decrypted, expected \(vector.expect)") }
            return .decrypted(plaintext.unprotectedArray)
        } catch {
            guard let kind = expectedKinds[vector.expect] else {
                return .failed("expected \(vector.expect), got \(error.kind): \(error)")
            }
            if error.kind == kind || (error.kind == .workFactor && workFactorVectors.contains(vector.name)) {
                return .passed
            }
            return .failed("expected \(vector.expect), got \(error.kind): \(error)")
        }
    }
}
