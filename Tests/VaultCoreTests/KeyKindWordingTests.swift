import Testing
import VaultAge

@testable import VaultCore
@testable import VaultStorage

/// Messages and help about keys name every kind VaultAge reads, from its one table: a kind added
/// there shows up in each of them without an edit here.
@Suite("Key kinds in messages")
struct KeyKindWordingTests {
    @Test("VaultAge's lists hold each kind once, the plain age key first")
    func lists() {
        #expect(Age.identitySpellings.first == "AGE-SECRET-KEY-1...")
        #expect(Age.recipientSpellings.first == "age1...")
        for list in [Age.identitySpellings, Age.recipientSpellings] {
            #expect(Set(list).count == list.count && list.count >= 4, "\(list)")
        }
        // The kinds that work, and that a message once left out.
        for kind in ["AGE-SECRET-KEY-PQ-1...", "AGE-PLUGIN-NAME-1...", "OpenSSH private key"] {
            #expect(Age.identitySpellings.contains { $0.contains(kind) }, "\(kind)")
        }
        for kind in ["age1pq1...", "age1NAME1...", "ssh-ed25519", "ssh-rsa"] {
            #expect(Age.recipientSpellings.contains { $0.contains(kind) }, "\(kind)")
        }
        #expect(Age.either(["a"]) == "a" && Age.either(["a", "b", "c"]) == "a, b or c")
        #expect(
            Age.readableKeyKinds
                == "age public keys, post-quantum age public keys, SSH ed25519 keys, SSH RSA keys and passphrases")
    }

    @Test("a bad VAULT_IDENTITY names every identity kind")
    func identityMessage() {
        let factory = StoreFactory(
            options: GlobalOptions(), environment: ["HOME": "/home/someone", "VAULT_IDENTITY": "nope"], prompt: nil)
        // Not VaultErrorRemedyTests.failure: this message names its variable, as it should.
        var error: VaultError?
        do throws(VaultError) {
            _ = try factory.fileKeys(.vault, path: "/home/someone/vault.age")
        } catch let caught {
            error = caught
        }
        #expect(error?.code == .cannotUnlock)
        for kind in Age.identitySpellings {
            #expect(error?.message.contains(kind) == true, "\(kind) missing in \(String(describing: error))")
        }
    }

    @Test("a bad recipient names every recipient kind")
    func recipientMessage() {
        let factory = StoreFactory(options: GlobalOptions(), environment: [:], prompt: nil)
        let error = VaultErrorRemedyTests.failure { () throws(VaultError) in
            _ = try factory.recipients(publicKeys: ["nope"], files: [])
        }
        #expect(error?.code == .usage)
        for kind in Age.recipientSpellings {
            #expect(error?.message.contains(kind) == true, "\(kind) missing in \(String(describing: error))")
        }
    }

    @Test("VAULT_IDENTITY's description names every identity kind")
    func variableDescription() throws {
        let variable = try #require(VaultVariables.all.first { $0.name == "VAULT_IDENTITY" })
        for kind in Age.identitySpellings {
            #expect(variable.meaning.contains(kind), "\(kind)")
        }
    }
}
