import Foundation
import ObjectGraph

/// Why one input value cannot be stored in an attribute (`"12abc" is not an Integer 16`).
struct ImportValueError: Error, CustomStringConvertible, Equatable {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Converts JSON and CSV input values to ``AttributeValue``s of an attribute's type, strictly.
///
/// Integers must be whole numbers in the type's range (`12abc`, `1.5` and, for Integer 16, `70000` are
/// rejected); reals and decimals are plain decimal numbers (no `nan`, no hex); dates are ISO 8601 with a
/// time zone, with or without fractional seconds, or a bare date (`2024-03-01`, midnight UTC); Booleans
/// are JSON `true`/`false` or, in CSV, `true`/`false`/`1`/`0` in any case; binary and transformable
/// values are Base64; UUIDs are in their canonical text form; URIs need a scheme.
///
/// JSON values must have the matching JSON type (a number for numeric attributes, a Boolean for
/// Boolean ones, a string for everything else). In CSV an empty unquoted field is no value (the row does
/// not set the attribute, so it keeps its default) and an empty quoted field (`""`) is an empty string.
enum ImportValueParser {
    /// The value of a JSON input for `attribute`.
    static func value(_ input: JSONInput, for attribute: AttributeDescription) throws(ImportValueError)
        -> AttributeValue
    {
        let type = attribute.attributeType
        switch (input, type) {
        case (.null, _):
            return .null
        case (.number(let text), .integer16), (.number(let text), .integer32), (.number(let text), .integer64):
            return try integer(text, type: type)
        case (.number(let text), .double), (.number(let text), .float), (.number(let text), .decimal):
            return try real(text, type: type)
        case (.bool(let value), .boolean):
            return .boolean(value)
        case (.string(let text), .string):
            return .string(text)
        case (.string(let text), .date), (.string(let text), .binary), (.string(let text), .transformable),
            (.string(let text), .uuid), (.string(let text), .uri):
            return try fromText(text, type: type)
        default:
            throw ImportValueError("expected \(expectedJSON(for: type)) for \(type), found \(describe(input))")
        }
    }

    /// The value of a CSV field for `attribute`.
    static func value(_ field: CSVField, for attribute: AttributeDescription) throws(ImportValueError)
        -> AttributeValue
    {
        if field.text.isEmpty {
            return field.quoted && attribute.attributeType == .string ? .string("") : .null
        }
        return try fromText(field.text, type: attribute.attributeType)
    }

    /// Parses `text` as a value of `type`.
    static func fromText(_ text: String, type: AttributeType) throws(ImportValueError) -> AttributeValue {
        switch type {
        case .integer16, .integer32, .integer64:
            return try integer(text, type: type)
        case .double, .float, .decimal:
            return try real(text, type: type)
        case .string:
            return .string(text)
        case .boolean:
            switch text.lowercased() {
            case "true", "1": return .boolean(true)
            case "false", "0": return .boolean(false)
            default: throw ImportValueError("\(quoted(text)) is not a Boolean (use true or false)")
            }
        case .date:
            guard let date = ISO8601.date(from: text) else {
                throw ImportValueError("\(quoted(text)) is not an ISO 8601 date (like 2024-03-01T12:30:00Z)")
            }
            return .date(date)
        case .binary, .transformable:
            guard let data = Data(base64Encoded: text) else {
                throw ImportValueError("\(quoted(text)) is not Base64-encoded data")
            }
            return .binary(data)
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw ImportValueError("\(quoted(text)) is not a UUID") }
            return .uuid(uuid)
        case .uri:
            guard !text.contains(where: \.isWhitespace), let components = URLComponents(string: text),
                components.scheme != nil, let url = components.url
            else { throw ImportValueError("\(quoted(text)) is not a URL with a scheme (like https://example.com)") }
            return .uri(url)
        case .undefined:
            throw ImportValueError("an attribute of undefined type cannot be imported")
        }
    }

    /// A whole number within `type`'s range.
    private static func integer(_ text: String, type: AttributeType) throws(ImportValueError) -> AttributeValue {
        let isWhole = NumberSyntax.isWholeNumber(text)
        guard isWhole else { throw ImportValueError("\(quoted(text)) is not a whole number (\(type))") }
        let range: ClosedRange<Int64> =
            switch type {
            case .integer16: Int64(Int16.min)...Int64(Int16.max)
            case .integer32: Int64(Int32.min)...Int64(Int32.max)
            default: Int64.min...Int64.max
            }
        guard let value = Int64(text), range.contains(value) else {
            throw ImportValueError(
                "\(text) is out of range for \(type) (\(range.lowerBound)...\(range.upperBound))")
        }
        return .integer(value)
    }

    /// A decimal number (optionally with an exponent) as a Double, Float or Decimal.
    private static func real(_ text: String, type: AttributeType) throws(ImportValueError) -> AttributeValue {
        let isNumber = NumberSyntax.isDecimalNumber(text)
        guard isNumber, let double = Double(text) else {
            throw ImportValueError("\(quoted(text)) is not a number (\(type))")
        }
        guard double.isFinite, type != .float || abs(double) <= Double(Float.greatestFiniteMagnitude) else {
            throw ImportValueError("\(text) is out of range for \(type)")
        }
        if type == .decimal {
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN else {
                throw ImportValueError("\(text) is out of range for Decimal")
            }
            return .decimal(decimal)
        }
        return .double(type == .float ? Double(Float(double)) : double)
    }

    private static func expectedJSON(for type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal: "a number"
        case .boolean: "true or false"
        case .undefined: "nothing"
        default: "a string"
        }
    }

    private static func describe(_ input: JSONInput) -> String {
        switch input {
        case .string(let text): "the string \(quoted(text))"
        case .number(let text): "the number \(text)"
        case .bool(let value): "\(value)"
        default: input.kindDescription
        }
    }

    /// `text` in double quotes, shortened to 40 characters.
    static func quoted(_ text: String) -> String {
        let shown = text.count > 40 ? String(text.prefix(39)) + "…" : text
        return "\"" + shown.replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}

/// Reading and writing ISO 8601 dates.
enum ISO8601 {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()
    private static let dateOnly = Date.ISO8601FormatStyle().year().month().day()

    /// Parses a date-time with a time zone (`2024-03-01T12:30:00Z`, `…T12:30:00.250+02:00`) or a date
    /// (`2024-03-01`, midnight UTC).
    static func date(from text: String) -> Date? {
        guard text.count >= 10, text.first?.isNumber == true else { return nil }
        if text.count == 10 { return whole(text, dateOnly) }
        return whole(text, withoutFraction) ?? whole(text, withFraction)
    }

    /// The date `style` reads from all of `text` (`parse` alone accepts trailing garbage).
    private static func whole(_ text: String, _ style: Date.ISO8601FormatStyle) -> Date? {
        guard let (end, date) = try? style.consuming(text, startingAt: text.startIndex, in: text.startIndex..<text.endIndex),
            end == text.endIndex
        else { return nil }
        return date
    }

    /// `date` in UTC, with milliseconds only when it has a fraction of a second.
    static func string(from date: Date) -> String {
        let whole = date.timeIntervalSinceReferenceDate.rounded(.down) == date.timeIntervalSinceReferenceDate
        return whole ? withoutFraction.format(date) : withFraction.format(date)
    }
}

/// Checks the spelling of numbers byte by byte (faster than a regular expression on large imports).
enum NumberSyntax {
    /// An optional sign and one or more digits.
    static func isWholeNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes.removeFirst() }
        return !bytes.isEmpty && bytes.allSatisfy(isDigit)
    }

    /// An optional sign, digits with an optional decimal point (at least one digit), and an optional
    /// exponent (`e` or `E`, an optional sign, one or more digits).
    static func isDecimalNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes.removeFirst() }
        var mantissaDigits = 0
        while let byte = bytes.first, isDigit(byte) { mantissaDigits += 1; bytes.removeFirst() }
        if bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            while let byte = bytes.first, isDigit(byte) { mantissaDigits += 1; bytes.removeFirst() }
        }
        guard mantissaDigits > 0 else { return false }
        if let byte = bytes.first, byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            bytes.removeFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes.removeFirst() }
            guard !bytes.isEmpty, bytes.allSatisfy(isDigit) else { return false }
            return true
        }
        return bytes.isEmpty
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
