import Foundation
import ObjectGraph

/// Turns a row read from a people file into attribute values of the model's types with ObjectGraph's
/// ``ImportValueConverter`` — the rules `objectgraph import` applies: dates are ISO 8601
/// (`2024-03-01T12:30:00Z`, with or without fractional seconds, or `2024-03-01`), Booleans `true`/`false`,
/// binary data Base64, numbers from JSON numbers or CSV text — worded for the app.
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

    /// A converter for rows of `entity`.
    public init(entity: EntityDescription) {
        self.entity = entity
    }

    /// The row's values by key, in a stable order (by key).
    public func values(of row: PersonFileReader.Row) throws(Problem) -> [(key: String, value: AttributeValue)] {
        let fields: [(key: String, value: ImportField)] = row.values.map { key, raw in
            (key, Self.field(raw, isText: row.isText))
        }
        return try values(of: fields)
    }

    /// The values of a row as the streaming reader gives it, in a stable order (by key).
    public func values(of fields: [(key: String, value: ImportField)]) throws(Problem)
        -> [(key: String, value: AttributeValue)]
    {
        var result: [(key: String, value: AttributeValue)] = []
        result.reserveCapacity(fields.count)
        for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
            guard key != "objectID" else { continue }
            guard let attribute = entity.attribute(named: key) else {
                throw Problem(key: key, reason: "\(entity.name) has no such attribute")
            }
            if attribute.isTransient || attribute.userInfo["derivedFrom"] != nil { continue }
            // An empty CSV field is no value: the attribute keeps its default.
            if case .csv(let csv) = field, csv.text.isEmpty, !csv.quoted { continue }
            result.append((key, try value(field, for: attribute)))
        }
        return result
    }

    private func value(_ field: ImportField, for attribute: AttributeDescription) throws(Problem) -> AttributeValue {
        let type = attribute.attributeType
        func problem(_ reason: String) -> Problem { Problem(key: attribute.name, reason: reason) }
        if case .json(.string(let text)) = field,
            [.integer16, .integer32, .integer64, .double, .float, .decimal, .boolean].contains(type)
        {
            throw problem("expected a \(type == .boolean ? "Boolean" : "number"), found the string \"\(text)\"")
        }
        do {
            return try ImportValueConverter.value(field, type: type)
        } catch {
            let found = "\"\(error.text)\""
            switch error.reason {
            case .notWholeNumber: throw problem("expected a whole number, found \(found)")
            case .notNumber: throw problem("expected a number, found \(found)")
            case .notBoolean: throw problem("expected true or false, found \(found)")
            case .notDate: throw problem("expected an ISO 8601 date such as 2024-03-01T12:30:00Z, found \(found)")
            case .notBase64: throw problem("expected Base64 data, found \(found)")
            case .notUUID: throw problem("expected a UUID, found \(found)")
            case .notURI: throw problem("expected a URL, found \(found)")
            case .wrongJSONType(let described): throw problem("expected \(Self.expected(type)), found \(described)")
            case .outOfRange, .undefinedType: throw problem(error.description)
            }
        }
    }

    private static func expected(_ type: AttributeType) -> String {
        switch type {
        case .string: "a string"
        case .integer16, .integer32, .integer64: "a whole number"
        case .double, .float, .decimal: "a number"
        case .boolean: "true or false"
        case .date: "an ISO 8601 date such as 2024-03-01T12:30:00Z"
        case .binary, .transformable: "Base64 data"
        case .uuid: "a UUID"
        case .uri: "a URL"
        case .undefined, .composite: "nothing"
        }
    }

    /// A raw value as the field the streaming reader would have given.
    private static func field(_ raw: PersonFileReader.RawValue, isText: Bool) -> ImportField {
        switch raw {
        case .text(let text): isText ? .csv(CSVField(text: text, quoted: true)) : .json(.string(text))
        case .null: .json(.null)
        case .bool(let flag): .json(.bool(flag))
        case .integer(let number): .json(.number(String(number)))
        case .number(let number): .json(.number("\(number)"))
        }
    }
}
