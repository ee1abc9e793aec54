import Foundation
import Testing
import VaultTestSupport

/// `vault doctor` makes a real round trip: a provider that answers but cannot hand over secrets
/// is reported as unusable, with its own problem in plain words.
@Suite("Secret Service: doctor's round trip")
struct SecretServiceDoctorTests {
    @Test("KWallet without QCA's OpenSSL plug-in: doctor says unusable and why (exit 5)")
    func kwalletWithoutEncryption() throws {
        try requireComponent(findExecutable("kwalletd5") == nil ? "kwalletd5 is not installed" : nil)
        try requireComponent(findExecutable("unshare") == nil ? "unshare (util-linux) is not installed" : nil)
        // Tests/with-kwallet.sh hides the plug-in in a mount namespace of kwalletd's own.
        let namespaces = try runTool("/usr/bin/env", ["unshare", "--mount", "--propagation", "private", "true"])
        try requireComponent(namespaces.status == 0 ? nil : "no mount namespaces here (unshare --mount needs root)")
        let script = """
            set -u
            "$VAULT_BINARY" doctor >"$OUT/doctor.out" 2>"$OUT/doctor.err"; echo "$?" >"$OUT/doctor.status"
            printf v | "$VAULT_BINARY" --backend secret-service set a 2>"$OUT/set.err"; echo "$?" >"$OUT/set.status"
            """
        let run = try HarnessScript(
            ["Tests/with-kwallet.sh"], script: script, environment: ["VAULT_TEST_KWALLET_WITHOUT_QCA_OSSL": "1"],
            unset: ["VAULT_FILE", "VAULT_BACKEND", "DISPLAY"])
        defer { run.cleanUp() }
        let read = run.read
        let report = read("doctor.out")
        let line = report.split(separator: "\n").first { $0.hasPrefix("secret-service") }.map(String.init) ?? ""
        #expect(read("doctor.status") == "5", "\(report)\n\(read("doctor.err"))")
        #expect(line.contains("unusable"), "\(report)")
        #expect(line.contains("QCA's OpenSSL plug-in"), "\(report)")
        #expect(line.contains("install libqca-qt5-2-plugins"), "\(report)")
        #expect(line.contains("provider: KWallet"), "\(report)")
        #expect(!report.contains("createDLGroup"), "KWallet's internal words reach the user: \(report)")
        #expect(read("set.status") == "5", "\(read("set.err"))")
        #expect(read("set.err").contains("QCA's OpenSSL plug-in"), "\(read("set.err"))")
    }
}
