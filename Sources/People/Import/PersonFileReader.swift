import Foundation
import ObjectGraph

/// Reads the people files `objectgraph import` reads, as rows of raw values by attribute name, with
/// ObjectGraph's streaming ``ImportFileReader``.
///
/// - JSON: an array of objects whose keys are attribute names (`{"lastName": "Lovelace", "age": 36}`);
///   values are strings, numbers, `true`/`false` or `null`.
/// - JSON Lines: one such object per line (`.jsonl`, `.ndjson`).
/// - CSV: a header row of attribute names, then one record per person (see ``CSVTable``).
///
/// The format comes from the file's extension, else from its first non-blank character (`[` for JSON, `{`
/// for JSON Lines). Values are converted to the model's types by ``PersonRowConverter``. ``read(_:)`` reads
/// a whole file; imports read rows as they go (``PersonImporter``).
public enum PersonFileReader {
    /// One value as the file wrote it.
    public enum RawValue: Sendable, Hashable {
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
    public typealias Format = ImportFileReader.Format

    /// Why a file could not be read at all.
    public struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file.
        public var path: String
        /// What is wrong.
        public var reason: String

        public var description: String { "\(path): \(reason)" }
    }

    /// Reads every row of the file at `url`.
    ///
    /// - Throws: ``ReadError`` for an unreadable or malformed file, and for the first row that is not an
    ///   object of plain values (JSON) or has the wrong number of fields (CSV).
    public static func read(_ url: URL) throws(ReadError) -> (format: Format, rows: [Row]) {
        do {
            let reader = try ImportFileReader(contentsOf: url)
            var rows: [Row] = []
            while let row = try reader.next() {
                let fields: [(key: String, value: ImportField)]
                switch row.fields {
                case .success(let found): fields = found
                case .failure(let problem):
                    let place = reader.format == .json ? "" : " (line \(row.line))"
                    if case .fieldCount(let found, let header) = problem.kind {
                        throw ReadError(path: url.path,
                            reason: "row \(row.index)\(place) has \(found) fields; the header has \(header)")
                    }
                    throw ReadError(path: url.path, reason: "row \(row.index)\(place): \(problem)")
                }
                var values: [String: RawValue] = [:]
                for (key, field) in fields {
                    switch rawValue(field) {
                    case .success(let value?): values[key] = value
                    case .success(nil): break
                    case .failure(let reason):
                        throw ReadError(path: url.path, reason: "row \(row.index) '\(key)': \(reason)")
                    }
                }
                rows.append(Row(index: row.index, values: values, isText: reader.format == .csv))
            }
            return (reader.format, rows)
        } catch let error as ReadError {
            throw error
        } catch let error as ImportReadError {
            switch error.kind {
            case .unreadable: throw ReadError(path: url.path, reason: "cannot read the file (\(error.message))")
            default: throw ReadError(path: url.path, reason: error.description)
            }
        } catch {
            throw ReadError(path: url.path, reason: "\(error)")
        }
    }

    /// A field as a raw value: nil for an empty unquoted CSV field (no value).
    static func rawValue(_ field: ImportField) -> Result<RawValue?, ImportRowProblem> {
        switch field {
        case .csv(let field):
            return .success(field.quoted || !field.text.isEmpty ? .text(field.text) : nil)
        case .json(.null): return .success(.null)
        case .json(.bool(let flag)): return .success(.bool(flag))
        case .json(.string(let text)): return .success(.text(text))
        case .json(.number(let text)):
            if let integer = Int64(text) { return .success(.integer(integer)) }
            return .success(.number(Double(text) ?? .nan))
        case .json(let other):
            return .failure(ImportRowProblem("expected a string, a number, true, false or null, found "
                + other.kindDescription))
        }
    }
}
