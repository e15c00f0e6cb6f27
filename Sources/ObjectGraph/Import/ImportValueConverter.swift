import Foundation

/// Why one input value cannot be stored in an attribute of a type (`"12abc" is not a whole number`).
public struct ImportValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the value.
    public enum Reason: Sendable, Equatable {
        /// Not an optional sign and digits (for an integer type).
        case notWholeNumber
        /// A number outside the type's range (or not finite).
        case outOfRange
        /// Not a plain decimal number (for Double, Float, Decimal).
        case notNumber
        /// Not `true`, `false`, `1` or `0`.
        case notBoolean
        /// Not one of the ISO 8601 forms ``ISO8601DateText`` reads.
        case notDate
        /// Not Base64.
        case notBase64
        /// Not a UUID in its canonical text form.
        case notUUID
        /// Not a URL with a scheme.
        case notURI
        /// The attribute's type is undefined: nothing converts to it.
        case undefinedType
        /// A JSON value of the wrong JSON type (a string for a number attribute, say); `found` describes it.
        case wrongJSONType(found: String)
    }

    /// What is wrong.
    public var reason: Reason
    /// The input as text (a JSON value's text, or the field).
    public var text: String
    /// The attribute type it was read as.
    public var type: AttributeType

    /// Creates an error.
    public init(_ reason: Reason, text: String, type: AttributeType) {
        self.reason = reason
        self.text = text
        self.type = type
    }

    /// The sentence `objectgraph import` prints (`"ten" is not a whole number (Integer 16)`).
    public var description: String {
        let shown = Self.quoted(text)
        switch reason {
        case .notWholeNumber: return "\(shown) is not a whole number (\(type))"
        case .outOfRange:
            switch type {
            case .integer16: return "\(text) is out of range for \(type) (\(Int16.min)...\(Int16.max))"
            case .integer32: return "\(text) is out of range for \(type) (\(Int32.min)...\(Int32.max))"
            case .integer64: return "\(text) is out of range for \(type) (\(Int64.min)...\(Int64.max))"
            default: return "\(text) is out of range for \(type)"
            }
        case .notNumber: return "\(shown) is not a number (\(type))"
        case .notBoolean: return "\(shown) is not a Boolean (use true or false)"
        case .notDate: return "\(shown) is not an ISO 8601 date (like 2024-03-01T12:30:00Z)"
        case .notBase64: return "\(shown) is not Base64-encoded data"
        case .notUUID: return "\(shown) is not a UUID"
        case .notURI: return "\(shown) is not a URL with a scheme (like https://example.com)"
        case .undefinedType: return "an attribute of undefined type cannot be imported"
        case .wrongJSONType(let found): return "expected \(Self.expectedJSON(for: type)) for \(type), found \(found)"
        }
    }

    private static func expectedJSON(for type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal: "a number"
        case .boolean: "true or false"
        case .undefined: "nothing"
        default: "a string"
        }
    }

    /// `text` in double quotes, shortened to 40 characters, line breaks shown as `\n`.
    public static func quoted(_ text: String) -> String {
        let shown = text.count > 40 ? String(text.prefix(39)) + "…" : text
        return "\"" + shown.replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}

/// Converts text and JSON input values to ``AttributeValue``s of an attribute's type, strictly — the one
/// set of rules for `objectgraph import`, `people import`, `--set` values and predicate text arguments.
///
/// Integers must be whole numbers in the type's range (`12abc`, `1.5`, ` 12` and, for Integer 16, `70000` are
/// rejected); reals and decimals are plain decimal numbers (no `nan`, no hex); dates are ISO 8601 with a
/// time zone, with or without fractional seconds, or a bare date (`2024-03-01`, midnight UTC; see
/// ``ISO8601DateText``); Booleans are JSON `true`/`false` or, as text, `true`/`false`/`1`/`0` in any case;
/// binary and transformable values are Base64; UUIDs are in their canonical text form; URIs need a scheme.
///
/// JSON values must have the matching JSON type (a number for numeric attributes, a Boolean for Boolean
/// ones, a string for everything else); JSON `null` is no value. In CSV an empty unquoted field is no value
/// and an empty quoted field (`""`) is an empty string for a String attribute, empty data for a Binary one
/// (no value for other types).
public enum ImportValueConverter {
    /// The value of a JSON input for an attribute of `type`.
    public static func value(json input: ImportJSONValue, type: AttributeType) throws(ImportValueError) -> AttributeValue {
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
            return try value(text: text, type: type)
        default:
            throw ImportValueError(.wrongJSONType(found: describe(input)), text: text(of: input), type: type)
        }
    }

    /// The value of a CSV field for an attribute of `type`: an empty unquoted field is no value (`.null`); an
    /// empty quoted field (`""`) is an empty string, empty data for Binary and Transformable, else no value.
    public static func value(csv field: CSVField, type: AttributeType) throws(ImportValueError) -> AttributeValue {
        if field.text.isEmpty {
            guard field.quoted else { return .null }
            switch type {
            case .string: return .string("")
            case .binary, .transformable: return .binary(Data())
            default: return .null
            }
        }
        return try value(text: field.text, type: type)
    }

    /// The value of an input field for an attribute of `type`.
    public static func value(_ field: ImportField, type: AttributeType) throws(ImportValueError) -> AttributeValue {
        switch field {
        case .json(let json): try value(json: json, type: type)
        case .csv(let csv): try value(csv: csv, type: type)
        }
    }

    /// Parses `text` as a value of `type`.
    public static func value(text: String, type: AttributeType) throws(ImportValueError) -> AttributeValue {
        switch type {
        case .integer16, .integer32, .integer64:
            return try integer(text, type: type)
        case .double, .float, .decimal:
            return try real(text, type: type)
        case .string:
            return .string(text)
        case .boolean:
            guard let flag = boolean(text) else { throw ImportValueError(.notBoolean, text: text, type: type) }
            return .boolean(flag)
        case .date:
            guard let date = ISO8601DateText.date(from: text) else { throw ImportValueError(.notDate, text: text, type: type) }
            return .date(date)
        case .binary, .transformable:
            guard let data = Data(base64Encoded: text) else { throw ImportValueError(.notBase64, text: text, type: type) }
            return .binary(data)
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw ImportValueError(.notUUID, text: text, type: type) }
            return .uuid(uuid)
        case .uri:
            guard !text.contains(where: \.isWhitespace), let components = URLComponents(string: text),
                components.scheme != nil, let url = components.url
            else { throw ImportValueError(.notURI, text: text, type: type) }
            return .uri(url)
        case .undefined, .composite:
            throw ImportValueError(.undefinedType, text: text, type: type)
        }
    }

    /// `true`/`false`/`1`/`0` in any case, or nil.
    public static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "1": true
        case "false", "0": false
        default: nil
        }
    }

    /// A whole number within `type`'s range.
    private static func integer(_ text: String, type: AttributeType) throws(ImportValueError) -> AttributeValue {
        guard NumberSyntax.isWholeNumber(text) else { throw ImportValueError(.notWholeNumber, text: text, type: type) }
        let range: ClosedRange<Int64> =
            switch type {
            case .integer16: Int64(Int16.min)...Int64(Int16.max)
            case .integer32: Int64(Int32.min)...Int64(Int32.max)
            default: Int64.min...Int64.max
            }
        guard let value = Int64(text), range.contains(value) else {
            throw ImportValueError(.outOfRange, text: text, type: type)
        }
        return .integer(value)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// A decimal number (optionally with an exponent) as a Double, Float or Decimal.
    private static func real(_ text: String, type: AttributeType) throws(ImportValueError) -> AttributeValue {
        guard NumberSyntax.isDecimalNumber(text), let double = Double(text) else {
            throw ImportValueError(.notNumber, text: text, type: type)
        }
        guard double.isFinite, type != .float || abs(double) <= Double(Float.greatestFiniteMagnitude) else {
            throw ImportValueError(.outOfRange, text: text, type: type)
        }
        if type == .decimal {
            guard let decimal = Decimal(string: text, locale: posix), !decimal.isNaN else {
                throw ImportValueError(.outOfRange, text: text, type: type)
            }
            return .decimal(decimal)
        }
        return .double(type == .float ? Double(Float(double)) : double)
    }

    /// How messages describe a JSON value (`the string "12"`, `the number 5`, `true`, `an array`).
    public static func describe(_ input: ImportJSONValue) -> String {
        switch input {
        case .string(let text): "the string \(ImportValueError.quoted(text))"
        case .number(let text): "the number \(text)"
        case .bool(let value): "\(value)"
        default: input.kindDescription
        }
    }

    private static func text(of input: ImportJSONValue) -> String {
        switch input {
        case .string(let text), .number(let text): text
        case .bool(let value): "\(value)"
        case .null: "null"
        case .array: "[…]"
        case .object: "{…}"
        }
    }
}

/// Checks the spelling of numbers byte by byte (faster than a regular expression on large imports).
public enum NumberSyntax {
    /// An optional sign and one or more digits.
    public static func isWholeNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes.removeFirst() }
        return !bytes.isEmpty && bytes.allSatisfy(isDigit)
    }

    /// An optional sign, digits with an optional decimal point (at least one digit), and an optional
    /// exponent (`e` or `E`, an optional sign, one or more digits).
    public static func isDecimalNumber(_ text: String) -> Bool {
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
