import Foundation
import ObjectGraph

/// A CSV file split into a header row and records (RFC 4180, read by ObjectGraph's ``CSVRecordReader``).
///
/// Fields are separated by commas and records by line breaks (CRLF, LF or CR). A field in double quotes may
/// hold commas, line breaks and doubled quotes (`""` is one `"`). An empty unquoted field is *no value*
/// (nil), while `""` is an empty string — the distinction `objectgraph import` makes too. Blank lines are
/// skipped.
public struct CSVTable: Sendable, Hashable {
    /// The names in the first row.
    public var header: [String]
    /// The records after the header.
    public var records: [Record]

    /// One record: its fields (nil for an empty unquoted field) and the 1-based line it starts on.
    public struct Record: Sendable, Hashable {
        /// The 1-based line the record starts on.
        public var line: Int
        /// The fields, in header order; nil for an empty unquoted field (no value).
        public var fields: [String?]
    }

    /// Why a CSV text could not be split.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The 1-based line of the problem.
        public var line: Int
        /// What is wrong.
        public var reason: String

        public var description: String { "line \(line): \(reason)" }
    }

    /// Splits `text`. The first non-blank record is the header.
    ///
    /// - Throws: ``ParseError`` for an unterminated quoted field, text after a closing quote, a quote inside
    ///   an unquoted field, or a header with an empty or repeated name.
    public init(parsing text: String) throws(ParseError) {
        let reader = CSVRecordReader(data: Data(text.utf8))
        var rows: [Record] = []
        do {
            while let record = try reader.next() {
                rows.append(Record(line: record.line,
                    fields: record.fields.map { $0.quoted || !$0.text.isEmpty ? $0.text : nil }))
            }
        } catch {
            throw ParseError(line: error.line, reason: "\(error.message) (column \(error.column))")
        }
        guard let first = rows.first else {
            header = []
            records = []
            return
        }
        var names: [String] = []
        for (position, name) in first.fields.enumerated() {
            guard let name, !name.isEmpty else {
                throw ParseError(line: first.line, reason: "column \(position + 1) of the header has no name")
            }
            if names.contains(name) { throw ParseError(line: first.line, reason: "the header names '\(name)' twice") }
            names.append(name)
        }
        header = names
        records = Array(rows.dropFirst())
    }

    /// `text` as one CSV field: quoted when it holds a comma, a quote or a line break (or is empty, so
    /// that it reads back as an empty string rather than no value).
    public static func field(_ text: String) -> String {
        ExportWriter.csvField(text)
    }
}
