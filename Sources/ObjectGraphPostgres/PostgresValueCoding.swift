import Foundation
import ObjectGraph

/// How attribute values live in PostgreSQL columns: the column type of each attribute type, and values as the
/// text libpq sends and receives. Decoding gives back the value a context saved, case for case, so a row read
/// from the server equals the row written.
enum PostgresValueCoding {
    /// The column type of an attribute of `type`. Strings use the "C" collation, so the server compares bytes
    /// as SQLite does, whatever the database's locale.
    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .uri: "text COLLATE \"C\""
        default: baseType(type)
        }
    }

    /// The type of a column of `type` without its collation (what an array of such values is an array of).
    static func baseType(_ type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64: "bigint"
        case .double, .float, .date: "double precision"
        case .decimal: "numeric"
        case .string, .uri: "text"
        case .boolean: "boolean"
        case .binary, .transformable: "bytea"
        case .uuid: "uuid"
        case .undefined, .composite: "text"  // a composite never has a column: its elements do
        }
    }

    /// `value` as text for a column of `type`; nil for NULL.
    static func encode(_ value: AttributeValue, as type: AttributeType) -> String? {
        switch value {
        case .null: return nil
        case .integer(let number):
            switch type {
            case .boolean: return number != 0 ? "t" : "f"
            case .double, .float, .date: return double(Double(number))
            default: return String(number)
            }
        case .double(let number):
            switch type {
            case .integer16, .integer32, .integer64: return value.int64Value.map(String.init) ?? double(number)
            default: return double(number)
            }
        case .decimal(let number): return number.description
        case .string(let text): return text
        case .boolean(let flag):
            switch type {
            case .boolean: return flag ? "t" : "f"
            default: return flag ? "1" : "0"
            }
        case .date(let date): return double(date.timeIntervalSinceReferenceDate)
        case .binary(let data): return "\\x" + data.map { String(format: "%02x", $0) }.joined()
        case .uuid(let uuid): return uuid.uuidString
        case .uri(let url): return url.absoluteString
        }
    }

    /// The value of a column of `type` read as `text` (nil: NULL).
    static func decode(_ text: String?, as type: AttributeType) -> AttributeValue {
        guard let text else { return .null }
        switch type {
        case .integer16, .integer32, .integer64: return Int64(text).map(AttributeValue.integer) ?? .null
        case .double, .float: return parseDouble(text).map(AttributeValue.double) ?? .null
        case .date: return parseDouble(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
        case .decimal: return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(AttributeValue.decimal) ?? .null
        case .string, .undefined, .composite: return .string(text)
        case .uri: return URL(string: text).map(AttributeValue.uri) ?? .string(text)
        case .boolean: return .boolean(text == "t")
        case .binary, .transformable: return hexBytes(text).map(AttributeValue.binary) ?? .null
        case .uuid: return UUID(uuidString: text).map(AttributeValue.uuid) ?? .null
        }
    }

    /// A double as PostgreSQL reads it (shortest round-tripping digits; `Infinity`, `-Infinity`, `NaN`).
    private static func double(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number > 0 ? "Infinity" : "-Infinity" }
        return "\(number)"
    }

    private static func parseDouble(_ text: String) -> Double? {
        switch text {
        case "NaN": .nan
        case "Infinity": .infinity
        case "-Infinity": -.infinity
        default: Double(text)
        }
    }

    /// The bytes of a `bytea` in hex output format (`\x0aff`).
    private static func hexBytes(_ text: String) -> Data? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var data = Data(capacity: (utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }
}
