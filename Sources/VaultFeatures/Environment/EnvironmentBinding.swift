import VaultSecureBytes
public import VaultStorage

/// One environment variable that `vault exec` fills from a secret.
public struct EnvironmentBinding: Hashable, Sendable {
    /// The variable's name, e.g. `NPM_TOKEN`.
    public var variable: String
    /// The secret whose value the variable receives.
    public var name: SecretName
    /// Whether the variable was derived from the name rather than chosen (`--env VAR=NAME`):
    /// a derived one may not replace an inherited variable (``checkDerived(_:inherited:)``).
    public var derived: Bool

    public init(variable: String, name: SecretName, derived: Bool = false) {
        self.variable = variable
        self.name = name
        self.derived = derived
    }

    /// Binds a secret to the variable derived from its name (``variableName(for:)``).
    public init(deriving name: SecretName) throws(VaultError) {
        self.init(variable: try Self.variableName(for: name.account), name: name, derived: true)
    }

    /// Parses `VAR=NAME` (split at the first `=` byte) or a bare `NAME`, whose variable is derived.
    ///
    /// The text is never quoted in an error: a value typed by mistake (`--env TOKEN=ghp_...`)
    /// must not reach a log. `position` (1 for the first `--env`) says which one is wrong.
    public init(parsing text: String, service: String, position: Int = 1) throws(VaultError) {
        let bytes = Array(text.utf8)
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else {
            try self.init(deriving: try SecretName(service: service, account: text))
            return
        }
        let variable = String(decoding: bytes[..<equals], as: UTF8.self)
        guard Self.isValidVariable(variable) else {
            throw VaultError(
                .usage,
                "the part before '=' is not a variable name (letters, digits and _, not starting with a digit)",
                input: .binding(number: position))
        }
        self.init(
            variable: variable,
            name: try SecretName(service: service, account: String(decoding: bytes[(equals + 1)...], as: UTF8.self)))
    }

    /// The variable a secret's name maps to: ASCII letters upper-cased, ASCII digits kept, every
    /// other byte of the UTF-8 name replaced by `_`, and `_` put before a leading digit
    /// (`ci/npm-token` → `CI_NPM_TOKEN`, `2fa` → `_2FA`).
    ///
    /// A name with no ASCII letter or digit maps to nothing usable (`///` → `___`) and is an error.
    public static func variableName(for account: String) throws(VaultError) -> String {
        var bytes: [UInt8] = []
        var meaningful = false
        for byte in account.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"):
                bytes.append(byte - 0x20)
                meaningful = true
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                bytes.append(byte)
                meaningful = true
            default:
                bytes.append(UInt8(ascii: "_"))
            }
        }
        guard meaningful else {
            throw VaultError(
                .usage,
                "the name '\(account)' has no letter or digit to make a variable name from",
                remedy: .bindVariable(account: account))
        }
        if let first = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
            bytes.insert(UInt8(ascii: "_"), at: 0)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `text` is a portable variable name: ASCII letters, digits and `_`, not starting
    /// with a digit.
    public static func isValidVariable(_ text: String) -> Bool {
        guard let first = text.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
    }
}

extension Vault {
    /// The bindings of every secret of `service` to their derived variables (`vault exec --all`).
    ///
    /// Secrets of a kind (one-time code seeds) are left out: their value is never handed out, and
    /// one such secret must not stop every other from being bound.
    public func bindingsForAll(service: String) throws(VaultError) -> [EnvironmentBinding] {
        var bindings: [EnvironmentBinding] = []
        for entry in try list(service: service) where entry.metadata.kind == nil {
            bindings.append(try EnvironmentBinding(deriving: entry.name))
        }
        return bindings
    }

    /// Reads the values of `bindings`, checked for use as environment variables.
    ///
    /// Checks, in order, before returning anything: a variable bound to two different secrets is
    /// a usage error naming both; a missing secret is `.notFound`; an expired one `.expired`
    /// (unless `allowExpired`); a value holding a NUL byte, which no environment variable can
    /// carry, a usage error naming the secret. The same binding given twice counts once.
    /// Returns one `(variable, value)` pair per variable, in the order first given.
    public func environment(
        for bindings: [EnvironmentBinding], allowExpired: Bool = false
    ) throws(VaultError) -> [(variable: String, value: [UInt8])] {
        var unique: [EnvironmentBinding] = []
        var byVariable: [String: SecretName] = [:]
        for binding in bindings {
            if let other = byVariable[binding.variable] {
                guard other == binding.name else {
                    throw VaultError(
                        .usage,
                        "the secrets '\(other.account)' and '\(binding.name.account)' both map to \(binding.variable)",
                        remedy: .bindOneExplicitly)
                }
                continue
            }
            byVariable[binding.variable] = binding.name
            unique.append(binding)
        }
        var result: [(variable: String, value: [UInt8])] = []
        for binding in unique {
            let record = try get(binding.name, allowExpired: allowExpired)
            if record.value.contains(0) {
                throw VaultError(
                    .usage,
                    "the value of '\(binding.name.account)' contains a NUL byte, which an environment variable cannot hold"
                )
            }
            result.append((binding.variable, record.value.unprotectedArray))
        }
        return result
    }
}
