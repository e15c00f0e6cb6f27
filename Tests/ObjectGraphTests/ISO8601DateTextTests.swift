import Foundation
import Testing
@testable import ObjectGraph

@Suite("ISO 8601 dates without a formatter")
struct ISO8601DateTextTests {
    @Test("the forms read agree with Foundation's ISO8601FormatStyle (differential, random instants)")
    func agreesWithFoundation() throws {
        var random = SeededRandom(seed: 8601)
        let plain = Date.ISO8601FormatStyle()
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for _ in 0..<3000 {
            let seconds = Double(Int64.random(in: -2_000_000_000...4_000_000_000, using: &random))
            let millis = Double(Int.random(in: 0..<1000, using: &random)) / 1000
            let date = Date(timeIntervalSince1970: seconds + (random.chance(0.5) ? millis : 0))
            for text in [plain.format(date), fractional.format(date)] {
                let ours = try #require(ISO8601DateText.date(from: text), "\(text)")
                let theirs = try fractional.parse(text)
                #expect(abs(ours.timeIntervalSince(theirs)) < 0.0005, "\(text): \(ours) vs \(theirs)")
            }
            let day = plain.year().month().day().format(date)
            #expect(ISO8601DateText.date(from: day) == (try plain.year().month().day().parse(day)), "\(day)")
        }
    }

    @Test("zones, fractions and rejections")
    func forms() {
        let noon = Date(timeIntervalSince1970: 1_709_296_200)  // 2024-03-01T12:30:00Z
        #expect(ISO8601DateText.date(from: "2024-03-01T12:30:00Z") == noon)
        #expect(ISO8601DateText.date(from: "2024-03-01T14:30:00+02:00") == noon)
        #expect(ISO8601DateText.date(from: "2024-03-01T14:30:00+0200") == noon)
        #expect(ISO8601DateText.date(from: "2024-03-01T10:00:00-02:30") == noon)
        #expect(ISO8601DateText.date(from: "2024-03-01T12:30:00.25Z") == noon.addingTimeInterval(0.25))
        #expect(ISO8601DateText.date(from: "2024-03-01T12:30:00.123456789Z") != nil)
        #expect(ISO8601DateText.date(from: "2024-02-29") != nil)
        for bad in ["2023-02-29", "2024-04-31", "2024-00-10", "2024-03-01T24:00:00Z", "2024-03-01T12:60:00Z",
            "2024-03-01T12:30:60Z", "2024-03-01T12:30:00", "2024-03-01T12:30:00.Z", "2024-03-01T12:30:00.1234567890123456789Z",
            "2024-03-01T12:30:00+24:00", "2024-03-01T12:30:00+02", "2024-03-01t12:30:00Z", "2024-3-01",
            "+2024-03-01", "2024-03-01T12:30:00Zjunk", "２０２４-03-01", "2024-03-01T12:30:00z"]
        {
            #expect(ISO8601DateText.date(from: bad) == nil, "\(bad)")
        }
    }

    @Test("exactString reads back the very same Date; string keeps milliseconds")
    func exactRoundTrip() {
        var random = SeededRandom(seed: 42)
        for _ in 0..<5000 {
            let interval = Double.random(in: -3e9...3e9, using: &random)
            let date = Date(timeIntervalSinceReferenceDate: random.chance(0.3) ? interval.rounded() : interval)
            let text = ISO8601DateText.exactString(from: date)
            #expect(ISO8601DateText.date(from: text) == date, "\(text) for \(date.timeIntervalSinceReferenceDate)")
        }
        let noon = Date(timeIntervalSince1970: 1_709_296_200)
        #expect(ISO8601DateText.string(from: noon) == "2024-03-01T12:30:00Z")
        #expect(ISO8601DateText.string(from: noon.addingTimeInterval(0.25)) == "2024-03-01T12:30:00.250Z")
        #expect(ISO8601DateText.exactString(from: noon.addingTimeInterval(0.25)) == "2024-03-01T12:30:00.25Z")
        #expect(ISO8601DateText.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }
}
