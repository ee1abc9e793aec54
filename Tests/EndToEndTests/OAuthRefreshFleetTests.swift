import Foundation
import Synchronization
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Several machines sharing one OpenBao store refresh a living token once per expiry: the
/// refresh lease in the store (docs/tokens.md). A "machine" is a vault with its own HOME,
/// XDG_RUNTIME_DIR, XDG_STATE_HOME and XDG_CONFIG_HOME (so its own refresh locks and journal),
/// against the real OpenBao dev server and the Authlib server, which counts refresh requests and
/// reuse detections and tells whether an access token is valid. In the serialized suite of
/// ``OAuthRefreshTests``, whose counts are the server's.
extension OAuthRefreshTests {
    static let fleetTimeout = 120.0

    /// `count` machines on a fresh mount, one service.
    func fleet(_ count: Int, _ bao: OpenBaoDevServer, mount: String, _ oauth: OAuthServer, service: String)
        throws -> [VaultRunner]
    {
        try (0..<count).map { _ in
            var vault = try VaultRunner()
            for (variable, folder) in [
                ("XDG_RUNTIME_DIR", "run"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config"),
            ] {
                try FileManager.default.createDirectory(
                    atPath: vault.path(folder), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
                vault.environment[variable] = vault.path(folder)
            }
            vault.environment.merge(
                [
                    "BAO_ADDR": bao.address, "BAO_TOKEN": bao.token, "BAO_KV_MOUNT": mount, "VAULT_BACKEND": "openbao",
                    "VAULT_SERVICE": service, "VAULT_TIMEOUT": "30", "VAULT_REFRESH_ORIGINS": oauth.base,
                ]
            ) { $1 }
            return vault
        }
    }

    /// Imports a token that is due at once (a new token family) on `vault`; returns the access token.
    func importDue(_ vault: VaultRunner, _ oauth: OAuthServer, name: String) throws -> String {
        let response = try oauth.issue(expiresIn: 0)
        try vault.run(
            ["oauth", "import", name, "--token-url", oauth.tokenURL, "--client-id", "public-cli"], stdin: response
        ).expectSuccess()
        let object = try JSONSerialization.jsonObject(with: Data(response)) as? [String: Any]
        return try #require(object?["access_token"] as? String)
    }

    func isValid(_ token: String, _ oauth: OAuthServer) throws -> Bool {
        let answer = try oauth.post("/test/introspect", ["token": token])
        return (try JSONSerialization.jsonObject(with: answer) as? [String: Any])?["active"] as? Bool == true
    }

    func fleetCounts(_ oauth: OAuthServer) throws -> (refreshes: Int, revoked: Int) {
        let stats = try oauth.stats()
        return (stats["refresh_requests"] ?? -1, stats["revoked_families"] ?? -1)
    }

    @Test("fleet: 2, 4 and 8 machines × 4 concurrent gets: one refresh request a round, one valid token everywhere")
    func fleetRounds() throws {
        let bao = try OpenBaoDevServer.shared()
        let oauth = try OAuthServer.shared()
        let mount = try bao.freshMount()
        defer { bao.dropMount(mount) }
        let machines = try fleet(8, bao, mount: mount, oauth, service: "fleet")
        defer { machines.forEach { $0.cleanUp() } }
        let perMachine = 4
        for count in [2, 4, 8] {
            let old = try importDue(machines[0], oauth, name: "gh")
            let before = try fleetCounts(oauth)
            let results = Mutex<[ToolResult?]>([])
            onThreads(count * perMachine) { index in
                let result = try? machines[index % count].start(["get", "gh"]).wait(seconds: Self.fleetTimeout)
                results.withLock { $0.append(result) }
            }
            let after = try fleetCounts(oauth)
            let all = results.withLock { $0 }
            #expect(
                after.refreshes - before.refreshes == 1,
                "\(count) machines: \(after.refreshes - before.refreshes) refresh requests")
            #expect(after.revoked == before.revoked, "\(count) machines: a rotated refresh token was reused")
            #expect(all.allSatisfy { $0?.status == 0 }, "\(count) machines: \(all.map { $0?.stderr ?? "timed out" })")
            let tokens = Set(all.map { $0?.stdoutText ?? "" })
            #expect(
                tokens.count == 1 && !tokens.contains(old) && !tokens.contains(""),
                "\(count) machines: \(tokens.count) tokens")
            if let token = tokens.first, tokens.count == 1 {
                #expect(try isValid(token, oauth), "\(count) machines: the printed token is not valid at the server")
            }
        }
    }

    /// A proxy in front of OpenBao that holds one request (Tests/fault-proxy.py, `hold`): the
    /// vault that sent it is then killed at a known step, with no hook in vault.
    struct StallProxy {
        let pid: Int32
        let address: String
        let marker: String

        init(upstream: String, method: String, suffix: String, when: String, folder: URL) throws {
            let port = try freeLoopbackPort()
            marker = folder.appendingPathComponent("held-\(port)").path
            let script = VaultRunner.packageRoot.appendingPathComponent("Tests/fault-proxy.py").path
            pid = try spawnChild(
                "/usr/bin/python3", [script, String(port), upstream, "hold", method, suffix, when, marker],
                environment: ["PATH": "/usr/bin:/bin"], input: .null)
            BackgroundProcesses.register(pid)
            address = "http://127.0.0.1:\(port)"
            guard waitForLoopbackPort(port, timeout: 30) else {
                throw OpenBaoTestError(description: "the stall proxy did not listen on 127.0.0.1:\(port)")
            }
        }

        /// Waits until the proxy holds its request.
        func waitHeld(seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if FileManager.default.fileExists(atPath: marker) { return true }
                usleep(10_000)
            }
            return false
        }

        func stop() { BackgroundProcesses.stop(pid) }
    }

    /// Where the next `get` runs after the holder was killed.
    enum Next { case sameMachine, otherMachine }

    /// SIGKILL the lease holder while the proxy holds one of its OpenBao requests, then `get` on
    /// the same or another machine: that get finishes the refresh with no login and no reuse, and
    /// a dead holder's lease holds the other machine up for its bound (7 s with VAULT_TIMEOUT=2),
    /// not longer.
    @Test(
        "fleet: a lease holder killed before the request, after the answer, between the two writes: the next get finishes the job",
        .timeLimit(.minutes(5)),
        arguments: [
            ("before the request", "lease", "POST", "after", Next.otherMachine, 1),
            ("after the answer and the journal", "companion", "POST", "before", Next.sameMachine, 1),
            ("between the two writes", "token", "POST", "before", Next.otherMachine, 2),
        ])
    func killedHolder(step: String, target: String, method: String, when: String, next: Next, requests: Int) throws {
        let bao = try OpenBaoDevServer.shared()
        let oauth = try OAuthServer.shared()
        let mount = try bao.freshMount()
        defer { bao.dropMount(mount) }
        let machines = try fleet(2, bao, mount: mount, oauth, service: "kill")
        defer { machines.forEach { $0.cleanUp() } }
        let old = try importDue(machines[0], oauth, name: "gh")
        let suffix = [
            "lease": "/data/vault/kill/_vault64_lease/gh", "companion": "/data/vault/kill/.vault-token/gh",
            "token": "/data/vault/kill/gh",
        ][target]!
        let proxy = try StallProxy(
            upstream: bao.address, method: method, suffix: suffix, when: when, folder: machines[0].directory)
        defer { proxy.stop() }
        let before = try fleetCounts(oauth)
        let holder = try machines[0].start(["get", "gh"], env: ["BAO_ADDR": proxy.address, "VAULT_TIMEOUT": "2"])
        let held = proxy.waitHeld(seconds: Self.fleetTimeout)
        holder.kill()
        let killed = try holder.wait(seconds: Self.fleetTimeout)
        try #require(held, "\(step): the holder never sent \(method) \(suffix): \(killed?.stderr ?? "")")
        #expect(killed?.stdout.isEmpty == true, "\(step): the killed holder printed a token")
        let started = Date()
        // The same machine names the store as its holder did (its lock and journal are keyed by
        // the store's address): through the proxy, which now forwards everything.
        let got =
            next == .sameMachine
            ? try machines[0].run(["get", "gh"], env: ["BAO_ADDR": proxy.address], timeout: Self.fleetTimeout)
            : try machines[1].run(["get", "gh"], timeout: Self.fleetTimeout)
        let waited = Date().timeIntervalSince(started)
        let after = try fleetCounts(oauth)
        got.expectSuccess()
        #expect(!got.stdout.isEmpty && got.stdoutText != old, "\(step): \(got.stderr)")
        #expect(
            after.refreshes - before.refreshes == requests, "\(step): \(after.refreshes - before.refreshes) requests")
        #expect(after.revoked == before.revoked, "\(step): a rotated refresh token was reused")
        #expect(try isValid(got.stdoutText, oauth), "\(step): the token printed is not valid at the server")
        // Every machine reads the same token from then on, with no further request.
        let again = try machines[1].run(["get", "gh"], timeout: Self.fleetTimeout)
        #expect(again.stdoutText == got.stdoutText, "\(step): \(again.stderr)")
        #expect(try fleetCounts(oauth).refreshes - before.refreshes == requests)
        print("fleet kill \(step): the next get on the \(next) took \(String(format: "%.2f", waited)) s")
    }
}
