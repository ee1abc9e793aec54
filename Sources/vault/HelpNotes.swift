import VaultCore

/// What a command's help adds about the store in use: facts the library finds, worded here.
enum HelpNotes {
    /// The note for the command named `command`, or nil. `factory` is called only for a command
    /// whose note depends on the store (it may ask the session bus).
    static func note(for command: String, factory: () -> StoreFactory) -> String? {
        switch command {
        case "rm":
            guard factory().deletedSecretsMayBeKept() else { return nil }
            return "The Secret Service here is KeePassXC: rm moves entries to the database's Recycle Bin (when it "
                + "is on), so a removed value stays in the database until the bin is emptied.\n"
        default:
            return nil
        }
    }
}
