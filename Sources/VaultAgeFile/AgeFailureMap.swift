package import VaultAge
package import VaultStorage

/// The one map from the age layer's failures to vault errors, for every file vault opens (a
/// store's file; a version git hands to `vault git textconv` or `merge`): which code each kind
/// of failure gets, and so the tool's exit status, and the words they share.
package enum AgeFailureMap {
    /// What a key or plugin failure names.
    package enum Naming: Equatable {
        /// One file, named by the command: a key failure names where the key came from, a
        /// plugin's own message names the plugin.
        case keyOrigin
        /// One of several versions of a file (git's): every failure names the version.
        case version
    }

    /// `error`, from opening `file` (its name in messages) with the key from `keyOrigin`.
    /// A file no key opens is a wrong key; `noMatchDetail` closes that message in parentheses
    /// (the recipient types the file is encrypted to). The caller tells a damaged header from a
    /// wrong key first, when it can.
    package static func vaultError(
        _ error: AgeError, opening file: String, keyOrigin: String, naming: Naming, noMatchDetail: String? = nil
    ) -> VaultError {
        let named = naming == .version ? "\(file): \(error.message)" : error.message
        switch error.kind {
        case .noMatch:
            let detail = noMatchDetail.map { " (\($0))" } ?? ""
            return VaultError(.cannotUnlock, "the key from \(keyOrigin) does not unlock \(file)\(detail)")
        case .invalidKey, .unsupportedKey, .cannotAsk:
            return VaultError(
                .cannotUnlock, naming == .version ? named : "\(keyOrigin): \(error.message)",
                remedy: VaultError.Remedy(error.remedy, keyFile: nil))
        case .pluginRefused:
            return VaultError(.cannotUnlock, named)
        case .pluginKeyMismatch:
            // The key from the plugin does not open the file: a wrong key, as with .noMatch.
            return VaultError(.cannotUnlock, naming == .version ? named : "\(keyOrigin): \(error.message)")
        case .plugin:
            return VaultError(.unavailable, named)
        case .header, .hmac, .payload, .armor, .workFactor:
            return VaultError(.damaged, "\(file) is damaged or not an age file: \(error.message)")
        }
    }
}

extension VaultError.Remedy {
    /// The age layer's remedy for a key it refuses, for the key in `keyFile` (nil: the key did
    /// not come from a file, or which one is not known here).
    package init?(_ remedy: AgeError.Remedy?, keyFile: String?) {
        switch remedy {
        case .convertSSHKeyToOpenSSHFormat: self = .convertSSHKey(path: keyFile)
        case .reencryptSSHKeyWithAES256CTR: self = .reencryptSSHKey(path: keyFile)
        case .usePluginRecipient: self = .usePluginRecipient
        case nil: return nil
        }
    }
}
