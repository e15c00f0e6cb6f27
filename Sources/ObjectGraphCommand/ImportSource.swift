import Foundation
import ObjectGraph

/// One input value: a JSON value, or a CSV field.
enum ImportInput {
    case json(JSONInput)
    case csv(CSVField)
}

/// One row of input data: its 0-based index among the data rows, where it is in the file, and its
/// key-value pairs (or why it has none).
struct ImportRecord {
    /// The 0-based position among the data rows (a CSV header row is not counted).
    var index: Int
    /// Where the row starts, for messages (`line 7`), when the format has lines.
    var line: Int?
    /// The row's key-value pairs in input order, or why the row is malformed.
    var fields: Result<[(key: String, value: ImportInput)], ImportValueError>
}

/// Reading an import file: a JSON array of objects or a CSV file with a header row.
enum ImportSource {
    /// The input formats.
    enum Format: String {
        case json = "JSON"
        case csv = "CSV"
    }

    /// The format of `url`: by extension (`.json`, `.csv`), else by content (JSON starts with `[`).
    static func format(of url: URL, data: Data) -> Format {
        switch url.pathExtension.lowercased() {
        case "json": return .json
        case "csv": return .csv
        default:
            let first = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
            return first == UInt8(ascii: "[") ? .json : .csv
        }
    }

    /// Reads every row of the file at `url`.
    ///
    /// - Throws: ``CommandFailure`` when the file cannot be read or is not well formed as a whole (not a
    ///   JSON array, malformed JSON or CSV, a bad CSV header); problems of single rows come back in the
    ///   records instead.
    static func records(at url: URL) throws(CommandFailure) -> (format: Format, records: [ImportRecord]) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CommandFailure("cannot read \(url.path): \((error as NSError).localizedDescription)")
        }
        let format = format(of: url, data: data)
        switch format {
        case .json: return (format, try jsonRecords(data, path: url.path))
        case .csv: return (format, try csvRecords(data, path: url.path))
        }
    }

    /// The rows of a JSON array of objects.
    static func jsonRecords(_ data: Data, path: String) throws(CommandFailure) -> [ImportRecord] {
        let document: JSONInput
        do {
            document = try JSONReader.parse(data)
        } catch {
            throw CommandFailure("\(path) is not valid JSON: \(error)")
        }
        guard case .array(let elements) = document else {
            throw CommandFailure("\(path) must hold a JSON array of objects, not \(document.kindDescription)")
        }
        return elements.enumerated().map { index, element in
            guard case .object(let members) = element else {
                return ImportRecord(index: index, line: nil,
                    fields: .failure(ImportValueError("expected an object, found \(element.kindDescription)")))
            }
            var seen: Set<String> = []
            for member in members where !seen.insert(member.key).inserted {
                return ImportRecord(index: index, line: nil,
                    fields: .failure(ImportValueError("the key '\(member.key)' appears more than once")))
            }
            return ImportRecord(index: index, line: nil, fields: .success(members.map { ($0.key, .json($0.value)) }))
        }
    }

    /// The rows of a CSV file whose first record names the attributes.
    static func csvRecords(_ data: Data, path: String) throws(CommandFailure) -> [ImportRecord] {
        let rows: [CSVRecord]
        do {
            rows = try CSVReader.parse(data)
        } catch {
            throw CommandFailure("\(path) is not valid CSV: \(error)")
        }
        guard let header = rows.first else {
            throw CommandFailure("\(path) is empty: a CSV file needs a header row of attribute names")
        }
        let names = header.fields.map { $0.text.trimmingCharacters(in: .whitespaces) }
        var seen: Set<String> = []
        for (column, name) in names.enumerated() {
            guard !name.isEmpty else {
                throw CommandFailure("\(path): the header (line \(header.line)) has an empty name in column \(column + 1)")
            }
            guard seen.insert(name).inserted else {
                throw CommandFailure("\(path): the header (line \(header.line)) names '\(name)' more than once")
            }
        }
        return rows.dropFirst().enumerated().map { index, row in
            guard row.fields.count == names.count else {
                return ImportRecord(index: index, line: row.line, fields: .failure(ImportValueError(
                    "has \(row.fields.count) field(s) but the header has \(names.count)")))
            }
            return ImportRecord(index: index, line: row.line,
                fields: .success(zip(names, row.fields).map { ($0, .csv($1)) }))
        }
    }
}
