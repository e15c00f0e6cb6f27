import Foundation

/// Reads and writes the ISO 8601 forms imports, exports and text arguments use, without a formatter.
///
/// Accepted, exactly: a date and time with a time zone — `2024-03-01T12:30:00Z`, `…T14:30:00+02:00` (or
/// `+0200`), with 1 to 18 fractional digits (`…T12:30:00.250Z`) — or a bare date, `2024-03-01` (midnight
/// UTC). Fields must be in range (month 1–12, the month's days, hour 0–23, minute and second 0–59, zone up
/// to ±23:59). Anything else — no zone, a space for `T`, text after the date — is rejected.
///
/// A strict parser of ours, because it measured about 10× faster than Foundation's `Date.ISO8601FormatStyle`
/// (and far faster than the legacy `ISO8601DateFormatter`, which clones an ICU formatter) on these fixed
/// forms: see the "file import" workload in `Benchmarks/README.md`.
public enum ISO8601DateText {
    /// The date `text` spells, or nil when it is not one of the accepted forms.
    public static func date(from text: some StringProtocol) -> Date? {
        var text = String(text)
        return text.withUTF8 { date(from: $0) }
    }

    /// The date the UTF-8 `bytes` spell (see ``date(from:)-(StringProtocol)``).
    public static func date(from bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        let count = bytes.count
        guard count == 10 || count >= 20 else { return nil }
        func digits(_ at: Int, _ length: Int) -> Int? {
            var value = 0
            for index in at..<at + length {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard let year = digits(0, 4), bytes[4] == UInt8(ascii: "-"), let month = digits(5, 2),
            bytes[7] == UInt8(ascii: "-"), let day = digits(8, 2), (1...12).contains(month),
            day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        guard count > 10 else { return Date(timeIntervalSinceReferenceDate: Double(days * 86_400 - epochOffset)) }
        guard bytes[10] == UInt8(ascii: "T"), let hour = digits(11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = digits(14, 2), bytes[16] == UInt8(ascii: ":"), let second = digits(17, 2),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var position = 19
        var fraction = 0
        var fractionDigits = 0
        if bytes[position] == UInt8(ascii: ".") {
            position += 1
            while position < count, bytes[position] &- UInt8(ascii: "0") < 10 {
                guard fractionDigits < 18 else { return nil }
                fraction = fraction * 10 + Int(bytes[position] &- UInt8(ascii: "0"))
                fractionDigits += 1
                position += 1
            }
            guard fractionDigits > 0 else { return nil }
        }
        guard position < count else { return nil }
        var zoneSeconds = 0
        switch bytes[position] {
        case UInt8(ascii: "Z"):
            position += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[position] == UInt8(ascii: "-") ? -1 : 1
            position += 1
            guard count - position >= 4, let zoneHours = digits(position, 2) else { return nil }
            position += 2
            if bytes[position] == UInt8(ascii: ":") { position += 1 }
            guard count - position >= 2, let zoneMinutes = digits(position, 2), zoneHours < 24, zoneMinutes < 60
            else { return nil }
            position += 2
            zoneSeconds = sign * (zoneHours * 3600 + zoneMinutes * 60)
        default:
            return nil
        }
        guard position == count else { return nil }
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - zoneSeconds - epochOffset
        guard fractionDigits > 0 else { return Date(timeIntervalSinceReferenceDate: Double(whole)) }
        // whole·10ⁿ + fraction and 10ⁿ are exact doubles, so one division rounds the decimal correctly.
        let scale = powersOfTen[fractionDigits]
        if fractionDigits <= 6, abs(whole) < 1 << 32 {
            return Date(timeIntervalSinceReferenceDate: Double(whole * scale + fraction) / Double(scale))
        }
        // More digits: the decimal whole + fraction/scale spelled out, for one correctly rounded conversion.
        let spelled: String
        if whole >= 0 || fraction == 0 {
            spelled = "\(whole)." + padded(fraction, fractionDigits)
        } else {  // -5 + 0.25 is -4.75: -(|whole| - 1) - (1 - 0.25)
            spelled = "-\(-whole - 1)." + padded(scale - fraction, fractionDigits)
        }
        guard let interval = Double(spelled) else { return nil }
        return Date(timeIntervalSinceReferenceDate: interval)
    }

    /// `date` in UTC: `2024-03-01T12:30:00Z`, with milliseconds (`…00.250Z`) when it has a fraction of a second.
    public static func string(from date: Date) -> String {
        format(date, exact: false)
    }

    /// `date` in UTC with as many fractional digits (up to 18) as ``date(from:)-(StringProtocol)`` needs to
    /// read back the very same `Date` (for exports that must round-trip).
    public static func exactString(from date: Date) -> String {
        format(date, exact: true)
    }

    private static func format(_ date: Date, exact: Bool) -> String {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 1e13 else { return date.formatted(.iso8601) }
        let whole = interval.rounded(.down)
        var seconds = Int(whole) + epochOffset
        let fraction = interval - whole
        var text = ""
        if fraction == 0 {
            text = dateTime(&seconds) + "Z"
        } else if !exact {
            var milliseconds = Int((fraction * 1000).rounded(.down))
            if milliseconds > 999 { milliseconds = 999 }
            text = dateTime(&seconds) + "." + padded(milliseconds, 3) + "Z"
        } else {
            let prefix = dateTime(&seconds)
            for digits in 1...17 {
                let scale = powersOfTen[digits]
                let guess = Int((fraction * Double(scale)).rounded())
                for value in [guess, guess - 1, guess + 1] where value >= 0 && value < scale {
                    text = prefix + "." + padded(value, digits) + "Z"
                    if Self.date(from: text) == date { return text }
                }
            }
        }
        return text
    }

    /// `YYYY-MM-DDTHH:MM:SS` for `seconds` since 1970.
    private static func dateTime(_ seconds: inout Int) -> String {
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let rest = seconds - days * 86_400
        let (year, month, day) = civil(daysSince1970: days)
        return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T" + padded(rest / 3600, 2) + ":"
            + padded(rest / 60 % 60, 2) + ":" + padded(rest % 60, 2)
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Seconds from 1970-01-01 to 2001-01-01 (Foundation's reference date).
    private static let epochOffset = 978_307_200
    private static let powersOfTen: [Int] = (0...18).map { power in (0..<power).reduce(1) { product, _ in product * 10 } }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (`civil_from_days`).
    private static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
