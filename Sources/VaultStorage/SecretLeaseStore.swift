/// A store that several machines share and that can hold a refresh lease in itself, so that one
/// machine at a time refreshes a living token (docs/tokens.md, "One refresh at a time, across
/// machines").
///
/// Not part of ``SecretStore``: a `flock` coordinates the processes of one machine, which is all
/// a local store (a vault file, a session keyring) is shared by. A store shared through a server
/// offers this when it has a check-and-set write, as OpenBao's KV v2 has (`options.cas`).
public protocol SecretLeaseStore: SecretStore {
    /// The refresh lease of the living token `name`, as stored now.
    func readLease(_ name: SecretName) throws(VaultError) -> StoredRefreshLease

    /// Replaces the lease of `name` with `holder` (nil: released) if it is still at `version`
    /// (check-and-set); returns the new version, or nil when another machine wrote it first.
    func writeLease(_ name: SecretName, _ holder: RefreshLeaseHolder?, ifVersion version: Int) throws(VaultError)
        -> Int?

    /// Returns the secret with its version (for ``write(_:ifVersion:)``), or nil if there is none.
    func readVersioned(_ name: SecretName) throws(VaultError) -> (record: SecretRecord, version: Int)?

    /// Writes `record` if the secret is still at `version` (0: absent); false when another machine
    /// wrote it first. The value alone: the secret keeps the metadata it had.
    func write(_ record: SecretRecord, ifVersion version: Int) throws(VaultError) -> Bool
}

/// Who holds a refresh lease, and until when.
public struct RefreshLeaseHolder: Equatable, Sendable {
    /// A random identifier of the holding process.
    public var holder: String
    /// Identifies the refresh lock the holder took first (a machine's `flock`): a process of the
    /// same site that holds that lock knows the holder is gone.
    public var site: String
    /// When the lease ends, in milliseconds since the Unix epoch, by the holder's clock.
    public var expires: Int64

    public init(holder: String, site: String, expires: Int64) {
        self.holder = holder
        self.site = site
        self.expires = expires
    }
}

/// A lease as read from the store: its version (0: never written) and its holder (nil: free).
public struct StoredRefreshLease: Equatable, Sendable {
    public var version: Int
    public var holder: RefreshLeaseHolder?

    public init(version: Int, holder: RefreshLeaseHolder?) {
        self.version = version
        self.holder = holder
    }
}
