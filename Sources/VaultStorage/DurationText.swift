/// A length of time as a person types it, the one grammar for every duration vault reads
/// (`--expires-in`, `vault unlock --for`, `VAULT_UNLOCK_TTL`, `VAULT_REFRESH_SKEW`, `--min-valid`):
/// whole seconds (`900`), or a whole number and one unit of ``units`` (`90s`, `15m`, `2h`, `30d`,
/// `2w`). What the number may be is the caller's: each passes the range it allows, so that one
/// input means the same length everywhere and only the bounds differ.
public enum DurationText {
    /// The units after a number, with their length in seconds.
    public static let units: [(unit: Character, seconds: Int64)] = [
        ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400), ("w", 604_800),
    ]

    /// The seconds `text` names, or nil when it is not a duration within `range` (which starts at
    /// 0 or above). The number is read as `Int64` reads text (an optional sign, ASCII digits);
    /// one too large for its unit is out of range rather than wrapped.
    public static func seconds(_ text: String, in range: ClosedRange<Int64>) -> Int64? {
        precondition(range.lowerBound >= 0, "a duration is never negative")
        var number = text[...]
        var scale: Int64 = 1
        if let last = text.last, let unit = units.first(where: { $0.unit == last }) {
            number = text.dropLast()
            scale = unit.seconds
        }
        guard let count = Int64(number), count >= 0, count <= range.upperBound / scale
        else { return nil }
        let seconds = count * scale
        return range.contains(seconds) ? seconds : nil
    }

    /// The seconds `text` names; a usage error naming `what` (the option or variable) and the
    /// accepted forms when it is not a duration within `range`.
    public static func seconds(parsing text: String, what: String, in range: ClosedRange<Int64>) throws(VaultError)
        -> Int64
    {
        guard let seconds = seconds(text, in: range) else {
            throw VaultError(.usage, "\(what) is '\(text)'", remedy: .giveAccepted(forms: accepted(in: range)))
        }
        return seconds
    }

    /// The accepted forms for a message: "0 or a duration up to 12h, like 900, 90s, 15m or 2h".
    static func accepted(in range: ClosedRange<Int64>) -> String {
        let examples = ["900", "90s", "15m", "2h", "30d", "2w"].filter { seconds($0, in: range) != nil }
        var text = range.lowerBound == 0 ? "0 or a duration" : "a duration"
        if range.lowerBound > 1 { text += " from \(shortest(range.lowerBound))" }
        text += " up to \(shortest(range.upperBound))"
        guard let last = examples.last else { return text }
        let listed = examples.count == 1 ? last : examples.dropLast().joined(separator: ", ") + " or " + last
        return text + ", like " + listed
    }

    /// `seconds` in its largest whole unit: 43200 is "12h".
    static func shortest(_ seconds: Int64) -> String {
        let unit = units.last { seconds % $0.seconds == 0 } ?? units[0]
        return "\(seconds / unit.seconds)\(unit.unit)"
    }
}
