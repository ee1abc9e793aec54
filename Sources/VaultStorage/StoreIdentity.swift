/// What tells two stores apart: for refusing to migrate or fall back from a store to itself, and
/// for naming a store in what this machine records about it (refresh approvals).
///
/// Each backend makes its own (``FileStore``, ``OpenBaoSettings``, ``SecretServiceStore``), so
/// nothing above the storage edge needs to know which backend a store is.
public struct StoreIdentity: Sendable {
    /// The name records on this machine are filed under (``RefreshApproval``): `file
    /// CANONICAL-PATH`, `openbao ADDRESSES... mount MOUNT`, `secret-service`. Records already on
    /// users' disks are named after it, so a backend's key never changes.
    public let recordKey: String
    /// Every name the store answers to: two identities that share one are the same store (an
    /// OpenBao mount is the same through any of its cluster's addresses).
    let aliases: Set<String>

    /// A store named by `recordKey` alone, or also by `aliases`.
    package init(recordKey: String, aliases: Set<String> = []) {
        self.recordKey = recordKey
        self.aliases = aliases.union([recordKey])
    }
}

extension StoreIdentity: Equatable {
    /// The same store: the two share a name.
    public static func == (lhs: StoreIdentity, rhs: StoreIdentity) -> Bool {
        !lhs.aliases.isDisjoint(with: rhs.aliases)
    }
}
