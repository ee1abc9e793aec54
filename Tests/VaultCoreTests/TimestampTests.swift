import Foundation
import Testing

@testable import VaultCore
@testable import VaultStorage

@Suite("Timestamps")
struct TimestampTests {
    @Test("RFC 3339 round trip across eras and leap days")
    func roundTrip() {
        for seconds: Int64 in [0, 951_782_400, 1_700_000_000, 4_102_444_800, -86_400, 253_402_300_799] {
            let time = Timestamp(secondsSince1970: seconds)
            #expect(Timestamp(rfc3339: time.rfc3339) == time, "\(time.rfc3339)")
        }
        #expect(Timestamp(secondsSince1970: 951_782_400).rfc3339 == "2000-02-29T00:00:00Z")
        #expect(Timestamp(secondsSince1970: 0).rfc3339 == "1970-01-01T00:00:00Z")
        #expect(Timestamp(secondsSince1970: -1).rfc3339 == "1969-12-31T23:59:59Z")
        #expect(Timestamp(secondsSince1970: 253_402_300_799).rfc3339 == "9999-12-31T23:59:59Z")
        #expect(Timestamp(secondsSince1970: 253_402_300_800).rfc3339 == "10000-01-01T00:00:00Z")
        #expect(Timestamp(secondsSince1970: -62_167_219_200).rfc3339 == "0000-01-01T00:00:00Z")
        #expect(Timestamp(secondsSince1970: 1_234_567_890).rfc3339 == "2009-02-13T23:31:30Z")
    }

    @Test(
        "invalid times are rejected",
        arguments: [
            "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00",
            "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+0200", "x",
        ])
    func invalid(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }
}
