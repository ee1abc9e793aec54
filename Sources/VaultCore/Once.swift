import VaultStorage

/// Computes a value at most once, on first use; failures are not cached.
final class Once<T> {
    private var cached: T?
    private let make: () throws(VaultError) -> T

    init(_ make: @escaping () throws(VaultError) -> T) {
        self.make = make
    }

    /// Whether a value was made (a prompt was answered).
    var hasValue: Bool { cached != nil }

    func value() throws(VaultError) -> T {
        if let cached { return cached }
        let made = try make()
        cached = made
        return made
    }
}
