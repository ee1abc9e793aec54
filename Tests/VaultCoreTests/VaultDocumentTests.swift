import Foundation
import Testing

@testable import VaultCore

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
        #expect(throws: VaultError.self) { try VaultDocument.decode(Array(text.utf8)) }
        do {
            _ = try VaultDocument.decode(Array(text.utf8))
        } catch {
            #expect(error.code == .damaged, "\(error.message)")
        }
    }

    @Test("JSON escapes are decoded, including surrogate pairs")
    func escapes() throws {
        let text =
            "{\"vault\":1}\n{\"service\":\"s\",\"account\":\"\\u00e9\\ud83d\\ude00\\t\\/\",\"value\":\"\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00+02:00\"}\n"
        #expect(throws: VaultError.self) { try VaultDocument.decode(Array(text.utf8)) }  // \t is a control character
        let clean = text.replacingOccurrences(of: "\\t", with: "")
        #expect(try VaultDocument.decode(Array(clean.utf8)).first?.name.account == "é😀/")
        #expect(try VaultDocument.decode(Array(clean.utf8)).first?.metadata.updated.rfc3339 == "2025-12-31T22:00:00Z")
    }
}
