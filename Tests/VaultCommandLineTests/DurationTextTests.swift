import Testing

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultStorage
@testable import vault

@Suite("One duration grammar")
struct DurationTextTests {
    static let expiry: ClosedRange<Int64> = 1...Expiry.longest
    static let unlockTTL: ClosedRange<Int64> = 0...UnlockPolicy.maximumSeconds

    @Test(
        "each spelling means the same length in every range that holds it",
        arguments: [
            ("900", 900), ("90s", 90), ("15m", 900), ("2h", 7200), ("1d", 86_400), ("2w", 1_209_600),
            ("0", 0), ("0s", 0), ("-0", 0), ("+15m", 900), ("007", 7), ("43200", 43_200), ("12h", 43_200),
            ("720m", 43_200),
        ] as [(String, Int64)])
    func spellings(text: String, seconds: Int64) {
        #expect(DurationText.seconds(text, in: 0...Int64.max) == seconds)
        #expect(DurationText.seconds(text, in: 0...seconds) == seconds)
        if seconds > 0 { #expect(DurationText.seconds(text, in: 0...(seconds - 1)) == nil) }
        #expect(DurationText.seconds(text, in: (seconds + 1)...Int64.max) == nil)
    }

    @Test(
        "not a duration, or out of range: nil, and a usage error naming the input",
        arguments: [
            "", "s", "m5", "5 m", " 5m", "5m ", "5ms", "5y", "5M", "1.5h", "0x10", "-1", "-5m", "1_000", "٥m", "5mm",
            "12h1s", "99999999999999999999", "99999999999999999999d", "9223372036854775807w",
            "5229w",  // a little over 100 years
        ])
    func refused(text: String) {
        #expect(DurationText.seconds(text, in: Self.expiry) == nil)
        let forms = "0 or a duration up to 12h, like 900, 90s, 15m or 2h"
        #expect(throws: VaultError(.usage, "--x is '\(text)'", remedy: .giveAccepted(forms: forms))) {
            try DurationText.seconds(parsing: text, what: "--x", in: Self.unlockTTL)
        }
        #expect(
            throws: VaultError(
                .usage, "--expires-in is '\(text)'",
                remedy: .giveAccepted(forms: DurationText.accepted(in: Self.expiry)))
        ) {
            try Expiry.seconds(text)
        }
    }

    @Test("the accepted forms follow the caller's range")
    func accepted() {
        #expect(
            DurationText.accepted(in: Self.expiry) == "a duration up to 36600d, like 900, 90s, 15m, 2h, 30d or 2w")
        #expect(
            DurationText.accepted(in: 1...UnlockPolicy.maximumSeconds)
                == "a duration up to 12h, like 900, 90s, 15m or 2h")
        #expect(DurationText.accepted(in: 0...60) == "0 or a duration up to 1m")
        #expect(DurationText.accepted(in: 120...1_209_600) == "a duration from 2m up to 2w, like 900, 15m, 2h or 2w")
    }

    /// The two grammars vault had before this one (`--expires-in`, and `--for` with
    /// `VAULT_UNLOCK_TTL`), kept here to show that every input either accepted still means the
    /// same length: the one grammar is their union.
    static func formerExpiry(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = text.last, let scale = units[unit], let count = Int64(text.dropLast()), count > 0,
            count <= 100 * 366 * 86_400 / scale
        else { return nil }
        return count * scale
    }

    static func formerUnlock(_ text: String, allowingZero: Bool) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        let maximum = UnlockPolicy.maximumSeconds
        var count = Int64(text)
        if count == nil, let unit = text.last, let scale = units[unit], let number = Int64(text.dropLast()),
            number >= 0, number <= maximum
        {
            count = number * scale
        }
        guard let count, count >= (allowingZero ? 0 : 1), count <= maximum else { return nil }
        return count
    }

    @Test("every input the former parsers took still gives the same seconds")
    func union() throws {
        let numbers = [
            "0", "1", "-0", "+0", "+1", "-1", "00", "59", "60", "90", "720", "721", "43199", "43200", "43201",
            "5228", "5229", "36600", "36601", "878400", "878401", "3162240000", "3162240001", "9223372036854775807",
        ]
        // The former parsers' units, written out: taken from DurationText, a unit it lost would
        // not be tried.
        let suffixes = ["", "s", "m", "h", "d", "w", "y", "S", " "]
        var checked = 0
        for number in numbers {
            for suffix in suffixes {
                let text = number + suffix
                if let seconds = Self.formerExpiry(text) {
                    #expect(try Expiry.seconds(text) == seconds, "\(text)")
                    checked += 1
                }
                for zero in [false, true] {
                    if let seconds = Self.formerUnlock(text, allowingZero: zero) {
                        #expect(try UnlockPolicy.seconds(parsing: text, what: "--for", allowingZero: zero) == seconds)
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 100)
    }
}
