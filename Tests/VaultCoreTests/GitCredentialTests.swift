import Testing
import VaultCore
import VaultSecureBytes

@testable import VaultFeatures
@testable import VaultStorage

/// git's credential protocol and the names credentials get in a vault, on an in-memory store.
@Suite("Git credentials")
struct GitCredentialUnitTests {
    @Test("the protocol: known keys and empty values kept, unknown keys ignored, a blank line ends it")
    func parsing() throws {
        let input = Array(
            "protocol=https\nhost=h:1\nwwwauth[]=Basic\nusername=a=b\npassword=p w=\npath=\nnew=1\n\nhost=after\n".utf8)
        let credential = try GitCredential.parse(input)
        #expect(
            credential
                == GitCredential(
                    protocolName: "https", host: "h:1", path: "", username: "a=b", password: SecureBytes("p w=".utf8)))
        expectFailure(.usage) { try GitCredential.parse(Array("protocol\n".utf8)) }
        #expect(credential.answer() == Array("username=a=b\npassword=p w=\n".utf8))
    }

    @Test("named storage: a user with @ / : % survives; a query without a username finds the newest")
    func naming() throws {
        var time: Int64 = 1_000
        let vault = Vault(store: MemoryStore(), now: { Timestamp(secondsSince1970: time) })
        let storage = NamedGitCredentials(vault: vault)
        let odd = GitCredential(
            protocolName: "https", host: "h.example", path: "x/y", username: "me@corp/a:b%",
            password: SecureBytes([1, 2]))
        try storage.store(odd)
        #expect(try vault.list(service: "git").map(\.name.account) == ["https://me%40corp%2Fa%3Ab%25@h.example/x/y"])
        time += 10
        try storage.store(
            GitCredential(protocolName: "https", host: "h.example", username: "z", password: SecureBytes([3])))
        let newest = try storage.find(GitCredential(protocolName: "https", host: "h.example"))
        #expect(newest?.username == "z")
        let withPath = try storage.find(GitCredential(protocolName: "https", host: "h.example", path: "x/y"))
        #expect(withPath?.username == "me@corp/a:b%")
        #expect(withPath?.password == [1, 2])
        try storage.erase(GitCredential(protocolName: "https", host: "h.example"))
        #expect(try vault.list(service: "git").isEmpty)
    }

    @Test("an empty username and password are stored and read back as empty, as git's t0303 asks")
    func emptyUsername() throws {
        let vault = Vault(store: MemoryStore())
        let storage = NamedGitCredentials(vault: vault)
        let stored = try storage.perform(
            "store", try GitCredential.parse(Array("protocol=https\nhost=sso.tld\nusername=\npassword=\n".utf8)))
        #expect(stored.isEmpty)
        #expect(try vault.list(service: "git").map(\.name.account) == ["https://@sso.tld"])
        let answer = try storage.perform("get", try GitCredential.parse(Array("protocol=https\nhost=sso.tld\n".utf8)))
        #expect(answer == Array("username=\npassword=\n".utf8))
    }
}
