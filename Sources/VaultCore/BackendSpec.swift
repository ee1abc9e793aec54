import VaultStorage

/// A store named by the user: `file`, `file:PATH`, `secret-service` or `openbao`, in `vault migrate
/// --from/--to` and `VAULT_FALLBACK`. The form is `KIND[:ARGUMENT]`; which kinds take an
/// argument, their descriptors say (``BackendDescriptor/argument``).
struct BackendSpec: Equatable {
    /// The backend: never `auto`.
    let kind: BackendKind
    /// What followed `KIND:` (a vault file's path), or nil: the backend's usual store.
    let argument: String?

    /// A vault file: the usual one (`--file`, `VAULT_FILE`, default) when `path` is nil.
    static func file(path: String?) -> BackendSpec { BackendSpec(kind: .file, argument: path) }
    /// The desktop keyring through the Secret Service.
    static let secretService = BackendSpec(kind: .secretService, argument: nil)

    /// Parses a spec; `input` names where it came from, for the error.
    init(parsing text: String, from input: VaultError.Input) throws(VaultError) {
        let kind: Substring
        let argument: Substring?
        if let colon = text.firstIndex(of: ":") {
            kind = text[..<colon]
            argument = text[text.index(after: colon)...]
        } else {
            (kind, argument) = (Substring(text), nil)
        }
        guard let named = BackendKind(rawValue: String(kind)), let descriptor = named.descriptor else {
            throw VaultError(
                .usage, "is '\(text)'", input: input, remedy: .useOneOf(names: BackendKind.specFormsSpelledOut))
        }
        switch (descriptor.argument, argument) {
        case (_, nil):
            self.init(kind: named, argument: nil)
        case (nil, _?):
            throw VaultError(.usage, "'\(kind)' takes no ':' argument", input: input)
        case (let form?, let given?):
            guard !given.isEmpty else {
                throw VaultError(
                    .usage, "'\(kind):' needs a \(form.lowercased()) after the colon", input: input)
            }
            self.init(kind: named, argument: String(given))
        }
    }

    /// The usual store of a resolved backend kind (`auto` is resolved first; it reads as `file`).
    init(_ kind: BackendKind) {
        self.init(kind: kind == .auto ? .file : kind, argument: nil)
    }

    init(kind: BackendKind, argument: String?) {
        self.kind = kind
        self.argument = argument
    }

    /// What the glue knows of the spec's backend.
    var descriptor: BackendDescriptor {
        guard let descriptor = kind.descriptor else { preconditionFailure("a spec never names auto") }
        return descriptor
    }
}
