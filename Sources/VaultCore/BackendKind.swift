public import VaultStorage

/// Which backend to use: the one table of backends.
///
/// Names, the `--backend` choices, `VAULT_BACKEND`'s and `migrate --from/--to`'s help, the
/// completion scripts and `vault doctor`'s rows are all derived from it, in this order. What a
/// backend is made of is not: adding one adds a case here (and its ``specForms``), its folder
/// under `Backends/`, and a branch in each place that switches on the kind or names its parts:
/// `BackendSpec`, the factory's `makeStore(_:keyPrefix:)` and `identity(of:)`, `Diagnosis`'s rows, its
/// variables in `VaultVariables`, its remedies (`VaultError.Remedy`, worded in the tool's
/// `ErrorWording`), and the tool's options and test fixtures for it.
public enum BackendKind: String, Sendable, CaseIterable {
    case auto
    case file
    case secretService = "secret-service"
    case openbao

    /// The name users type (`--backend`, `VAULT_BACKEND`, `vault migrate`, `VAULT_FALLBACK`).
    public var name: String { rawValue }

    /// The kinds that are a store (all but `auto`, which picks one of them), in table order.
    public static var stores: [BackendKind] { allCases.filter { $0 != .auto } }

    /// How a store of this kind is named in `vault migrate --from/--to` and `VAULT_FALLBACK`
    /// (``BackendSpec``): its name, and `file:PATH` for another vault file; none for `auto`.
    public var specForms: [String] {
        switch self {
        case .auto: []
        case .file: [name, name + ":PATH"]
        case .secretService, .openbao: [name]
        }
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
