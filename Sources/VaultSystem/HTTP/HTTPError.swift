package import VaultStorage

/// Why an HTTP request got no response. It names the server, never a header or the body.
package struct HTTPError: Error, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// No connection: refused, unreachable, name not resolved, proxy failed.
        case connect
        /// The deadline passed (also a server that accepts and never answers).
        case timeout
        /// TLS: handshake failed, certificate not trusted, CA file unusable.
        case tls
        /// The connection broke, or the answer was not HTTP.
        case exchange
        /// The response body is larger than the client accepts.
        case tooLarge
        /// The request cannot be sent: not an http(s) URL, malformed.
        case request
        /// libcurl cannot be loaded.
        case library
    }

    package var kind: Kind
    /// `scheme://host:port` of the server.
    package var server: String
    /// libcurl's reason, e.g. "Failed to connect to 127.0.0.1 port 1: Connection refused".
    package var reason: String

    /// Whether the connection had been made (curl's connect time): a timeout after it is a server
    /// that does not answer, before it one that did not accept the connection.
    package var connected: Bool

    package init(_ kind: Kind, server: String, reason: String, connected: Bool = false) {
        self.kind = kind
        self.server = server
        self.reason = reason
        self.connected = connected
    }

    /// Whether another node might answer: the connection never carried a request.
    package var isConnectionFailure: Bool { kind == .connect }

    /// The library's error: `.unavailable` (exit 5) except for a request that cannot be made
    /// (`.usage`).
    package var vaultError: VaultError {
        switch kind {
        case .connect: VaultError(.unavailable, "cannot reach \(server): \(reason)")
        case .timeout: VaultError(.unavailable, "\(server) did not answer in time (VAULT_TIMEOUT): \(reason)")
        case .tls: VaultError(.unavailable, "TLS with \(server) failed: \(reason)")
        case .exchange: VaultError(.unavailable, "the exchange with \(server) failed: \(reason)")
        case .tooLarge: VaultError(.unavailable, "\(server) sent a response larger than vault accepts")
        case .request: VaultError(.usage, "cannot send a request to \(server): \(reason)")
        case .library: VaultError(.unavailable, reason)
        }
    }
}
