public import VaultStorage

/// Which backend to use: the one table of backends.
///
/// Names, the `--backend` choices, `VAULT_BACKEND`'s and `migrate --from/--to`'s help, the
/// completion scripts and `vault doctor`'s rows are all derived from it, in this order, and what
/// each backend is made of from its ``descriptor`` (`Backends/`): its spec forms, its stores and
/// their identities, its row in `vault doctor`. Adding a backend adds its target, a case here
/// and its descriptor; what else it brings is its own (its variables in `VaultVariables`, its
/// remedies, worded in the tool's `ErrorWording`, the tool's options and test fixtures for it).
public enum BackendKind: String, Sendable, CaseIterable {
    case auto
    case file
    case secretService = "secret-service"
    case openbao

    /// The name users type (`--backend`, `VAULT_BACKEND`, `vault migrate`, `VAULT_FALLBACK`).
    public var name: String { rawValue }

    /// The kinds that are a store (all but `auto`, which picks one of them), in table order.
    public static var stores: [BackendKind] { allCases.filter { $0 != .auto } }

    /// What the glue knows of the backend (nil for `auto`, which picks one).
    var descriptor: BackendDescriptor? {
        switch self {
        case .auto: nil
        case .file: .file
        case .secretService: .secretService
        case .openbao: .openbao
        }
    }

    /// How a store of this kind is named in `vault migrate --from/--to` and `VAULT_FALLBACK`
    /// (``BackendSpec``): its name, and `NAME:ARGUMENT` when it takes one (`file:PATH`); none
    /// for `auto`.
    public var specForms: [String] {
        guard let descriptor else { return [] }
        return [name] + (descriptor.argument.map { [name + ":" + $0] } ?? [])
    }

    /// Every name: `auto, file, secret-service or openbao`.
    public static var namesSpelledOut: String { spelledOut(allCases.map(\.name)) }

    /// Every store spec form: `file, file:PATH, secret-service or openbao`.
    public static var specFormsSpelledOut: String { spelledOut(stores.flatMap(\.specForms)) }

    /// Parses `auto`, `file`, `secret-service` or `openbao`; `input` names where it came from, for
    /// the error.
    public init(parsing text: String, from input: VaultError.Input) throws(VaultError) {
        guard let kind = BackendKind(rawValue: text) else {
            throw VaultError(.usage, "is '\(text)'", input: input, remedy: .useOneOf(names: Self.namesSpelledOut))
        }
        self = kind
    }

    /// `a, b, c or d`.
    private static func spelledOut(_ words: [String]) -> String {
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }
}
