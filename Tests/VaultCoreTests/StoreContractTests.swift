import Testing
import VaultCore
import VaultSecureBytes
import VaultTestSupport

@testable import VaultStorage

/// One contract, run against every store: what any backend must do at the storage edge.
///
/// Each backend adds itself to ``StoreFixture/all``; a fixture builds a fresh, empty store and
/// cleans up after it.
@Suite("Storage contract", .kwalletSessionFlakes)
struct StoreContractTests {
    @Test("a missing secret reads as nil, deletes as false", arguments: StoreFixture.all)
    func missing(fixture: StoreFixture) throws {
        try fixture.run { store in
            let name = try SecretName(service: fixture.service, account: "absent")
            #expect(try store.read(name) == nil)
            #expect(try store.delete(name) == false)
            #expect(try store.list(service: fixture.service).isEmpty)
        }
    }

    @Test("values round-trip byte for byte", arguments: StoreFixture.all)
    func roundTrip(fixture: StoreFixture) throws {
        try fixture.run { store in
            let values: [[UInt8]] = [
                Array("ghp_token".utf8), [], [0, 0, 1, 0xFF, 0xFE, 0x80, 0x0A],
                Array("line\n\n".utf8), Array("ünïcødé ✓".utf8),
                (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) },
            ]
            for (i, value) in values.enumerated() {
                let record = try fixture.record("value-\(i)", value)
                try store.write(record)
                let back = try #require(try store.read(record.name))
                #expect(back.value == value, "value \(i) of \(value.count) bytes changed")
                #expect(back.name == record.name)
                #expect(back.metadata == record.metadata)
            }
        }
    }

    @Test("writing an existing name replaces it in place", arguments: StoreFixture.all)
    func replace(fixture: StoreFixture) throws {
        try fixture.run { store in
            let first = try fixture.record("token", Array("old".utf8), created: 1_000, updated: 1_000)
            try store.write(first)
            var second = first
            second.value = SecureBytes("new".utf8)
            second.metadata.updated = Timestamp(secondsSince1970: 2_000)
            second.metadata.expires = Timestamp(secondsSince1970: 3_000)
            try store.write(second)
            let back = try #require(try store.read(first.name))
            #expect(back.value == Array("new".utf8))
            #expect(back.metadata == second.metadata)
            #expect(try store.list(service: fixture.service).map(\.name) == [first.name])
        }
    }

    @Test("replace hands the replaced secret's metadata to the new one", arguments: StoreFixture.all)
    func replaceMetadata(fixture: StoreFixture) throws {
        try fixture.run { store in
            let first = try fixture.record("token", Array("old".utf8), created: 1_000, updated: 1_000)
            var given: [SecretMetadata?] = []
            let none = try store.replace(first.name, value: first.value) { existing in
                given.append(existing)
                return first.metadata
            }
            #expect(none == nil)
            let second = SecretMetadata(
                created: first.metadata.created, updated: Timestamp(secondsSince1970: 2_000),
                expires: Timestamp(secondsSince1970: 3_000))
            let replaced = try store.replace(first.name, value: SecureBytes("new".utf8)) { existing in
                given.append(existing)
                return SecretMetadata(
                    created: existing?.created ?? Timestamp(secondsSince1970: 0), updated: second.updated,
                    expires: second.expires)
            }
            #expect(replaced == first.metadata)
            #expect(given == [nil, first.metadata])
            let back = try #require(try store.read(first.name))
            #expect(back.value == Array("new".utf8))
            #expect(back.metadata == second)
            #expect(try store.list(service: fixture.service).map(\.name) == [first.name])
        }
    }

    @Test("delete removes only the named secret", arguments: StoreFixture.all)
    func delete(fixture: StoreFixture) throws {
        try fixture.run { store in
            let a = try fixture.record("a", [1])
            let b = try fixture.record("b", [2])
            try store.write(a)
            try store.write(b)
            #expect(try store.delete(a.name) == true)
            #expect(try store.read(a.name) == nil)
            #expect(try store.read(b.name)?.value == [2])
            #expect(try store.delete(a.name) == false)
        }
    }

    @Test("list is sorted and filtered by service", arguments: StoreFixture.all)
    func list(fixture: StoreFixture) throws {
        try fixture.run { store in
            let other = fixture.service + "-other"
            let names = ["zeta", "alpha", "ci/npm-token", "Mixed Case", "ünï"]
            for name in names { try store.write(try fixture.record(name, Array(name.utf8))) }
            let elsewhere = try fixture.record("alpha", [9], service: other)
            try store.write(elsewhere)

            let listed = try store.list(service: fixture.service).map(\.name.account)
            #expect(listed == names.sorted())
            #expect(try store.list(service: other).map(\.name) == [elsewhere.name])
            let all = try store.list(service: nil).filter { [fixture.service, other].contains($0.name.service) }
            #expect(all.count == names.count + 1)
            #expect(all.map(\.name) == all.map(\.name).sorted())
            // The same account under two services is two secrets.
            #expect(try store.read(elsewhere.name)?.value == [9])
            #expect(
                try store.read(try SecretName(service: fixture.service, account: "alpha"))?.value == Array("alpha".utf8)
            )
        }
    }

    @Test("names at the limits are stored exactly", arguments: StoreFixture.all)
    func nameLimits(fixture: StoreFixture) throws {
        try fixture.run { store in
            let longest = String(repeating: "é", count: 127) + "x"  // 255 bytes
            for account in [longest, "x", "with space", "tab\u{00A0}nbsp", "日本語/トークン", "a=b&c"] {
                let record = try fixture.record(account, Array(account.utf8))
                try store.write(record)
                #expect(try store.read(record.name)?.value == Array(account.utf8))
            }
        }
    }
}

extension StoreContractTests {
    @Test(
        "a secret's kind survives a read, a listing and a replace, and a plain write drops it",
        arguments: StoreFixture.all)
    func kind(fixture: StoreFixture) throws {
        try fixture.run { store in
            var seed = try fixture.record("otp", Array("otpauth://hotp/x?secret=GEZA&counter=3".utf8))
            seed.metadata.kind = .hotp
            try store.write(seed)
            #expect(try store.read(seed.name)?.metadata.kind == .hotp)
            #expect(try store.list(service: fixture.service).first?.metadata.kind == .hotp)
            if let leases = store as? any SecretLeaseStore, let (_, version) = try leases.readVersioned(seed.name) {
                var next = seed
                next.value = SecureBytes("otpauth://hotp/x?secret=GEZA&counter=4".utf8)
                #expect(try leases.write(next, ifVersion: version))
                #expect(try store.read(seed.name)?.metadata.kind == .hotp, "a check-and-set write kept the kind")
            }
            var totp = seed
            totp.metadata.kind = .totp
            _ = try store.replace(seed.name, value: seed.value) { _ in totp.metadata }
            #expect(try store.read(seed.name)?.metadata.kind == .totp)
            var plain = seed
            plain.metadata.kind = nil
            try store.write(plain)
            let back = try #require(try store.read(seed.name))
            #expect(back.metadata.kind == nil)
            #expect(try store.list(service: fixture.service).first?.metadata.kind == nil)
        }
    }
}
