import Foundation
import ObjectGraph

/// How the tool prints attribute values: as JSON and as text for tables.
///
/// Dates are ISO 8601 in UTC, binary data is Base64 in JSON (and its size in tables), UUIDs and URLs are
/// their text, decimals keep their digits.
enum ValueFormatting {
    /// `value` as a JSON value.
    static func json(_ value: AttributeValue) -> JSONOutput {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .double(let number): .double(number)
        case .decimal(let number): number.isNaN ? .null : .number(number.description)
        case .string(let text): .string(text)
        case .boolean(let flag): .bool(flag)
        case .date(let date): .string(ISO8601DateText.string(from: date))
        case .binary(let data): .string(data.base64EncodedString())
        case .uuid(let uuid): .string(uuid.uuidString)
        case .uri(let url): .string(url.absoluteString)
        }
    }

    /// `value` as one line of text; nil prints as nothing.
    static func text(_ value: AttributeValue) -> String {
        switch value {
        case .null: ""
        case .integer(let number): String(number)
        case .double(let number): number.isFinite && number == number.rounded() && abs(number) < 1e15
            ? String(Int64(number)) : String(number)
        case .decimal(let number): number.description
        case .string(let text): singleLine(text)
        case .boolean(let flag): flag ? "true" : "false"
        case .date(let date): ISO8601DateText.string(from: date)
        case .binary(let data): "<\(data.count) bytes>"
        case .uuid(let uuid): uuid.uuidString
        case .uri(let url): url.absoluteString
        }
    }

    /// Whether `value` is a number (right-aligned in tables).
    static func isNumeric(_ value: AttributeValue) -> Bool {
        switch value {
        case .integer, .double, .decimal: true
        default: false
        }
    }

    /// `text` with line breaks, tabs and other control characters shown as escapes, so a table row stays
    /// one line.
    static func singleLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        return StringEscaping.escaped(text, style: .display)
    }
}
