import Foundation

/// Reads the people files `objectgraph import` reads, as rows of raw values by attribute name.
///
/// - JSON: an array of objects whose keys are attribute names (`{"lastName": "Lovelace", "age": 36}`);
///   values are strings, numbers, `true`/`false` or `null`.
/// - CSV: a header row of attribute names, then one record per person (see ``CSVTable``).
///
/// The format comes from the file's extension (`.json`, `.csv`), else from its first non-blank
/// character (`[` for JSON). Values are converted to the model's types later, by ``PersonRowConverter``.
public enum PersonFileReader {
    /// One value as the file wrote it.
    public enum RawValue: Sendable, Hashable, Decodable {
        /// JSON `null`.
        case null
        /// JSON `true` or `false`.
        case bool(Bool)
        /// A JSON number without a fraction.
        case integer(Int64)
        /// Any other JSON number.
        case number(Double)
        /// A JSON string, or a CSV field.
        case text(String)

        /// Reads one JSON value.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let bool = try? container.decode(Bool.self) {
                self = .bool(bool)
            } else if let integer = try? container.decode(Int64.self) {
                self = .integer(integer)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "expected a string, a number, true, false or null")
            }
        }
    }

    /// One person's values; `index` is the 0-based position among the file's rows.
    public struct Row: Sendable, Hashable {
        /// The 0-based position among the file's rows (the header does not count).
        public var index: Int
        /// The values by attribute name; a CSV field without a value is left out.
        public var values: [String: RawValue]
        /// Whether the values are text from a CSV file (numbers and Booleans are then read from text;
        /// in JSON they must be JSON numbers and Booleans).
        public var isText = false
    }

    /// The file formats.
    public enum Format: String, Sendable, Hashable {
        /// A JSON array of objects.
        case json = "JSON"
        /// CSV with a header row.
        case csv = "CSV"
    }

    /// Why a file could not be read at all.
    public struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file.
        public var path: String
        /// What is wrong.
        public var reason: String

        public var description: String { "\(path): \(reason)" }
    }

    /// Reads every row of the file at `url`.
    public static func read(_ url: URL) throws(ReadError) -> (format: Format, rows: [Row]) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ReadError(path: url.path, reason: "cannot read the file (\(error.localizedDescription))")
        }
        let format = format(of: url, data: data)
        do {
            switch format {
            case .json: return (format, try jsonRows(data))
            case .csv: return (format, try csvRows(data))
            }
        } catch {
            throw ReadError(path: url.path, reason: error.reason)
        }
    }

    /// The format by extension, else by content.
    public static func format(of url: URL, data: Data) -> Format {
        switch url.pathExtension.lowercased() {
        case "json": return .json
        case "csv": return .csv
        default:
            let first = data.first { !(Character(UnicodeScalar($0)).isWhitespace) }
            return first == UInt8(ascii: "[") ? .json : .csv
        }
    }

    struct FormatError: Error {
        var reason: String
    }

    static func jsonRows(_ data: Data) throws(FormatError) -> [Row] {
        do {
            let objects = try JSONDecoder().decode([[String: RawValue]].self, from: data)
            return objects.enumerated().map { Row(index: $0.offset, values: $0.element) }
        } catch let error as DecodingError {
            throw FormatError(reason: describe(error))
        } catch {
            throw FormatError(reason: "not valid JSON (\(error))")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found),
            .dataCorrupted(let found):
            context = found
        @unknown default:
            return "not valid people JSON"
        }
        guard let row = context.codingPath.first?.intValue else {
            return context.codingPath.isEmpty
                ? "expected a JSON array of objects (\(context.debugDescription))"
                : "not valid people JSON (\(context.debugDescription))"
        }
        let key = context.codingPath.dropFirst().first.map { " '\($0.stringValue)'" } ?? ""
        return "row \(row)\(key): \(context.debugDescription)"
    }

    static func csvRows(_ data: Data) throws(FormatError) -> [Row] {
        guard let text = String(data: data, encoding: .utf8) else { throw FormatError(reason: "the file is not UTF-8 text") }
        let table: CSVTable
        do {
            table = try CSVTable(parsing: text)
        } catch {
            throw FormatError(reason: "not valid CSV: \(error)")
        }
        var rows: [Row] = []
        rows.reserveCapacity(table.records.count)
        for (index, record) in table.records.enumerated() {
            guard record.fields.count == table.header.count else {
                throw FormatError(reason: "row \(index) (line \(record.line)) has \(record.fields.count) fields; "
                    + "the header has \(table.header.count)")
            }
            var values: [String: RawValue] = [:]
            for (name, field) in zip(table.header, record.fields) {
                if let field { values[name] = .text(field) }
            }
            rows.append(Row(index: index, values: values, isText: true))
        }
        return rows
    }
}
