import Foundation
import Testing

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultSecureBytes
@testable import VaultStorage

@Suite("Vault document")
struct VaultDocumentTests {
    func record(_ service: String, _ account: String, _ value: [UInt8], expires: Int64? = nil) throws -> SecretRecord {
        SecretRecord(
            name: try SecretName(service: service, account: account), value: value,
            metadata: SecretMetadata(
                created: Timestamp(secondsSince1970: 1_700_000_000),
                updated: Timestamp(secondsSince1970: 1_700_000_001),
                expires: expires.map { Timestamp(secondsSince1970: $0) }))
    }

    @Test("encode then decode returns the same records")
    func roundTrip() throws {
        let records = [
            try record("vault", "a", []),
            try record("vault", "quote\"back\\slash", [0, 10, 255], expires: 1_800_000_000),
            try record("s", "ünïcødé/日本", Array(repeating: 7, count: 1000)),
        ]
        let document = VaultDocument.encode(records)
        #expect(try VaultDocument.decode(document) == records)
        #expect(try VaultDocument.find(records[1].name, in: document) == records[1])
        #expect(try VaultDocument.find(try SecretName(service: "x", account: "y"), in: document) == nil)
        #expect(try VaultDocument.entries(in: document) == records.map(\.entry))
    }

    @Test("the encoding is the documented one")
    func exactEncoding() throws {
        let document = VaultDocument.encode([try record("vault", "gh", Array("ghp_abc".utf8), expires: 1_800_000_000)])
        #expect(
            String(decoding: document, as: UTF8.self) == """
                {"vault":1}
                {"service":"vault","account":"gh","value":"Z2hwX2FiYw==","created":"2023-11-14T22:13:20Z","updated":"2023-11-14T22:13:21Z","expires":"2027-01-15T08:00:00Z"}

                """)
    }

    @Test(
        "malformed documents are damaged, never partly read",
        arguments: [
            "", "{\"vault\":1}", "{\"vault\":2}\n", "[]\n", "{\"vault\":1,\"x\":1}\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\"}\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\",\"value\":\"!!\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\",\"value\":\"AA==\",\"created\":\"yesterday\",\"updated\":\"2026-01-01T00:00:00Z\"}\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\",\"color\":\"red\"}\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\\u0001\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n{\"service\":\"s\",\"account\":\"a\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\",\"account\":\"b\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"} x\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\\q\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n",
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}",
        ])
    func damaged(text: String) throws {
        expectFailure(.damaged) { try VaultDocument.decode(Array(text.utf8)) }
    }

    @Test("JSON escapes are decoded, including surrogate pairs")
    func escapes() throws {
        let text =
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"\\u00e9\\ud83d\\ude00\\t\\/\",\"value\":\"\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00+02:00\"}\n"
        expectFailure(.damaged) { try VaultDocument.decode(Array(text.utf8)) }  // \t is a control character
        let clean = text.replacingOccurrences(of: "\\t", with: "")
        #expect(try VaultDocument.decode(Array(clean.utf8)).first?.name.account == "é😀/")
        #expect(try VaultDocument.decode(Array(clean.utf8)).first?.metadata.updated.rfc3339 == "2025-12-31T22:00:00Z")
    }

    /// A document of records whose values are `value(index)` (1 to 60 bytes).
    private func documentOf(_ count: Int) throws -> (records: [SecretRecord], document: SecureBytes) {
        let records = try (0..<count).map { index in
            try record(
                "vault", "name-\(index)", (0..<(index % 60 + 1)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
        }
        return (records, VaultDocument.encode(records))
    }

    @Test("decoded values share a few buffers instead of one allocation each")
    func valuesShareBuffers() throws {
        let (records, document) = try documentOf(3000)
        let decoded = try VaultDocument.decode(document)
        #expect(decoded == records)
        let addresses = decoded.map { $0.value.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } }
        // Each value starts where the one before it ends, except where a new buffer begins.
        var breaks = 0
        for index in 1..<decoded.count {
            let end: UInt = addresses[index - 1] + UInt(decoded[index - 1].value.count)
            if addresses[index] != end { breaks += 1 }
        }
        #expect(breaks <= 3, "\(breaks + 1) buffers for \(decoded.count) values")
        // A value found alone holds a buffer of its own size, not a shared one.
        let found = try #require(try VaultDocument.find(records[1234].name, in: document))
        #expect(found == records[1234])
        #expect(found.value.storage.capacity <= found.value.count + 2, "base64 padding aside")
    }

    @Test(
        "a value in base64 vault does not write is read exactly as Foundation reads it",
        arguments: [
            "YR==", "YQ", "YQ=", "Zm9vYg", "Zm9v\\/Zm9v", "Zm9vYmFy", "Zm9v YmFy", "=", "Y===", "YQ==YQ==",
            "\\u0059Q==",
        ])
    func foundationBase64(text: String) throws {
        let line =
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"a\",\"value\":\"\(text)\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n"
        let unescaped = text.replacingOccurrences(of: "\\u0059", with: "Y").replacingOccurrences(of: "\\/", with: "/")
        let expected = Data(base64Encoded: unescaped).map { [UInt8]($0) }
        let decoded: [SecretRecord]? = try? VaultDocument.decode(Array(line.utf8))
        let value: [UInt8]? = decoded?.first?.value.unprotectedArray
        #expect(value == expected, "\(text)")
    }

    @Test("the encoding is the same whatever the names and times hold")
    func encodingOfOddNamesAndTimes() throws {
        let times: [Int64] = [0, -1, 253_402_300_799, -62_167_219_200, 1_700_000_000]
        for seconds in times {
            let time = Timestamp(secondsSince1970: seconds)
            let name = try SecretName(service: "sé\"r\\v", account: "a b/日本")
            let one = SecretRecord(
                name: name, value: [1, 2, 3], metadata: SecretMetadata(created: time, updated: time, expires: time))
            let text = String(decoding: VaultDocument.encode([one]), as: UTF8.self)
            #expect(
                text
                    == "{\"vault\":1}\n{\"service\":\"sé\\\"r\\\\v\",\"account\":\"a b/日本\",\"value\":\"AQID\",\"created\":\"\(time.rfc3339)\",\"updated\":\"\(time.rfc3339)\",\"expires\":\"\(time.rfc3339)\"}\n"
            )
            #expect(try VaultDocument.decode(Array(text.utf8)) == [one])
        }
    }
}
