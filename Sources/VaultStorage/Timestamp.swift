#if canImport(Glibc)
    import Glibc
#endif

/// A point in time with whole-second precision, written as RFC 3339 UTC (`2026-11-21T10:04:48Z`).
///
/// Stores keep times to the second; that is all expiry and listings need, and it keeps the
/// vault document and Secret Service attributes short and readable.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var secondsSince1970: Int64

    public init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    /// The current time from the system's real-time clock.
    public static func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(secondsSince1970: Int64(spec.tv_sec))
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    /// Adds a number of seconds.
    public func adding(seconds: Int64) -> Timestamp {
        Timestamp(secondsSince1970: secondsSince1970 &+ seconds)
    }

    /// The RFC 3339 form in UTC, e.g. `2026-11-21T10:04:48Z`.
    public var rfc3339: String {
        var out: [UInt8] = []
        out.reserveCapacity(20)
        appendRFC3339(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``rfc3339`` as UTF-8 without building a `String`: the vault document holds two
    /// times per secret, and string interpolation made them most of the cost of a large `set`.
    package func appendRFC3339(to out: inout [UInt8]) {
        let days = secondsSince1970 >= 0 ? secondsSince1970 / 86_400 : (secondsSince1970 - 86_399) / 86_400
        let secondOfDay = secondsSince1970 - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        if (0...9999).contains(year) {
            // Twenty bytes in one append, two digits at a time: most of a large `set` is its times.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { text in
                func digits(_ value: Int64, at index: Int, then separator: UInt8) {
                    text[index] = UInt8(truncatingIfNeeded: 0x30 + value / 10)
                    text[index + 1] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                    text[index + 2] = separator
                }
                text[0] = UInt8(truncatingIfNeeded: 0x30 + year / 1000)
                text[1] = UInt8(truncatingIfNeeded: 0x30 + year / 100 % 10)
                digits(year % 100, at: 2, then: UInt8(ascii: "-"))
                digits(month, at: 5, then: UInt8(ascii: "-"))
                digits(day, at: 8, then: UInt8(ascii: "T"))
                digits(secondOfDay / 3600, at: 11, then: UInt8(ascii: ":"))
                digits(secondOfDay / 60 % 60, at: 14, then: UInt8(ascii: ":"))
                digits(secondOfDay % 60, at: 17, then: UInt8(ascii: "Z"))
                out.append(contentsOf: UnsafeBufferPointer(text))
            }
            return
        }
        func field(_ value: Int64, _ width: Int, then separator: UInt8) {
            var limit: Int64 = 1
            for _ in 0..<width { limit *= 10 }
            if value >= 0, value < limit {
                var divisor = limit / 10
                while divisor > 0 {
                    out.append(UInt8(truncatingIfNeeded: 0x30 + value / divisor % 10))
                    divisor /= 10
                }
            } else {
                out.append(contentsOf: pad(value, width).utf8)  // years outside 0...9999, as before
            }
            out.append(separator)
        }
        field(year, 4, then: UInt8(ascii: "-"))
        field(month, 2, then: UInt8(ascii: "-"))
        field(day, 2, then: UInt8(ascii: "T"))
        field(secondOfDay / 3600, 2, then: UInt8(ascii: ":"))
        field(secondOfDay / 60 % 60, 2, then: UInt8(ascii: ":"))
        field(secondOfDay % 60, 2, then: UInt8(ascii: "Z"))
    }

    public var description: String { rfc3339 }

    /// Parses RFC 3339: `YYYY-MM-DDTHH:MM:SS` with an optional fraction (dropped), then `Z` or
    /// a `±HH:MM` offset. Returns `nil` for anything else.
    public init?(rfc3339 text: String) {
        var text = text
        guard let time = text.withUTF8({ Timestamp(rfc3339Bytes: $0) }) else { return nil }
        self = time
    }

    /// Parses RFC 3339 from its UTF-8 bytes, as ``init(rfc3339:)`` does, without making a `String`.
    package init?(rfc3339Bytes b: UnsafeBufferPointer<UInt8>) {
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= b.count else { return nil }
            var value: Int64 = 0
            for i in range {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int64(b[i] - 0x30)
            }
            return value
        }
        guard b.count >= 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x74,
            b[13] == 0x3A, b[16] == 0x3A,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        if i < b.count, b[i] == 0x2E {  // fraction: digits, ignored
            i += 1
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            guard i > start else { return nil }
        }
        var offset: Int64 = 0
        if i < b.count, b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if i + 6 == b.count, b[i] == 0x2B || b[i] == 0x2D, b[i + 3] == 0x3A,
            let oh = number(i + 1..<i + 3), let om = number(i + 4..<i + 6), oh < 24, om < 60
        {
            offset = (oh * 3600 + om * 60) * (b[i] == 0x2D ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        self.secondsSince1970 = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
