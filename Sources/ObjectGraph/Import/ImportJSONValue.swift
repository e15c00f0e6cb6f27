import Foundation

/// A parsed JSON value that keeps what an importer needs: numbers as their exact text (so `12.50` can
/// become a `Decimal` and `70000` can be range-checked as an `Integer 16`), `true`/`false` apart from
/// numbers, and object members in order (so duplicate keys can be reported).
public enum ImportJSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number as it was written (`-12.5e3`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([ImportJSONValue])
    /// An object, members in the order written.
    case object([(key: String, value: ImportJSONValue)])

    public static func == (lhs: ImportJSONValue, rhs: ImportJSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    /// What kind of JSON value this is, for error messages ("a string", "an object").
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Parses `data` as one JSON document (RFC 8259, strict; a UTF-8 byte-order mark is skipped).
    ///
    /// - Throws: ``ImportReadError`` (kind `.malformed`) with the line, column and byte offset of the problem.
    public static func parse(_ data: Data) throws(ImportReadError) -> ImportJSONValue {
        let bytes = [UInt8](data)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(ImportReadError) -> ImportJSONValue in
            var scanner = JSONScanner(bytes: buffer, base: 0, isFinal: true, position: 0, line: 1, lineStart: 0)
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.position = 3; scanner.lineStart = 3 }
            do throws(ScanFailure) {
                scanner.skipWhitespace()
                let value = try scanner.parseValue()
                scanner.skipWhitespace()
                guard scanner.position == buffer.count else {
                    throw scanner.failure("unexpected text after the JSON value")
                }
                return value
            } catch {
                throw error.readError(scanner)
            }
        }
    }
}
