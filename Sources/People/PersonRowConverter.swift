import Foundation
import ObjectGraph

/// Turns a row read from a people file into attribute values of the model's types, as
/// `objectgraph import` does: dates are ISO 8601 (`2024-03-01T12:30:00Z`, with or without fractional
/// seconds, or `2024-03-01`), Booleans `true`/`false`, binary data Base64, numbers from JSON numbers or
/// CSV text.
///
/// The converter checks kinds and names only; ranges, optionality and patterns are checked by
/// `validateValue(_:forKey:)` when the values are set. Keys the store derives (`sectionOrder`, kept up
/// to date from `lastName`) and `objectID` (which `objectgraph query --json` prints) are skipped, so a
/// query's output imports back.
public struct PersonRowConverter {
    /// A value that cannot be stored in its attribute.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The attribute.
        public var key: String
        /// What is wrong.
        public var reason: String

        public var description: String { "'\(key)': \(reason)" }
    }

    private let entity: EntityDescription
    private let plainDates = ISO8601DateFormatter()
    private let fractionalDates = ISO8601DateFormatter()
    private let dayDates = ISO8601DateFormatter()

    /// A converter for rows of `entity`.
    public init(entity: EntityDescription) {
        self.entity = entity
        fractionalDates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        dayDates.formatOptions = [.withFullDate]
    }

    /// The row's values by key, in a stable order (by key).
    public func values(of row: PersonFileReader.Row) throws(Problem) -> [(key: String, value: AttributeValue)] {
        var result: [(key: String, value: AttributeValue)] = []
        for key in row.values.keys.sorted() {
            guard let raw = row.values[key], key != "objectID" else { continue }
            guard let attribute = entity.attribute(named: key) else {
                throw Problem(key: key, reason: "\(entity.name) has no such attribute")
            }
            if attribute.isTransient || attribute.userInfo["derivedFrom"] != nil { continue }
            result.append((key, try value(raw, for: attribute, isText: row.isText)))
        }
        return result
    }

    private func value(_ raw: PersonFileReader.RawValue, for attribute: AttributeDescription, isText: Bool)
        throws(Problem) -> AttributeValue
    {
        func problem(_ reason: String) -> Problem { Problem(key: attribute.name, reason: reason) }
        if case .null = raw { return .null }
        if !isText, case .text(let text) = raw,
            [.integer16, .integer32, .integer64, .double, .float, .decimal, .boolean].contains(attribute.attributeType)
        {
            throw problem("expected a \(attribute.attributeType == .boolean ? "Boolean" : "number"), found the string \"\(text)\"")
        }
        switch attribute.attributeType {
        case .string:
            guard case .text(let text) = raw else { throw problem("expected a string, found \(Self.describe(raw))") }
            return .string(text)
        case .integer16, .integer32, .integer64:
            switch raw {
            case .integer(let number): return .integer(number)
            case .text(let text):
                guard let number = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                    throw problem("expected a whole number, found \"\(text)\"")
                }
                return .integer(number)
            default: throw problem("expected a whole number, found \(Self.describe(raw))")
            }
        case .double, .float, .decimal:
            switch raw {
            case .integer(let number): return .double(Double(number))
            case .number(let number): return .double(number)
            case .text(let text):
                guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else {
                    throw problem("expected a number, found \"\(text)\"")
                }
                return attribute.attributeType == .decimal ? .decimal(Decimal(number)) : .double(number)
            default: throw problem("expected a number, found \(Self.describe(raw))")
            }
        case .boolean:
            switch raw {
            case .bool(let flag): return .boolean(flag)
            case .text("true"): return .boolean(true)
            case .text("false"): return .boolean(false)
            default: throw problem("expected true or false, found \(Self.describe(raw))")
            }
        case .date:
            guard case .text(let text) = raw, let date = date(from: text) else {
                throw problem("expected an ISO 8601 date such as 2024-03-01T12:30:00Z, found \(Self.describe(raw))")
            }
            return .date(date)
        case .binary:
            guard case .text(let text) = raw, let data = Data(base64Encoded: text) else {
                throw problem("expected Base64 data, found \(Self.describe(raw))")
            }
            return .binary(data)
        case .uuid:
            guard case .text(let text) = raw, let uuid = UUID(uuidString: text) else {
                throw problem("expected a UUID, found \(Self.describe(raw))")
            }
            return .uuid(uuid)
        case .uri:
            guard case .text(let text) = raw, let url = URL(string: text) else {
                throw problem("expected a URL, found \(Self.describe(raw))")
            }
            return .uri(url)
        default:
            throw problem("\(attribute.attributeType) attributes cannot be imported")
        }
    }

    private func date(from text: String) -> Date? {
        plainDates.date(from: text) ?? fractionalDates.date(from: text) ?? dayDates.date(from: text)
    }

    private static func describe(_ raw: PersonFileReader.RawValue) -> String {
        switch raw {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .integer(let number): "the number \(number)"
        case .number(let number): "the number \(number)"
        case .text(let text): "the string \"\(text)\""
        }
    }
}
