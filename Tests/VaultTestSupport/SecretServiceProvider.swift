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
/// storage", for vault and secret-tool alike, and a `CreateItem` whose secret kwalletd 5.103
/// cannot decrypt with the session's key is answered "Can't find session PATH"
/// (kwalletfreedesktopcollection.cpp; upstream fixed the key mismatch with libsecret in
/// 307db626, 2026). vault retries once with a fresh session; the tests
/// run the clients that do not (secret-tool, python3-keyring) through ``runSecretServiceClient``,
/// which tries up to three times. Failures in a row stay possible, so on KWallet an issue that
/// itself shows one of the messages (an error thrown with it, or an expectation whose comment
/// carries it, such as a client's stderr) is reported as an intermittent known issue. Exactly
/// that: any other issue fails as usual, in the same test case too, so a check must carry the
/// message (or end the case, as `#require` does) where a failed exchange leads to it.
public struct KWalletSessionFlakes: SuiteTrait, TestTrait, TestScoping {
    public static let messages = [
        "Client public key size is invalid", "Received invalid secret from the secret storage",
        "Can't find session /org/freedesktop/secrets/session/",
    ]

    public var isRecursive: Bool { true }

    /// Whether `text` shows KWallet's failed key exchange.
    public static func shows(_ text: String) -> Bool { messages.contains { text.contains($0) } }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil, SecretServiceProvider.current == .kwallet else { return try await function() }
        try await Testing.withKnownIssue(
            "KWallet's session key exchange failed (in three tries of a client, or twice in a row in vault)",
            isIntermittent: true
        ) {
            try await function()
        } matching: { issue in
            Self.shows(([String(describing: issue)] + issue.comments.map(\.rawValue)).joined(separator: "\n"))
        }
    }
}

/// Runs a Secret Service client that does not retry KWallet's failed key exchanges itself
/// (secret-tool, python3-keyring): on KWallet, a run whose stderr shows one is repeated, at most
/// three runs in all. The calls the tests make this way are idempotent (store, lookup, search).
public func runSecretServiceClient(
    _ path: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil,
    timeout: Double = defaultToolTimeout
) throws -> ToolResult {
    var result = try runTool(path, arguments, input: input, environment: environment, timeout: timeout)
    var runs = 1
    while SecretServiceProvider.current == .kwallet, runs < 3, result.status != 0,
        KWalletSessionFlakes.shows(result.stderr)
    {
        result = try runTool(path, arguments, input: input, environment: environment, timeout: timeout)
        runs += 1
    }
    return result
}

extension Trait where Self == KWalletSessionFlakes {
    /// See ``KWalletSessionFlakes``.
    public static var kwalletSessionFlakes: Self { Self() }
}
