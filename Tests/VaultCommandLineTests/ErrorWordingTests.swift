import Testing
import VaultCore

@testable import vault

/// The tool words what the library gives as data: the input an error is about by its flag or
/// variable, and the remedy by the flags that do it.
@Suite("Error wording")
struct ErrorWordingTests {
    @Test("the input is named by its flag or variable, before the library's message")
    func inputs() {
        let cases: [(VaultError.Input, String, String)] = [
            (.backend, "is 'x'; use auto", "--backend is 'x'; use auto"),
            (.variable("VAULT_FALLBACK"), "is 'x'", "VAULT_FALLBACK is 'x'"),
            (.migrationSource, "is 'x'", "--from is 'x'"),
            (.migrationDestination, "'file:' needs a path", "--to 'file:' needs a path"),
            (
                .migrationStores(source: "file", destination: "file:a"), "are the same store",
                "--from file and --to file:a are the same store"
            ),
            (.recipient(number: nil), "was given an age secret key", "--recipient was given an age secret key"),
            (.recipient(number: 2), "is not an age public key", "--recipient number 2 is not an age public key"),
            (.binding(number: 3), "the part before '='", "--env number 3: the part before '='"),
            (.passphrase, "needs VAULT_PASSPHRASE", "--passphrase needs VAULT_PASSPHRASE"),
        ]
        for (input, message, line) in cases {
            #expect(VaultError(.usage, message, input: input).wording == line)
        }
    }

    @Test("the remedy follows the message; an error about no input is its message")
    func remedies() {
        #expect(VaultError(.expired, "'a' expired").wording == "'a' expired")
        #expect(
            VaultError(.expired, "'a' expired", remedy: .allowExpired).wording
                == "'a' expired; set a new value, or use --allow-expired")
    }
}
