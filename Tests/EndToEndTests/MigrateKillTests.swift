import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// `vault migrate` killed with SIGKILL at points spread over its run, then run again.
@Suite("Migrate command, killed and run again")
struct MigrateKillTests {
    static let secretCount = 200
    static let killPoints = 15

    @Test("after kill -9 at any point, the same command finishes: every secret once, none lost")
    func killedAnywhere() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let identity = X25519Identity.generate()
        vault.environment["VAULT_IDENTITY"] = identity.encoded
        let secrets = VaultFile.samples(count: Self.secretCount)
        let source = vault.path("source.age")
        try VaultFile.write(secrets, to: source, identity: identity)
        let original = try #require(FileManager.default.contents(atPath: source))

        // Each attempt starts from the same files: the original source, no destination.
        func reset(_ attempt: Int) throws -> (source: String, destination: String, arguments: [String]) {
            let directory = vault.path("attempt-\(attempt)")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try original.write(to: URL(fileURLWithPath: directory + "/source.age"))
            let arguments = ["migrate", "--from", "file:\(directory)/source.age", "--to", "file:\(directory)/dest.age"]
            return (directory + "/source.age", directory + "/dest.age", arguments)
        }

        // The run time without a kill (the shortest of three) decides where the kill points fall.
        var runTime = TimeInterval.infinity
        for run in 1...3 {
            let timing = try reset(-run)
            let started = Date()
            #expect(try Self.runAndKill(vault, timing.arguments, after: nil))
            runTime = min(runTime, Date().timeIntervalSince(started))
            #expect(try VaultFile.read(timing.destination, identity: identity) == secrets)
        }

        var states: [String: Int] = [:]
        for point in 0..<Self.killPoints {
            let attempt = try reset(point)
            let delay = runTime * Double(point) / Double(Self.killPoints)
            let finished = try Self.runAndKill(vault, attempt.arguments, after: delay)

            let left = try VaultFile.read(attempt.source, identity: identity)
            let arrived = try VaultFile.read(attempt.destination, identity: identity)
            for (key, secret) in secrets {
                #expect(left[key] == secret || arrived[key] == secret, "kill at \(delay) s lost \(key)")
            }
            let state =
                "\(finished ? "finished" : "killed"): \(left.count) in the source, \(arrived.count) in the destination"
            states[state, default: 0] += 1

            let rerun = try vault.run(attempt.arguments)
            rerun.expectSuccess()
            #expect(
                try VaultFile.read(attempt.destination, identity: identity) == secrets, "after a kill at \(delay) s")
            #expect(try VaultFile.read(attempt.source, identity: identity).isEmpty, "after a kill at \(delay) s")
        }
        let seen = states.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: ", ")
        print("migrate of \(Self.secretCount) secrets took \(runTime) s; the kills left: \(seen)")
    }

    /// Starts `vault` with `arguments`, sends SIGKILL after `delay` seconds (never if nil) and
    /// waits for it. Returns whether it had finished with exit status 0 before the signal.
    static func runAndKill(_ vault: VaultRunner, _ arguments: [String], after delay: TimeInterval?) throws -> Bool {
        let pid = try spawnChild(VaultRunner.binary, arguments, environment: vault.environment, input: .null)
        if let delay {
            if delay > 0 { usleep(useconds_t(delay * 1_000_000)) }
            kill(pid, SIGKILL)
        }
        return waitChild(pid) == 0
    }
}
