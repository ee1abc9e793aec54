import Testing
import VaultCore

@testable import vault

/// `doctor` prints the reason `resolvedBackend` gives, instead of working out `auto` again.
/// The same lines are checked against the built binary in EndToEndTests' DoctorReasonTests.
@Suite("Doctor: the chosen backend's reason")
struct DoctorReasonTests {
    /// No DBUS_SESSION_BUS_ADDRESS and no XDG_RUNTIME_DIR: no bus is reached, so `auto` finds no
    /// Secret Service without asking anyone.
    static let cases: [(GlobalOptions, [String: String], String)] = [
        (GlobalOptions(), [:], "chosen: file (auto: no Secret Service, so the file)"),
        (
            GlobalOptions(), ["VAULT_FILE": "/nowhere/v.age"],
            "chosen: file (auto: a vault file was named (--file or VAULT_FILE))"
        ),
        (
            GlobalOptions(file: "/nowhere/v.age"), [:],
            "chosen: file (auto: a vault file was named (--file or VAULT_FILE))"
        ),
        (GlobalOptions(backend: "file"), [:], "chosen: file (--backend file)"),
        (GlobalOptions(), ["VAULT_BACKEND": "file"], "chosen: file (VAULT_BACKEND=file)"),
        (GlobalOptions(backend: "openbao"), [:], "chosen: openbao (--backend openbao)"),
    ]

    @Test("resolvedBackend's reason is the one doctor prints", arguments: 0..<cases.count)
    func sameReason(index: Int) throws {
        let (options, extra, line) = Self.cases[index]
        let environment = ["HOME": "/nowhere/home"].merging(extra) { $1 }
        let factory = StoreFactory(options: options, environment: environment, prompt: nil)
        let resolved = try factory.resolvedBackend()
        let report = try Diagnosis(factory: factory)
        #expect(report.chosen == resolved.kind)
        #expect(report.reason == resolved.reason)
        #expect(report.chosenLine == line)
        #expect("chosen: \(resolved.kind.rawValue) (\(resolved.reason.wording))" == line)
    }
}
