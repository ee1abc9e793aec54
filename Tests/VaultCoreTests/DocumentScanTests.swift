import Foundation
import Testing

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultStorage
@testable import VaultSystem

/// The answer `find` must give: the record `decode` finds, or the error `decode` throws.
private func reference(_ name: SecretName, in document: [UInt8]) -> Result<SecretRecord?, VaultError> {
    do throws(VaultError) {
        return .success(try VaultDocument.decode(document).first { $0.name == name })
    } catch {
        return .failure(error)
    }
}

private func found(_ name: SecretName, in document: some DocumentChunks) -> Result<SecretRecord?, VaultError> {
    do throws(VaultError) {
        return .success(try VaultDocument.find(name, in: document))
    } catch {
        return .failure(error)
    }
}

private func line(_ service: String, _ account: String, value: String = "dmFsdWU=", extra: String = "") -> String {
    var out: [UInt8] = []
    JSONString.append(service.utf8, to: &out)
    let s = String(decoding: out, as: UTF8.self)
    out = []
    JSONString.append(account.utf8, to: &out)
    let a = String(decoding: out, as: UTF8.self)
    return "{\"service\":\(s),\"account\":\(a),\"value\":\"\(value)\",\"created\":\"2026-01-01T00:00:00Z\","
        + "\"updated\":\"2026-01-01T00:00:00Z\"\(extra)}\n"
}

@Suite("Vault document scanning")
struct DocumentScanTests {
    /// Lines vault writes, lines written other ways, and names that only decoding can compare.
    static let lines: [String] = [
        line("vault", "a"), line("vault", "ab"), line("vault", "b"), line("vault", "abc"),
        line("vault", "quote\"back\\slash"), line("vault", "café"), line("vault", "cafe\u{301}x"),
        line("other", "a"), line("vault", "\u{212A}elvin"),
        line("vault", "expiring", extra: ",\"expires\":\"2027-01-01T00:00:00Z\""),
        line("vault", "null-expiry", extra: ",\"expires\":null"),
        "{\"account\":\"reordered\",\"service\":\"vault\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n",
        "{ \"service\" : \"vault\" , \"account\" : \"spaced\", \"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\" }\n",
        "{\"service\":\"vault\",\"account\":\"\\u0065scaped\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n",
        "{\"service\":\"vault\",\"account\":\"slash\\/ed\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00+02:00\"}\n",
        "\n",
    ]

    static let names: [(String, String)] = [
        ("vault", "a"), ("vault", "ab"), ("vault", "abc"), ("vault", "abcd"), ("vault", "b"), ("vault", "A"),
        ("vault", "quote\"back\\slash"), ("vault", "café"), ("vault", "cafe\u{301}"), ("vault", "cafe\u{301}x"),
        ("vault", "caf\u{E9}x"), ("other", "a"), ("othe", "a"),
        ("vault", "Kelvin"), ("vault", "\u{212A}elvin"), ("vault", "expiring"), ("vault", "null-expiry"),
        ("vault", "reordered"), ("vault", "spaced"), ("vault", "escaped"), ("vault", "slash/ed"), ("vault", "absent"),
    ]

    static let document = Array(("{\"vault\":1}\n" + lines.joined()).utf8)

    @Test("find gives what a full decode gives, for every name and every way of writing a line")
    func findMatchesDecode() throws {
        for (service, account) in Self.names {
            let name = try SecretName(service: service, account: account)
            let expected = reference(name, in: Self.document)
            #expect(found(name, in: Self.document) == expected, "\(name)")
        }
    }

    @Test("a document in pieces reads as the whole document", arguments: [1, 2, 3, 7, 64, 4096])
    func pieces(size: Int) throws {
        let pieces = DocumentPieces(bytes: Self.document, size: size)
        for (service, account) in Self.names {
            let name = try SecretName(service: service, account: account)
            #expect(found(name, in: pieces) == found(name, in: Self.document), "\(name)")
        }
        #expect(try VaultDocument.entries(in: pieces) == VaultDocument.entries(in: Self.document))
        #expect(try VaultDocument.decode(pieces) == VaultDocument.decode(Self.document))
    }

    /// Lines that make a document damaged; each one, before a valid record, must stop `get`.
    static let damagedLines: [String] = [
        "{\"service\":\"vault\"}\n",
        "{\"service\":\"vault\",\"account\":\"x\"}\n",
        "{\"service\":\"vault\",\"account\":\"x\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\"}\n",
        line("vault", "x", extra: ",\"color\":\"red\""),
        line("vault", "x", extra: ",\"created\":\"2026-01-01T00:00:00Z\""),
        line("vault", "x", value: "AA\u{1}=="),
        "{\"service\":\"vault\",\"account\":\"x\",\"value\":7,\"created\":\"2026-01-01T00:00:00Z\",\"updated\":7}\n",
        "{\"service\":\"vault\",\"account\":\"x\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"} x\n",
        "{\"service\":\"vault\",\"account\":\"x\",\"value\":\"AA==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"\n",
        "{\"service\":\"vault\",\"account\":\"x\n",
        "{\"bad json\n",
    ]

    @Test("a damaged line before the secret, or anywhere when it is absent, is damage", arguments: damagedLines)
    func damagedBeforeTheMatch(damaged: String) throws {
        let document = Array(("{\"vault\":1}\n" + damaged + line("vault", "z")).utf8)
        for account in ["z", "absent", "x"] {
            let name = try SecretName(service: "vault", account: account)
            let result = found(name, in: document)
            guard case .failure(let error) = result else {
                Issue.record("find(\(account)) gave \(result) for \(damaged.debugDescription)")
                continue
            }
            #expect(error.code == .damaged, "\(error.message)")
        }
        for size in [1, 5, 100] {
            let name = try SecretName(service: "vault", account: "z")
            guard case .failure(let error) = found(name, in: DocumentPieces(bytes: document, size: size)) else {
                Issue.record("find in pieces of \(size) read past \(damaged.debugDescription)")
                continue
            }
            #expect(error.code == .damaged)
        }
    }

    @Test("get decodes no other record's value: a bad one stops writes, not reads")
    func otherValuesAreNotDecoded() throws {
        for bad in [line("vault", "x", value: "AA\\\""), line("vault", "x\u{7F}", value: "AA\\q")] {
            let document = Array(("{\"vault\":1}\n" + bad + line("vault", "z")).utf8)
            let name = try SecretName(service: "vault", account: "z")
            #expect(try VaultDocument.find(name, in: document)?.name == name)
            expectFailure(.damaged) { try VaultDocument.decode(document) }
        }
    }

    @Test("a document that ends inside a line, or has no header line, is damaged")
    func truncated() throws {
        let name = try SecretName(service: "vault", account: "absent")
        for text in ["", "{\"vault\":1}", "{\"vault\":1}\n" + line("vault", "a").dropLast()] {
            for size in [1, 4, 4096] {
                guard case .failure(let error) = found(name, in: DocumentPieces(bytes: Array(text.utf8), size: size))
                else {
                    Issue.record("\(text.debugDescription) in pieces of \(size) was read")
                    continue
                }
                #expect(error.code == .damaged)
            }
        }
    }

    @Test("ByteScan finds the first special byte of any range: pairs of words, one word, tails")
    func byteScanMatchesByteByByte() {
        // The scanners' stops: a quote, a backslash, a control character, a byte above 0x7F.
        func special(_ byte: UInt8) -> Bool { byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80 }
        var mismatches: [String] = []
        for length in 1...34 {
            for position in -1..<length {
                for stop: UInt8 in [0x22, 0x5C, 0x00, 0x1F, 0x80, 0xFF] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "A"), count: length)
                    if position >= 0 { bytes[position] = stop }
                    bytes.withUnsafeBufferPointer { buffer in
                        let base = buffer.baseAddress!
                        for from in 0...length {
                            for end in from...length {
                                let found = ByteScan.first(in: base, from: from, to: end) {
                                    ByteScan.equal($0, 0x22) | ByteScan.equal($0, 0x5C) | ByteScan.control($0)
                                        | ByteScan.nonASCII($0)
                                }
                                let expected = (from..<end).first { special(bytes[$0]) } ?? end
                                if found != expected {
                                    mismatches.append(
                                        "length \(length), \(stop) at \(position), \(from)..<\(end): \(found)")
                                }
                            }
                        }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) ranges, e.g. \(mismatches.prefix(3))")
    }
}
