import VaultSystem

/// The program behind the Secret Service, known by its process name.
///
/// Providers differ in ways a user must hear about (KeePassXC asks to approve access and keeps
/// deleted entries in its Recycle Bin; KWallet writes its file on a timer), so `vault doctor`
/// names the one that answers.
package enum SecretServiceProvider: Equatable, Sendable {
    case gnomeKeyring
    case keePassXC
    /// KWallet, by its daemon's name (`kwalletd5`, `kwalletd6`), which is also its D-Bus name.
    case kWallet(String)
    /// vault's own provider (`vault secret-service serve`), by its program's path.
    case vault(String)
    /// Another program, by its process name.
    case other(String)

    /// The provider whose process has this name (`/proc/PID/comm`, at most 15 bytes).
    init(processName: String) {
        switch processName {
        case "gnome-keyring-d", "gnome-keyring-daemon": self = .gnomeKeyring
        case "keepassxc": self = .keePassXC
        case "kwalletd5", "kwalletd6": self = .kWallet(processName)
        default: self = .other(processName)
        }
    }

    /// The provider whose process id is `pid`, or nil if it cannot be read.
    init?(pid: UInt32) {
        guard pid > 0, let bytes = try? FileSystem.read("/proc/\(pid)/comm", limit: 256) else { return nil }
        let name = String(decoding: bytes, as: UTF8.self).filter { !$0.isNewline }
        guard !name.isEmpty else { return nil }
        if name == "vault", let program = try? FileSystem.resolvingLink("/proc/\(pid)/exe") {
            self = .vault(program)
            return
        }
        self.init(processName: name)
    }

    /// Whether it is vault's own provider.
    package var isVault: Bool {
        if case .vault = self { return true }
        return false
    }

    /// Its name for people.
    package var name: String {
        switch self {
        case .gnomeKeyring: return "GNOME Keyring"
        case .keePassXC: return "KeePassXC"
        case .kWallet: return "KWallet"
        case .vault(let program): return "vault (\(program))"
        case .other(let process): return process
        }
    }

    /// What a user of this provider should know, or nil.
    package var note: String? {
        switch self {
        case .keePassXC:
            return "KeePassXC may ask to approve each program that reads an entry (unless the confirmation is off "
                + "in its Secret Service settings); rm moves entries to its Recycle Bin"
        case .kWallet:
            return "KWallet writes its wallet file on a 5-second timer: a secret set just before kwalletd stops "
                + "can be lost"
        case .gnomeKeyring, .vault, .other: return nil
        }
    }
}
