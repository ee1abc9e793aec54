import Foundation
import Testing
import VaultSecureBytes

@testable import VaultAge

/// Every key kind built on X25519 refuses a low-order point, whose shared secret is all zeros
/// with any private key (so its wrap key would be public): in a stanza's share, read by an
/// identity, and in a recipient's key. swift-crypto computes such a secret without complaint,
/// so a path that skipped `X25519Agreement` would take the point.
@Suite("X25519 low-order points")
struct X25519AgreementTests {
    /// Points of small order in X25519's u-coordinate: 0, 1 (order 4) and one of order 8
    /// (libsodium's blocklist).
    static let lowOrder: [[UInt8]] = [
        [UInt8](repeating: 0, count: 32),
        [1] + [UInt8](repeating: 0, count: 31),
        hex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
    ]

    @Test("an identity refuses a low-order share as a header error: X25519 and ssh-ed25519")
    func shares() throws {
        let x25519 = X25519Identity.generate()
        // The identity's public half plays no part in checking a share: any blob gives a tag.
        let key = SSHPublicKey(type: SSHEd25519.stanzaType, blob: Self.sshBlob(point: Self.lowOrder[2]), comment: "")
        let ssh = try SSHEd25519Identity(key: key, seed: SecureBytes([UInt8](repeating: 7, count: 32)))
        let body = [UInt8](repeating: 0, count: KeyWrap.bodySize)
        for point in Self.lowOrder {
            let share = Base64.encodeUnpadded(point)
            let cases: [(any AgeIdentity, Stanza, String)] = [
                (x25519, Stanza(type: X25519Recipient.stanzaType, arguments: [share], body: body), "X25519"),
                (ssh, Stanza(type: SSHEd25519.stanzaType, arguments: [key.tag, share], body: body), "ssh-ed25519"),
            ]
            for (identity, stanza, name) in cases {
                do {
                    let key = try identity.unwrap([stanza])
                    Issue.record("\(name) took a low-order share (\(key == nil ? "no key" : "a key"))")
                } catch {
                    #expect(error.kind == .header, "\(error)")
                    #expect(error.message == "\(name) stanza share is a low-order point (all-zero shared secret)")
                }
            }
        }
    }

    @Test("a recipient of low order is refused: age1... and ssh-ed25519 lines")
    func recipients() throws {
        for point in Self.lowOrder {
            #expect(throws: AgeError.invalidKey("age recipient is a low-order point")) {
                try Age.parseRecipient(Bech32.encode(hrp: X25519Recipient.hrp, data: point))
            }
        }
        // Edwards points whose Montgomery form is of low order: y = -1 (u = 0) and y = 0 (u = 1).
        let minusOne = [0xEC] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
        for edwards in [minusOne, [UInt8](repeating: 0, count: 32)] {
            let line = "ssh-ed25519 " + Data(Self.sshBlob(point: edwards)).base64EncodedString() + " low@test"
            #expect(throws: AgeError.invalidKey("ssh-ed25519 public key is not a valid curve point")) {
                try Age.parseRecipient(line)
            }
        }
    }

    /// An `ssh-ed25519` public key blob: the type and the point, each as an SSH string.
    static func sshBlob(point: [UInt8]) -> [UInt8] {
        func string(_ bytes: [UInt8]) -> [UInt8] {
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init) + bytes
        }
        return string(Array(SSHEd25519.stanzaType.utf8)) + string(point)
    }

    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
    }
}
