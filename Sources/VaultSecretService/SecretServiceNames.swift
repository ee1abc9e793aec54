/// Names the Secret Service API fixes (specifications.freedesktop.org/secret-service), for its
/// clients (this backend, `vault unlock`) and its provider (`vault secret-service serve`) alike.
package enum SecretServiceNames {
    /// The well-known name the provider owns on the session bus.
    package static let bus = "org.freedesktop.secrets"
}
