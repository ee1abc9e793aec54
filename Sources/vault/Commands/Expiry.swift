import VaultCore
import VaultStorage

/// Parsing of `--expires-in` and `--expires-at`.
enum Expiry {
    /// The expiry time named by at most one of the two options, or nil.
    static func parse(at: String?, in duration: String?, now: Timestamp = .now()) throws(VaultError) -> Timestamp? {
        switch (at, duration) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw VaultError(.usage, "give --expires-in or --expires-at, not both")
        case (let text?, nil):
            guard let time = Timestamp(rfc3339: text) else {
                throw VaultError(.usage, "--expires-at '\(text)' is not an RFC 3339 time like 2026-12-01T09:00:00Z")
            }
            return time
        case (nil, let text?):
            return now.adding(seconds: try seconds(text))
        }
    }

    /// Parses `90s`, `25m`, `12h`, `30d`, `2w` into seconds.
    static func seconds(_ text: String) throws(VaultError) -> Int64 {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = text.last, let scale = units[unit], let count = Int64(text.dropLast()), count > 0,
            count <= 100 * 366 * 86_400 / scale
        else {
            throw VaultError(.usage, "--expires-in '\(text)' is not a duration like 90s, 25m, 12h, 30d or 2w")
        }
        return count * scale
    }
}
