import Foundation
import Testing
import VaultSecureBytes

@testable import VaultAge

/// A key pair written by age 1.3's `age-keygen -pq` (FiloSottile/age `cmd/age/testdata/hybrid.txt`):
/// the recipient vault derives from the seed must be the one age printed.
private enum Age13Key {
    static let identity = "AGE-SECRET-KEY-PQ-16XDSLZ3XCSZ3236YJ5J0T9NAPLZTP96LJKQCVHJYUDTQVJR5J5PQTDPQCX"
    static let recipient = [
        "age1pq1044e3hfmq2tltgck54m0gnpv8rfrwkdxjgl38psnwg8zfyv4uqdu63kk0u94ztt0q35k9dzuwgv405kxq6due2sre",
        "2kfsjftf7k2vz2mdpetku9pufy9d6ny6k5ss0cghpxdxrux0yd5xy40f8fu8ch9xn2rczyek2pqetqk0l9fqj0e3hfhkyfmc",
        "f9j6cpe5mf5stt9cymfq3xm276x4sramhn8srr42g78q9rkmqesevy33p4kdhkuggl99x9zx7j05uflx3s8q558xeaq9q9ct",
        "xqx52rzg6yffwykxngvxf7g3n83ddawagq2lnk59kcnexm54jrsmkjk9nemlge9v6p7fxu5z6yvq3ghpet8ww2c3h9fylvjx",
        "6j9njwz744376ap5r3xcpzh7qlk0kq3gknzfqhmxmjqypf6xz6geffdmy25apzsfr4ce0x825njkf62mgzx0x9n3zt0490u4",
        "dnt4468zse4zvd9sv0ycx2u2wsseuy4yymrg0nmfuxcwq9q0jykq7g5f59vunf95vnmcw336ksrh43fgapsd40u4227ymx56",
        "xtudtrte39twnq6fdfdj4p9pgx7pcqdk953za76fqcnvatx2cmywurag7ky4y8ecq5lvf25rydhxg6gmcn6vf78vtsqw79hp",
        "3mzv2u4v4jzn0nk50kl4gpv7k60cgz79c6k30jzy8dyetqtwg04tguxkv2p4hqj02yvsz2szaqdn9flu24rhth3v0t33023n",
        "wy27gt0x32eqpa5tpz6ygz3yzcsa3w889drpynzd5hlywuk9dwgafuax7upfnnxch4znrx4vactasg32u7vl886pxfswskk7",
        "wjgqkggrewtnaecfusl3nmg0xxh8e5nl5eft0xqwj5rk9ajn2j6yxehhgg5k6kpw5pk382hxmpu8wcd3rqx6m8905c7f8v0x",
        "2z9gyduxtqp2fdy9w2z4g2rrgu4d5cqes5tnwag007h2f326s3j9p6970xyd73rv5awx27zzezrax467c6vuye62ha88pzhw",
        "9xytjpezw3vg3l6x4k9rxwm9f6lwj6j7r9makg59rhgt0355s3jx9vw3raz5qdk5cnpny56q5h3dyd75suskuz63wmmfp933",
        "3tx4ry38vnh7jxy0j0cka99y7v2dmyjldjy0mqjetcefsmmg3pw0h9ll0rtskpmxz2cs8vmx6lu4v5rjtzpzgaqt46cwvnmh",
        "y5e3ye0tv6sre342lwg0tfd0yjkfz2haqc3hprpqf5ce8c9lx076dnk5cukn3tu38jgprrxt9sk9nqzt8grvkc4qzlg8jjf6",
        "38v07ej9cf4eu48kphrgyjy83qm822xq8v9k22zwa7txr439x74j2f9ay7frkwtfdwn02enyx8stjpr4wgg25n5tj7uxyx0d",
        "qt3hnrqf7dcgt9fqnkjgemjfzyck6pawewptcayxm49sq3477f4cvm2p8fmg27rcmwm5l2vmzvdmymvkrr3aywu04y3zlhs7",
        "awu3r9u9lseheqpffvm2xf8y6w2qaj9g22pcu0sdsnqseusrxq9awru5lyqxnzftlslgpe3njegxkze98rveswp3u0xgx69w",
        "kg38vgp4k55lwwgv5l7ccv503mh9q23nud4xtm499xq276u40rxyrzaqfyuz2f3v5qr2vq00xs4g3ruynmq0c6nprvjcwqc5",
        "zrdn4cnzeeuwumjvqfjdpxr739n4cqcwytc8pjmfcj2qs3l2a8p5fzq7nvtng2jvvklx0x5ypnlkeuegsm587f6d4dkwel2e",
        "s0lwwt88y2jdg8enjyph02tnjyndlx34h52fngjk96ggtu6vcxqkreqcxs4gwa8ww40t0kzlxfzyfhtjmfdm5fcrr5pt2xm4",
        "yslfynr0h9wkranhyadxf33kjn9xpg2fq5hnlq0",
    ].joined()
}

@Suite struct HybridTests {
    @Test func recipientDerivedFromTheSeedMatchesAge13() throws {
        let identity = try HybridIdentity(Age13Key.identity)
        #expect(identity.recipient.encoded == Age13Key.recipient)
        #expect(identity.encoded == Age13Key.identity)
        #expect(try HybridIdentity(Age13Key.identity.lowercased()).encoded == Age13Key.identity)
        #expect(try HybridRecipient(Age13Key.recipient).encoded == Age13Key.recipient)
        #expect(try HybridRecipient(Age13Key.recipient.uppercased()).encoded == Age13Key.recipient)
        // An identity file as age-keygen -pq writes it, with its two comment lines.
        let file = "# created: 2025-11-17T13:27:37+01:00\n# public key: \(Age13Key.recipient)\n\(Age13Key.identity)\n"
        let parsed = try Age.parseIdentityFile(file)
        #expect(parsed.count == 1)
        #expect((parsed.first as? HybridIdentity)?.recipient.encoded == Age13Key.recipient)
    }

    @Test func roundTripWritesOneHybridStanza() throws {
        let identity = try HybridIdentity.generate()
        let other = try HybridIdentity.generate()
        let plaintext = Array("post-quantum secret\n".utf8)
        let (file, envelope) = try Age.encryptReturningEnvelope(
            plaintext, to: [identity.recipient, other.recipient])
        #expect(envelope.stanzaTypes == [.mlkem768x25519, .mlkem768x25519])
        #expect(try Age.decrypt(file, identities: [identity]) == plaintext)
        #expect(try Age.decrypt(file, identities: [other]) == plaintext)
        // The stanza is age's: one 1,120-byte encapsulated key and a 32-byte body.
        let header = String(decoding: try Age.header(of: file), as: UTF8.self)
        let stanzaLine = try #require(header.split(separator: "\n").first { $0.hasPrefix("-> mlkem768x25519 ") })
        #expect(stanzaLine.split(separator: " ").count == 3)
        #expect(stanzaLine.split(separator: " ")[2].count == (1120 * 4 + 2) / 3)
        let stranger = try HybridIdentity.generate()
        expectAgeError([.noMatch]) { _ = try Age.decrypt(file, identities: [stranger]) }
        expectAgeError([.noMatch]) { _ = try Age.decrypt(file, identities: [X25519Identity.generate()]) }
    }

    @Test func classicAndPostQuantumRecipientsDoNotMix() throws {
        let hybrid = try HybridIdentity.generate().recipient
        let classic = X25519Identity.generate().recipient
        let recipientLists: [[any AgeRecipient]] = [[hybrid, classic], [classic, hybrid, hybrid]]
        for recipients in recipientLists {
            do {
                _ = try Age.encrypt([1, 2, 3], to: recipients)
                Issue.record("encrypted to a mix of post-quantum and classic recipients")
            } catch {
                #expect(error.kind == .invalidKey)
                #expect(error.message.contains("post-quantum and classic recipients cannot share a file"))
            }
        }
        let text = "# team\n\(hybrid.encoded)\n\(classic.encoded)\n"
        // The file parses (each line is a valid key); the mix is refused where a file is written.
        let parsed = try Age.parseRecipientsFile(text).recipients
        #expect(parsed.map(\.isPostQuantum) == [true, false])
        #expect(parsed.first?.description.hasPrefix("post-quantum age public key age1pq1") == true)
    }

    @Test func malformedKeysAreRefusedWithoutQuotingThem() {
        let seed = Age13Key.identity
        let broken = String(seed.dropLast()) + (seed.last == "Q" ? "P" : "Q")
        let shortSeed = "AGE-SECRET-KEY-PQ-1" + "QQQQQQQQQQQQQQQQ"
        for text in [broken, shortSeed, Age13Key.recipient] {
            do {
                _ = try HybridIdentity(text)
                Issue.record("parsed a malformed post-quantum secret key")
            } catch {
                #expect(error.kind == .invalidKey)
                #expect(!error.message.contains(text))
            }
        }
        let recipient = Age13Key.recipient
        for text in [
            String(recipient.dropLast(7)), "age1pq1qqqqqqqqqqqqqqqq", X25519Identity.generate().recipient.encoded,
        ] {
            expectAgeError([.invalidKey], "\(text.prefix(12))") { _ = try HybridRecipient(text) }
        }
    }

    /// Keys that X-Wing encapsulation refuses are refused when the recipient is read (exit 2 in
    /// vault), never later when a file is encrypted to it (a trap on main, exit 132).
    @Test func unusableKeyHalvesAreRefusedWhenParsed() throws {
        let good = try HybridRecipient(Age13Key.recipient).keyBytes
        func withX25519(_ key: [UInt8]) -> [UInt8] { Array(good.prefix(1184)) + key }
        let lowOrder: [[UInt8]] = [
            [UInt8](repeating: 0, count: 32),
            [1] + [UInt8](repeating: 0, count: 31),
            // A point of order 8 (libsodium's blocklist); every X25519 key agreement with it is zero.
            hexBytes("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
        ]
        var firstTooLarge = good
        firstTooLarge[0] = 0xFF
        firstTooLarge[1] |= 0x0F  // coefficient 0 = 4095
        var lastIsQ = good
        lastIsQ[1150] = lastIsQ[1150] & 0x0F | 0x10
        lastIsQ[1151] = 0xD0  // coefficient 767 = 0xD01 = 3329 = q
        let cases =
            lowOrder.map { (withX25519($0), "low-order") } + [
                (firstTooLarge, "not below q"), (lastIsQ, "not below q"),
            ]
        for (bytes, fragment) in cases {
            let text = Bech32.encode(hrp: HybridRecipient.hrp, data: bytes)
            do {
                _ = try Age.parseRecipient(text)
                Issue.record("an unusable post-quantum recipient was accepted (\(fragment))")
            } catch {
                #expect(error.kind == .invalidKey, "\(error)")
                #expect(error.message.contains(fragment), "\(error)")
                #expect(!error.message.contains(text.prefix(20)), "\(error)")
            }
        }
        // The largest coefficient that is allowed, q - 1, in the same place: still a key.
        var lastIsBelowQ = good
        lastIsBelowQ[1150] = lastIsBelowQ[1150] & 0x0F
        lastIsBelowQ[1151] = 0xD0  // 0xD00 = 3328
        let accepted = try HybridRecipient(Bech32.encode(hrp: HybridRecipient.hrp, data: lastIsBelowQ))
        #expect(try Age.stanzaTypes(of: Age.encrypt([1], to: [accepted])) == [.mlkem768x25519])
    }

    private func hexBytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
    }

    @Test func taggedRecipientsAreRefusedByName() {
        for text in [
            "age1tag1qt8lw0ual6avlwmwatk888yqnmdamm7xfd0wak53ut6elz5c4swx2yqdj4e",
            "age1tagpq1m3e4wvp6hzcrn9exhy0ae3xfx2sjymp594k3tg7j4dpmj922we65vtnmrt2pyallax8669",
        ] {
            do {
                _ = try Age.parseRecipient(text)
                Issue.record("parsed a tagged recipient")
            } catch {
                #expect(error.kind == .invalidKey)
                #expect(error.message.contains("tagged recipients"), "\(error.message)")
            }
        }
    }
}
