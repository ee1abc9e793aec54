import Foundation
import Testing
import VaultSecureBytes

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage

/// The provider's record of an item inside a vault secret, and its object paths.
@Suite("Secret Service provider records and paths")
struct SecretServiceProviderRecordTests {
    @Test("a record round-trips byte for byte, binary secret and Unicode included")
    func roundTrip() throws {
        let secret = SecureBytes((0...255).map { UInt8($0) } + [0, 0])
        let record = ProviderRecord(
            kind: .item, label: "Ünïcode label", contentType: "application/octet-stream",
            attributes: ["xdg:schema": "org.example", "user": "älice", "": "empty name"],
            created: Timestamp(secondsSince1970: 1_700_000_000), modified: Timestamp(secondsSince1970: 1_800_000_000),
            secret: secret)
        let decoded = try #require(ProviderRecord(decoding: record.encoded()))
        #expect(decoded.kind == .item)
        #expect(decoded.label == record.label && decoded.contentType == record.contentType)
        #expect(decoded.attributes == record.attributes)
        #expect(decoded.created == record.created && decoded.modified == record.modified)
        #expect(decoded.secret == secret)
    }

    @Test("a truncated, extended or foreign value is no record")
    func malformed() {
        let encoded = ProviderRecord(
            kind: .collection, label: "Login", created: Timestamp(secondsSince1970: 1),
            modified: Timestamp(secondsSince1970: 2)
        ).encoded()
        let bytes = encoded.withUnsafeBytes { Array($0) }
        #expect(ProviderRecord(decoding: encoded) != nil)
        for cut in [0, 4, 5, 9, bytes.count - 1] {
            #expect(ProviderRecord(decoding: SecureBytes(bytes.prefix(cut))) == nil, "cut at \(cut)")
        }
        #expect(ProviderRecord(decoding: SecureBytes(bytes + [0])) == nil)
        #expect(ProviderRecord(decoding: SecureBytes(Array("hunter2".utf8))) == nil)
    }

    @Test("object paths name what they look like and nothing else")
    func paths() {
        let root = "/org/freedesktop/secrets"
        #expect(ProviderPath.parse(root) == .service)
        #expect(ProviderPath.parse(root + "/collection/login") == .collection("login"))
        #expect(ProviderPath.parse(root + "/collection/login/0af3") == .item(collection: "login", id: "0af3"))
        #expect(ProviderPath.parse(root + "/aliases/default") == .alias("default"))
        #expect(ProviderPath.parse(root + "/session/7") == .session("7"))
        #expect(ProviderPath.parse(root + "/prompt/8") == .prompt("8"))
        #expect(ProviderPath.parse("/org/vault/Provider") == .provider)
        for bad in [
            root + "/", root + "/collection", root + "/collection/", root + "/collection/a/b/c", root + "/session/1/2",
            root + "/aliases/default/x", root + "/collection/with-dash", "/org/other", "",
        ] {
            #expect(ProviderPath.parse(bad) == nil, "\(bad)")
        }
        #expect(ProviderPath.isValid("/") && ProviderPath.isValid(root) && !ProviderPath.isValid("relative"))
        #expect(!ProviderPath.isValid(root + "/"))
    }

    @Test("the introspection XML names every interface once, in the order of the shim's bits")
    func interfaces() {
        let xml = ProviderInterface.introspectionXML
        var position = xml.startIndex
        for interface in ProviderInterface.allCases {
            let range = xml.range(of: "<interface name=\"\(interface.name)\">", range: position..<xml.endIndex)
            #expect(range != nil, "\(interface.name) missing or out of order")
            if let range { position = range.upperBound }
            #expect(ProviderInterface(name: interface.name) == interface)
        }
    }
}
