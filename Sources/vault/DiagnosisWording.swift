import VaultCore

extension Diagnosis.Backend {
    /// The line `doctor` prints after the backend's state: what was found, why it cannot be used
    /// (with the remedy in the tool's terms), what creates a store not created yet, and the provider.
    var wording: String {
        let found = [detail, problem?.wording ?? ""].filter { !$0.isEmpty }.joined(separator: ": ")
        return found + (createdOnFirstWrite ? "; the first 'vault set' creates it" : "")
            + (provider.map { "; provider: \($0)" } ?? "")
    }
}

extension Diagnosis {
    /// The line `doctor` ends with: the backend chosen and the rule that chose it.
    var chosenLine: String { "chosen: \(chosen.rawValue) (\(reason.wording))" }
}

extension Diagnosis.Reason {
    /// The rule that picked the backend, naming the options and variables that change it.
    var wording: String {
        switch self {
        case .fileNamed: "auto: a vault file was named (--file or VAULT_FILE)"
        case .secretServiceAnswers: "auto: a Secret Service answers"
        case .noSecretService: "auto: no Secret Service, so the file"
        case .secretServiceUnusable:
            "auto: a Secret Service is there, so vault uses it and does not switch to the file; "
                + "fix what is said above, or choose the file with --backend file"
        case .requested(let kind, byOption: true): "--backend \(kind.rawValue)"
        case .requested(let kind, byOption: false): "VAULT_BACKEND=\(kind.rawValue)"
        }
    }
}

extension VaultProviderState {
    /// The `provider` line of `vault doctor`: whether vault is the Secret Service.
    var wording: String {
        var parts: [String] = []
        switch owner {
        case let owner? where owner.isVault:
            parts.append("vault is the Secret Service now: \(owner.name) owns the name")
        case let owner?: parts.append("vault is not the Secret Service: \(owner.name) owns the name")
        case nil: parts.append("nothing owns the Secret Service's name now")
        }
        if let file = vaultsFile {
            parts.append("the session bus starts vault when asked (\(file.path): \(file.exec))")
        } else {
            parts.append("no activation file of vault's ('vault secret-service enable' writes one)")
        }
        for other in othersForUser { parts.append("another provider is installed for this user: \(other.path)") }
        return "provider".padding(to: 16) + parts.joined(separator: "; ")
    }
}
