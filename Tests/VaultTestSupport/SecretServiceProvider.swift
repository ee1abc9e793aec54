import Foundation
public import Testing

/// The program that provides the Secret Service the tests run against.
///
/// `make test` runs the whole suite on GNOME Keyring (Tests/with-keyring.sh), then the Secret
/// Service suites again on KeePassXC (Tests/with-keepassxc.sh) and on KWallet
/// (Tests/with-kwallet.sh); those scripts name theirs in VAULT_TEST_PROVIDER.
public enum SecretServiceProvider: String, Sendable, CaseIterable {
    case gnomeKeyring = "gnome-keyring"
    case keepassxc
    case kwallet

    /// VAULT_TEST_PROVIDER; GNOME Keyring when it is unset.
    public static let current: SecretServiceProvider = {
        let name = ProcessInfo.processInfo.environment["VAULT_TEST_PROVIDER"] ?? ""
        if name.isEmpty { return .gnomeKeyring }
        guard let provider = SecretServiceProvider(rawValue: name) else {
            let known = allCases.map(\.rawValue).joined(separator: ", ")
            fatalError("VAULT_TEST_PROVIDER is '\(name)'; use one of \(known)")
        }
        return provider
    }()
}

/// KWallet's session key exchange fails now and then (issue 12, item 6): about 1 call in 100
/// ends in "Client public key size is invalid" or "Received invalid secret from the secret
/// storage", for vault and secret-tool alike. vault retries once with a fresh session; the other
/// clients the tests use (secret-tool, python3-keyring) do not, and two failures in a row stay
/// possible. A test case on KWallet in which that message appears reports it, and what follows
/// from it in the same case, as an intermittent known issue; a case without it fails as usual.
public struct KWalletSessionFlakes: SuiteTrait, TestTrait, TestScoping {
    public static let messages = [
        "Client public key size is invalid", "Received invalid secret from the secret storage",
    ]

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil, SecretServiceProvider.current == .kwallet else { return try await function() }
        let seen = Seen()
        try await Testing.withKnownIssue(
            "KWallet's session key exchange failed (a client that does not retry, or twice in a row)",
            isIntermittent: true
        ) {
            try await function()
        } matching: { issue in
            let text = ([String(describing: issue)] + issue.comments.map(\.rawValue)).joined(separator: "\n")
            return seen.update(Self.messages.contains { text.contains($0) })
        }
    }

    /// Whether the message has appeared in this test case; the matcher is called from any thread.
    private final class Seen: @unchecked Sendable {
        // @unchecked: `appeared` is only read and written with `lock` held.
        private let lock = NSLock()
        private var appeared = false

        /// Records whether this issue shows the message; true if it or an earlier one did.
        func update(_ shows: Bool) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            appeared = appeared || shows
            return appeared
        }
    }
}

extension Trait where Self == KWalletSessionFlakes {
    /// See ``KWalletSessionFlakes``.
    public static var kwalletSessionFlakes: Self { Self() }
}
