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

        var attempts = 0
        let landed = try Self.killSpread(over: runTime, points: Self.killPoints) { delay in
            attempts += 1
            let attempt = try reset(attempts)
            let finished = try Self.runAndKill(vault, attempt.arguments, after: delay)

            let left = try VaultFile.read(attempt.source, identity: identity)
            let arrived = try VaultFile.read(attempt.destination, identity: identity)
            for (key, secret) in secrets {
                #expect(left[key] == secret || arrived[key] == secret, "kill at \(delay) s lost \(key)")
            }

            let rerun = try vault.run(attempt.arguments)
            rerun.expectSuccess()
            #expect(
                try VaultFile.read(attempt.destination, identity: identity) == secrets, "after a kill at \(delay) s")
            #expect(try VaultFile.read(attempt.source, identity: identity).isEmpty, "after a kill at \(delay) s")
            return Landing(finished: finished, left: left.count, arrived: arrived.count)
        }
        print("migrate of \(Self.secretCount) secrets took \(runTime) s; the kills landed: \(Landing.describe(landed))")
        #expect(landed[.midway, default: 0] > 0, "no kill landed midway: \(Landing.describe(landed))")
    }

    /// Where a kill landed in a migration, told by what each side holds after it.
    enum Landing: String, CaseIterable {
        case beforeCopy = "before any secret arrived"
        case midway = "midway (secrets in both)"
        case afterRemoval = "after the source was emptied"
        case finished = "after the command finished"

        init(finished: Bool, left: Int, arrived: Int) {
            if finished {
                self = .finished
            } else if arrived == 0 {
                self = .beforeCopy
            } else {
                self = left > 0 ? .midway : .afterRemoval
            }
        }

        static func describe(_ tally: [Landing: Int]) -> String {
            allCases.compactMap { landing in tally[landing].map { "\($0)× \(landing.rawValue)" } }
                .joined(separator: ", ")
        }
    }

    /// Runs `attempt` (one kill after the given delay) at `points` delays spread over `runTime`;
    /// then, while no kill has landed midway, at the delay halfway between the latest that landed
    /// before any copy and the earliest that landed after the copies, at most `searches` times,
    /// so that a machine slower or faster than the timing run still gets a kill in the middle.
    /// Returns how many kills landed where.
    static func killSpread(
        over runTime: TimeInterval, points: Int, searches: Int = 8, _ attempt: (TimeInterval) throws -> Landing
    ) throws -> [Landing: Int] {
        var tally: [Landing: Int] = [:]
        var early = 0.0
        var late = 2 * runTime
        func kill(after delay: TimeInterval) throws {
            let landing = try attempt(delay)
            tally[landing, default: 0] += 1
            switch landing {
            case .beforeCopy: early = max(early, delay)
            case .afterRemoval, .finished: late = min(late, delay)
            case .midway: break
            }
        }
        for point in 0..<points { try kill(after: runTime * Double(point) / Double(points)) }
        for _ in 0..<searches where tally[.midway] == nil { try kill(after: (early + late) / 2) }
        return tally
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
