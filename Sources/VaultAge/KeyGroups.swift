/// Keys handled together: the recipients (identities) of one ``AgeRecipient/group``
/// (``AgeIdentity/group``) go to their type in one call, so that the keys of one age plugin share
/// one run of the plugin, as C2SP age-plugin.md intends: one PIN or touch for a hardware key that
/// holds several identities, not one per key.
///
/// The file format code stays free of kinds: it asks each key for its group and hands the members
/// to the key's own type. A group takes the place of its first member; keys without a group keep
/// theirs, so identities are still tried in the order given.
enum KeyGroups {
    /// The file key wrapped for every recipient, a group at a time.
    static func wrap(_ fileKey: FileKey, for recipients: [any AgeRecipient]) throws(AgeError) -> [Stanza] {
        var taken = [Bool](repeating: false, count: recipients.count)
        var stanzas: [Stanza] = []
        for index in recipients.indices where !taken[index] {
            stanzas += try wrap(fileKey, first: recipients[index], at: index, of: recipients, taken: &taken)
        }
        return stanzas
    }

    /// The file key from the first group of identities that unwraps it; nil when none does.
    static func unwrap(_ stanzas: [Stanza], with identities: [any AgeIdentity]) throws(AgeError) -> FileKey? {
        var taken = [Bool](repeating: false, count: identities.count)
        for index in identities.indices where !taken[index] {
            if let fileKey = try unwrap(stanzas, first: identities[index], at: index, of: identities, taken: &taken) {
                return fileKey
            }
        }
        return nil
    }

    // Generic over the key's type (Swift opens the existential), so the group goes to that
    // type's own `wrap(_:for:)` and `unwrap(_:with:)`.
    private static func wrap<Recipient: AgeRecipient>(
        _ fileKey: FileKey, first: Recipient, at index: Int, of all: [any AgeRecipient], taken: inout [Bool]
    ) throws(AgeError) -> [Stanza] {
        try Recipient.wrap(fileKey, for: members(of: first, at: index, in: all, group: \.group, taken: &taken))
    }

    private static func unwrap<Identity: AgeIdentity>(
        _ stanzas: [Stanza], first: Identity, at index: Int, of all: [any AgeIdentity], taken: inout [Bool]
    ) throws(AgeError) -> FileKey? {
        try Identity.unwrap(stanzas, with: members(of: first, at: index, in: all, group: \.group, taken: &taken))
    }

    /// `first` (at `index` of `all`) and the later keys of its type and group, all marked taken;
    /// `first` alone when it has no group.
    private static func members<Element, Key>(
        of first: Key, at index: Int, in all: [Element], group: (Key) -> String?, taken: inout [Bool]
    ) -> [Key] {
        taken[index] = true
        guard let name = group(first) else { return [first] }
        var members = [first]
        for later in all.indices.dropFirst(index + 1) where !taken[later] {
            if let key = all[later] as? Key, group(key) == name {
                members.append(key)
                taken[later] = true
            }
        }
        return members
    }
}
