/// A value read from the environment, or the usage error its text gave, thrown only where the
/// value is used (the glue's `Configuration`), so that a bad variable a command does not use stops nothing.
///
/// Not `Result<Value, VaultError>`: its `Failure: Error` requirement makes each copy of a
/// configuration with such fields look `VaultError: Error` up in the runtime's conformance
/// tables (the look-up scans every conformance of the binary, on each command's start-up path).
/// An enum with no requirement on its payloads needs none (docs/design.md, "Speed").
package enum Parsed<Value> {
    case success(Value)
    case failure(VaultError)

    /// The outcome of `body`.
    package init(_ body: () throws(VaultError) -> Value) {
        do throws(VaultError) {
            self = .success(try body())
        } catch {
            self = .failure(error)
        }
    }

    /// The value, or the error its text gave.
    package func get() throws(VaultError) -> Value {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }
}

extension Parsed: Sendable where Value: Sendable {}
