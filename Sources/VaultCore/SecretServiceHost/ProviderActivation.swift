public import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The D-Bus activation files for the Secret Service that a user's session bus reads, and the one
/// vault writes (`vault secret-service enable` and `disable`).
///
/// A session bus looks for activation files in `$XDG_RUNTIME_DIR/dbus-1/services`,
/// `$XDG_DATA_HOME/dbus-1/services` (the user's folders), then in each `$XDG_DATA_DIRS` entry's
/// `dbus-1/services` (the system's), and the first folder wins for a file name. vault writes
/// `org.freedesktop.secrets.service` in the user's data folder, so that for this user it overrides
/// a provider the system has installed (GNOME Keyring's, in `/usr/share`) without touching it.
/// Another provider "installed for the user" is one in the user's own folders: a choice the user
/// made, which vault replaces only when forced; a system-wide one is a package that only starts
/// when asked, which vault's file overrides for this user alone (enable names it).
public struct ProviderActivation: Sendable {
    /// Where vault writes its activation file: `$XDG_DATA_HOME/dbus-1/services`.
    public let userFolder: String
    /// The user's other folder the bus reads first: `$XDG_RUNTIME_DIR/dbus-1/services`, if set.
    public let runtimeFolder: String?
    /// The system's folders: each `$XDG_DATA_DIRS` entry's `dbus-1/services`.
    public let systemFolders: [String]

    public init(userFolder: String, runtimeFolder: String?, systemFolders: [String]) {
        self.userFolder = userFolder
        self.runtimeFolder = runtimeFolder
        self.systemFolders = systemFolders
    }

    /// The path of vault's activation file.
    public var path: String { userFolder + "/" + ProviderLaunch.fileName }

    /// What an activation file for the Secret Service is.
    public struct Found: Sendable, Equatable {
        public let path: String
        /// Its `Exec` line.
        public let exec: String
        /// Whether vault wrote it (it starts with ``ProviderLaunch/marker``).
        public let isVaults: Bool
        /// Whether it lies in the user's own folders (else the system's).
        public let isUsers: Bool
    }

    /// Every activation file for the Secret Service the bus would read, the user's first.
    public func found() -> [Found] {
        let user = [runtimeFolder, userFolder].compactMap { $0 }
        return (user + systemFolders).flatMap { folder in
            Self.serviceFiles(in: folder).compactMap { Self.read($0, isUsers: user.contains(folder)) }
        }
    }

    /// vault's own activation file, if there is one.
    public func vaults() -> Found? { Self.read(path, isUsers: true).flatMap { $0.isVaults ? $0 : nil } }

    /// What ``enable(_:force:)`` did.
    public struct Enabled: Sendable {
        /// A file of another provider's that was in the way, kept under another name (forced).
        public var setAside: String?
        /// Providers the system installed, which vault's file overrides for this user.
        public var overridden: [Found] = []
        /// Other activation files of the user's for the name, left alone (forced).
        public var competing: [Found] = []
    }

    /// Writes vault's activation file for `launch`. A file of another provider's in the user's
    /// folders is refused (`.conflict`), unless `force`: then one of vault's name is kept as
    /// `NAME.before-vault` (``disable()`` puts it back) and others are left where they are.
    public func enable(_ launch: ProviderLaunch, force: Bool) throws(VaultError) -> Enabled {
        var result = Enabled()
        let others = found().filter { !$0.isVaults }
        result.overridden = others.filter { !$0.isUsers }
        let users = others.filter(\.isUsers)
        if let first = users.first, !force {
            throw VaultError(
                .conflict,
                "another Secret Service provider is installed for this user (\(first.path) starts \(first.exec))",
                remedy: .replaceProvider)
        }
        if users.contains(where: { $0.path == path }) {
            let aside = path + ".before-vault"
            try syscall("keep \(path) as \(aside)") { rename(path, aside) }
            result.setAside = aside
        }
        result.competing = users.filter { $0.path != path }
        try FileSystem.makeDirectories(userFolder)
        try FileSystem.writeAtomically(
            Array(launch.activationFile.utf8), directory: userFolder, name: ProviderLaunch.fileName)
        return result
    }

    /// What ``disable()`` did.
    public enum Disabled: Sendable, Equatable {
        /// vault's file was removed; `restored` names the other provider's file put back, if any.
        case removed(restored: String?)
        /// There was no file of vault's: nothing was touched.
        case none
    }

    /// Removes vault's activation file, and puts back the file ``enable(_:force:)`` set aside.
    /// A file vault did not write is never removed.
    public func disable() throws(VaultError) -> Disabled {
        guard vaults() != nil else { return .none }
        try syscall("remove \(path)") { unlink(path) }
        let aside = path + ".before-vault"
        guard FileSystem.exists(aside) else { return .removed(restored: nil) }
        try syscall("put \(aside) back as \(path)") { rename(aside, path) }
        return .removed(restored: path)
    }

    /// The `*.service` files directly in `folder`, sorted.
    private static func serviceFiles(in folder: String) -> [String] {
        ((try? FileSystem.entries(of: folder)) ?? nil ?? []).filter { $0.hasSuffix(".service") }.sorted()
            .map { folder + "/" + $0 }
    }

    /// The file at `path` if it is an activation file for the Secret Service.
    private static func read(_ path: String, isUsers: Bool) -> Found? {
        guard let bytes = (try? FileSystem.readRegularFile(path, limit: 65_536)) ?? nil else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: " \t") }
        guard lines.contains("Name=\(ProviderLaunch.busName)") else { return nil }
        let exec = lines.first { $0.hasPrefix("Exec=") }.map { String($0.dropFirst(5)) } ?? ""
        return Found(path: path, exec: exec, isVaults: lines.first == ProviderLaunch.marker, isUsers: isUsers)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
