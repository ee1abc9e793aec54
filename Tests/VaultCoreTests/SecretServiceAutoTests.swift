import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore
@testable import VaultStorage

/// `auto` and a Secret Service that is there but cannot be used: it is still the Secret Service.
@Suite("Secret Service: auto with a locked keyring")
struct SecretServiceAutoTests {
    @Test("a locked keyring is exit 4 under auto, with --backend secret-service's message; no file appears")
    func lockedIsNotAbsent() async throws {
        try requireKeyringComponent(PrivateBus.missingTools(for: .keyring(password: "")))
        let bus = try PrivateBus(.keyring(password: "vault-test-auto"))
        defer { bus.stop() }
        try bus.storeAndLock(service: "vault-test-auto", account: "present")

        let home = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(home) }
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            [address = bus.address as String, home = home.path as String] in
            setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
            let environment = [
                "DBUS_SESSION_BUS_ADDRESS": address, "HOME": home, "VAULT_PASSPHRASE": "x", "VAULT_TIMEOUT": "5",
            ]
            let auto = StoreFactory(options: GlobalOptions(), environment: environment, prompt: nil)
            let chosen = StoreFactory(
                options: GlobalOptions(backend: "secret-service"), environment: environment, prompt: nil)
            var ok = true
            func check(_ what: String, _ condition: Bool, _ detail: String = "") {
                print("\(condition ? "ok" : "FAIL") \(what) \(detail)")
                ok = ok && condition
            }
            check("auto resolves to secret-service", (try? auto.resolvedBackend())?.kind == .secretService)
            let present = try SecretName(service: "vault-test-auto", account: "present")
            let absent = try SecretName(service: "vault-test-auto", account: "absent")
            let record = SecretRecord(
                name: absent, value: [1], metadata: SecretMetadata(created: .now(), updated: .now()))
            let operations: [(String, (any SecretStore) throws -> Void)] = [
                ("get", { _ = try $0.read(present) }),
                ("ls", { _ = try $0.list(service: nil) }),
                ("set", { try $0.write(record) }),
            ]
            for (what, body) in operations {
                let viaAuto = Self.failure { try body(try auto.makeStore()) }
                let viaFlag = Self.failure { try body(try chosen.makeStore()) }
                check(
                    "\(what) under auto is .cannotUnlock", viaAuto?.code == .cannotUnlock,
                    "\(String(describing: viaAuto))")
                check(
                    "\(what): the same message as --backend secret-service", viaAuto == viaFlag,
                    "\(String(describing: viaFlag))")
            }
            check(
                "no vault file was created",
                !FileManager.default.fileExists(atPath: home + "/.local/share/vault/vault.age"))
            if let report = try? Diagnosis(factory: auto) {
                check("doctor chooses secret-service", report.chosen == .secretService)
                check("doctor says why", report.reason == .secretServiceUnusable, "\(report.reason)")
                let problem = report.backends.first { $0.kind == .secretService }?.problem?.message ?? ""
                check("doctor says it is locked", problem.contains("locked"), problem)
            } else {
                check("doctor runs", false)
            }
            exit(ok ? 0 : 1)
        }
        ChildCheck.report(result)
    }

    private static func failure(_ body: () throws -> Void) -> VaultError? {
        do {
            try body()
            return nil
        } catch {
            return error as? VaultError ?? VaultError(.other, "\(error)")
        }
    }
}
