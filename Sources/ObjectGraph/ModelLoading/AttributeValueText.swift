import Foundation

/// What a piece of text should have been, when it cannot be read as a value of an attribute's type.
struct ExpectedValue: Error, Sendable, Hashable {
    /// The expectation in words (`"a whole number from -32768 to 32767"`).
    var description: String
}

/// Reads attribute values (defaults and bounds) from the text Xcode writes for them.
///
/// Xcode writes numbers in the C locale, Booleans as `YES`/`NO`, dates as seconds since 2001-01-01
/// 00:00:00 UTC (`defaultDateTimeInterval`, `minDateTimeInterval`), UUIDs in their usual form and URLs
/// as written. Anything else is refused with what was expected, rather than guessed at.
enum AttributeValueText {
    /// The default value `text` gives an attribute of `type`.
    ///
    /// Empty text means "no default" except for strings, where it is the empty string. Binary,
    /// transformable and undefined attributes have no textual default in Xcode; text for them is ignored.
    static func defaultValue(_ text: String, for type: AttributeType) throws(ExpectedValue) -> AttributeValue {
        if type == .string { return .string(text) }
        let trimmed = text.trimmingXMLSpace()
        guard !trimmed.isEmpty else { return .null }
        switch type {
        case .integer16, .integer32, .integer64: return .integer(try integer(trimmed, for: type))
        case .double, .float: return .double(try double(trimmed))
        case .decimal: return .decimal(try decimal(trimmed))
        case .boolean: return .boolean(try boolean(trimmed))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try double(trimmed)))
        case .uuid:
            guard let uuid = UUID(uuidString: trimmed) else {
                throw ExpectedValue(description: "a UUID such as 0A1B2C3D-0000-4000-8000-00000000000F")
            }
            return .uuid(uuid)
        case .uri:
            guard let url = URL(string: trimmed) else { throw ExpectedValue(description: "a URL") }
            return .uri(url)
        case .string, .binary, .transformable, .undefined, .composite: return .null
        }
    }

    /// A lower or upper bound for an attribute of `type`: a value for numbers and dates, a length for
    /// strings, binary data and transformable values; nil for types that have no bounds (Booleans, UUIDs,
    /// URLs, undefined), whose text is ignored.
    static func bound(_ text: String, for type: AttributeType) throws(ExpectedValue) -> AttributeValue? {
        let trimmed = text.trimmingXMLSpace()
        guard !trimmed.isEmpty else { return nil }
        switch type {
        case .integer16, .integer32, .integer64: return .integer(try integer(trimmed, for: type))
        case .double, .float: return .double(try double(trimmed))
        case .decimal: return .decimal(try decimal(trimmed))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try double(trimmed)))
        case .string, .binary, .transformable:
            guard let length = Int64(trimmed), length >= 0 else {
                throw ExpectedValue(description: "a length of 0 or more")
            }
            return .integer(length)
        case .boolean, .uuid, .uri, .undefined, .composite: return nil
        }
    }

    /// Whether `minimum` is above `maximum` (both present and comparable).
    static func isInverted(minimum: AttributeValue?, maximum: AttributeValue?) -> Bool {
        switch (minimum, maximum) {
        case let (.date(low)?, .date(high)?): return low > high
        case let (.decimal(low)?, .decimal(high)?): return low > high
        case let (low?, high?):
            guard let low = low.doubleValue, let high = high.doubleValue else { return false }
            return low > high
        default: return false
        }
    }

    /// A whole number that fits the integer type (`0.0` and other whole decimals are accepted).
    static func integer(_ text: String, for type: AttributeType) throws(ExpectedValue) -> Int64 {
        let range: ClosedRange<Int64> = switch type {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
        let expected = ExpectedValue(description: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        if let value = Int64(text) {
            guard range.contains(value) else { throw expected }
            return value
        }
        guard let number = Double(text), number.isFinite, number.rounded() == number,
            number >= -9.2e18, number <= 9.2e18
        else { throw expected }
        let value = Int64(number)
        guard range.contains(value) else { throw expected }
        return value
    }

    /// A finite floating-point number in the C locale.
    static func double(_ text: String) throws(ExpectedValue) -> Double {
        guard isDecimalNumeral(text), let value = Double(text), value.isFinite else {
            throw ExpectedValue(description: "a number such as 1.5 or -2e3")
        }
        return value
    }

    /// A decimal number, checked for its whole syntax first (Foundation's parser stops at the first bad
    /// character and returns what it read so far).
    static func decimal(_ text: String) throws(ExpectedValue) -> Decimal {
        let expected = ExpectedValue(description: "a decimal number such as 12.50")
        guard text.utf8.count <= 80, isDecimalNumeral(text),
            let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        else { throw expected }
        return value
    }

    /// `YES`/`NO` as Xcode writes them, also `true`/`false` and `1`/`0`.
    static func boolean(_ text: String) throws(ExpectedValue) -> Bool {
        switch text.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw ExpectedValue(description: "YES or NO")
        }
    }

    /// Whether `text` is `[+-]digits[.digits][e[+-]digits]` with at least one digit before the exponent.
    static func isDecimalNumeral(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Int {
            let count = bytes.prefix(while: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }).count
            bytes = bytes.dropFirst(count)
            return count
        }
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                bytes = bytes.dropFirst()
            }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
