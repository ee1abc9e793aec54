import Foundation
import Testing
import VaultTestSupport

/// `git-credential-vault` with real git: `git credential fill/approve/reject`, a `git clone` over
/// smart HTTP with Basic auth, and the protocol's details (expiry, refresh tokens, unknown keys).
@Suite("git credential helper, end to end")
struct GitCredentialTests {
    @Test("approve stores under service git, fill reads it back, reject erases it")
    func approveFillReject() throws {
        let vault = try VaultRunner.withHelpers()
        defer { vault.cleanUp() }
        let helper = ["-c", "credential.helper=vault"]
        let approve = try vault.git(
            helper + ["credential", "approve"],
            stdin: "protocol=https\nhost=git.example.com\nusername=alice\npassword=s3cret pass\n\n")
        approve.expectSuccess()
        let listed = try vault.run(["ls", "--service", "git"])
        #expect(listed.stdoutText == "https://alice@git.example.com\n")
        let get = try vault.run(["get", "--service", "git", "https://alice@git.example.com"])
        #expect(get.stdoutText == "s3cret pass")

        let fill = try vault.git(helper + ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com\n\n")
        fill.expectSuccess()
        #expect(fill.stdoutText.contains("username=alice\npassword=s3cret pass\n"))
        // Another host is not answered: git asks the terminal, which is disabled.
        let other = try vault.git(helper + ["credential", "fill"], stdin: "protocol=https\nhost=other.example.com\n\n")
        #expect(other.status != 0)

        try vault.git(
            helper + ["credential", "reject"],
            stdin: "protocol=https\nhost=git.example.com\nusername=alice\npassword=s3cret pass\n\n"
        ).expectSuccess()
        #expect(try vault.run(["ls", "--service", "git"]).stdoutText == "")
        #expect(
            try vault.git(helper + ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com\n\n").status
                != 0)
    }

    @Test("git approves an empty username and password (an SSO login); fill gives them back, not a prompt")
    func emptyUsername() throws {
        let vault = try VaultRunner.withHelpers()
        defer { vault.cleanUp() }
        let helper = ["-c", "credential.helper=vault"]
        try vault.git(
            helper + ["credential", "approve"], stdin: "protocol=https\nhost=sso.tld\nusername=\npassword=\n\n"
        ).expectSuccess()
        #expect(try vault.run(["ls", "--service", "git"]).stdoutText == "https://@sso.tld\n")
        // Without the credential, git would ask the terminal, which is disabled: a failure.
        let fill = try vault.git(helper + ["credential", "fill"], stdin: "protocol=https\nhost=sso.tld\n\n")
        fill.expectSuccess()
        #expect(fill.stdoutText == "protocol=https\nhost=sso.tld\nusername=\npassword=\n", "\(fill.stderr)")
    }

    @Test("the protocol: expiry maps to vault's, refresh tokens kept, unknown keys ignored")
    func protocolDetails() throws {
        let vault = try VaultRunner.withHelpers()
        defer { vault.cleanUp() }
        let future = Int(Date().timeIntervalSince1970) + 3600
        let store = try vault.helper(
            "git-credential-vault", ["store"],
            stdin: "capability[]=authtype\nprotocol=https\nhost=h.example:8443\npath=team/repo.git\nusername=bob\n"
                + "password=tok\npassword_expiry_utc=\(future)\noauth_refresh_token=refresh-me\nwwwauth[]=Basic realm=x\n"
                + "future_key=ignored\n\n")
        store.expectSuccess()
        let long = try vault.run(["ls", "--long", "--service", "git"])
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let expiry = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(future)))
        #expect(long.stdoutText == "https://bob@h.example:8443/team/repo.git\tsoon\t\(expiry)\n")
        let get = try vault.helper(
            "git-credential-vault", ["get"], stdin: "protocol=https\nhost=h.example:8443\npath=team/repo.git\n\n")
        get.expectSuccess()
        #expect(
            get.stdoutText
                == "username=bob\npassword=tok\npassword_expiry_utc=\(future)\noauth_refresh_token=refresh-me\n")

        // An expired password is not returned.
        try vault.helper(
            "git-credential-vault", ["store"],
            stdin: "protocol=https\nhost=old.example\nusername=carol\npassword=stale\npassword_expiry_utc=1000\n"
        ).expectSuccess()
        try vault.run(["get", "--service", "git", "https://carol@old.example"]).expectFailure(3)
        let expired = try vault.helper("git-credential-vault", ["get"], stdin: "protocol=https\nhost=old.example\n")
        expired.expectSuccess()
        #expect(expired.stdout.isEmpty)

        // erase with a password removes only a credential that still holds that password.
        try vault.helper(
            "git-credential-vault", ["erase"], stdin: "protocol=https\nhost=h.example:8443\npassword=other\n"
        ).expectSuccess()
        #expect(try vault.run(["ls", "--service", "git"]).stdoutText.contains("bob@"))
        // Unknown operations are ignored; a malformed line is an error.
        try vault.helper("git-credential-vault", ["capability"]).expectSuccess()
        try vault.helper("git-credential-vault", ["get"], stdin: "no equals sign\n").expectFailure(2)
    }

    @Test("an ephemeral=1 credential (git 2.46+) is not stored; a useHttpPath path of 300 bytes is")
    func ephemeralAndLongPath() throws {
        let vault = try VaultRunner.withHelpers()
        defer { vault.cleanUp() }
        // git 2.39 (Debian 12) drops keys it does not know, so git 2.46's store is sent directly.
        try vault.helper(
            "git-credential-vault", ["store"],
            stdin: "capability[]=authtype\nprotocol=https\nhost=git.example.com\nusername=alice\npassword=short-lived\n"
                + "ephemeral=1\n\n"
        ).expectSuccess()
        #expect(try vault.run(["ls", "--service", "git"]).stdoutText == "", "an ephemeral credential was stored")
        try vault.helper(
            "git-credential-vault", ["store"],
            stdin: "protocol=https\nhost=git.example.com\nusername=alice\npassword=kept\nephemeral=0\n\n"
        ).expectSuccess()
        #expect(try vault.run(["ls", "--service", "git"]).stdoutText == "https://alice@git.example.com\n")

        // credential.useHttpPath with a long path: real git approves, then fills without asking.
        let path = "group/" + String(repeating: "sub/", count: 72) + "repo.git"
        let helper = ["-c", "credential.helper=vault", "-c", "credential.useHttpPath=true"]
        let url = "https://git.example.com/\(path)"
        try vault.git(helper + ["credential", "approve"], stdin: "url=\(url)\nusername=bob\npassword=deep\n\n")
            .expectSuccess()
        let fill = try vault.git(helper + ["credential", "fill"], stdin: "url=\(url)\n\n")
        fill.expectSuccess()
        #expect(fill.stdoutText.contains("username=bob\npassword=deep\n"), "\(fill.stderr)")
        // Another long path of the same host is another credential.
        let other = try vault.git(helper + ["credential", "fill"], stdin: "url=\(url).other\n\n")
        #expect(other.status != 0, "\(other.stdoutText)")
        let names = try vault.run(["ls", "--service", "git"]).stdoutText.split(separator: "\n")
        #expect(names.contains { $0.hasPrefix("https://bob@git.example.com/#sha256=") && $0.utf8.count <= 255 })
        try vault.git(helper + ["credential", "reject"], stdin: "url=\(url)\nusername=bob\npassword=deep\n\n")
            .expectSuccess()
        #expect(try vault.run(["ls", "--service", "git"]).stdoutText == "https://alice@git.example.com\n")
    }

    @Test("git clone over HTTP with Basic auth takes the password from vault; a refused one is erased")
    func cloneOverHTTP() throws {
        let server = try GitHTTPServer.shared.get()
        let vault = try VaultRunner.withHelpers()
        defer { vault.cleanUp() }
        let name = "http://\(GitHTTPServer.user)@127.0.0.1:\(server.port)"
        try vault.run(["--service", "git", "set", name], stdin: Array(GitHTTPServer.password.utf8)).expectSuccess()
        let helper = ["-c", "credential.helper=vault"]
        let clone = try vault.git(helper + ["clone", "-q", server.url, vault.path("clone")])
        clone.expectSuccess()
        #expect(try String(contentsOfFile: vault.path("clone/README"), encoding: .utf8) == "hello\n")

        // Without the helper git would have to prompt: the clone fails (no prompt without a terminal).
        let unhelped = try vault.git(["clone", "-q", server.url, vault.path("unhelped")])
        #expect(unhelped.status != 0)

        // A wrong password: the server refuses it, git rejects it, the helper erases it.
        try vault.run(["--service", "git", "set", name], stdin: Array("wrong".utf8)).expectSuccess()
        let refused = try vault.git(helper + ["clone", "-q", server.url, vault.path("refused")])
        #expect(refused.status != 0)
        #expect(try vault.run(["ls", "--service", "git"]).stdoutText == "")
    }
}
