import Foundation
@testable import HearthServer
import Testing

/// The hand-written parts of the domain-to-wire mapping (Sources/HearthServer/Wire), against what they replace.
@Suite struct WireMappingTests {
    /// Foundation's ISO 8601 format style, as `rfc3339` used it before it was written by hand.
    static func foundation(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let whole = Date(timeIntervalSince1970: TimeInterval(fraction < 0 ? seconds - 1 : seconds))
            .formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
                .timeSeparator(.colon).timeZone(separator: .omitted))
        return whole.dropLast() + "." + String(String((fraction + 1000) % 1000 + 1000).dropFirst()) + "Z"
    }

    @Test func rfc3339MatchesFoundation() {
        // Four centuries around the epoch (leap days, century years, 2000), whole days, midnights and millisecond
        // edges, and dates read back from text a hair below their millisecond.
        var generator = SystemRandomNumberGenerator()
        var dates = [0, -0.001, 951_782_400, 951_868_799.999, 4_107_542_399.9995, 1_795_666_695.248, -2_208_988_800,
                     -12_219_292_800, 253_402_300_799.999].map(Date.init(timeIntervalSince1970:))
        dates += (0..<20_000).map { _ in
            Date(timeIntervalSince1970: Double(Int64.random(in: -6_311_433_600_000...6_311_433_600_000, using: &generator)) / 1000)
        }
        dates.append(Date(timeIntervalSince1970: 1_795_666_708.99) - 1e-7)
        for date in dates {
            #expect(rfc3339(date) == Self.foundation(date), "\(date.timeIntervalSince1970)")
        }
        #expect(rfc3339(Date(timeIntervalSince1970: 1_795_666_831.25)) == "2026-11-26T04:20:31.250Z")
    }
}
