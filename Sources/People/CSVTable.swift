import Foundation

/// A CSV file split into a header row and records (RFC 4180).
///
/// Fields are separated by commas and records by line breaks (CRLF or LF). A field in double quotes may
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
    /// - Throws: ``ParseError`` for an unterminated quoted field, text after a closing quote, or a
    ///   header with an empty or repeated name.
    public init(parsing text: String) throws(ParseError) {
        var rows: [Record] = []
        var fields: [String?] = []
        var field = ""
        var quoted = false  // the current field started with a quote
        var inQuotes = false  // inside the quotes of the current field
        var afterClosingQuote = false
        var line = 1
        var recordLine = 1
        var fieldHasContent = false

        func endField() {
            fields.append(quoted || fieldHasContent ? field : nil)
            field = ""
            quoted = false
            afterClosingQuote = false
            fieldHasContent = false
        }
        func endRecord() {
            endField()
            // A line with one empty field is a blank line.
            if !(fields.count == 1 && fields[0] == nil) { rows.append(Record(line: recordLine, fields: fields)) }
            fields = []
        }

        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? scalars.next() {
            pending = nil
            if inQuotes {
                if scalar == "\"" {
                    let next = scalars.next()
                    if next == "\"" {
                        field.unicodeScalars.append("\"")
                    } else {
                        inQuotes = false
                        afterClosingQuote = true
                        pending = next
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case ",":
                endField()
            case "\r", "\n":
                if scalar == "\r" {
                    let next = scalars.next()
                    if next != "\n" { pending = next }
                }
                endRecord()
                line += 1
                recordLine = line
            case "\"" where !quoted && !fieldHasContent:
                quoted = true
                inQuotes = true
            default:
                if afterClosingQuote {
                    throw ParseError(line: line, reason: "text after the closing quote of a field")
                }
                if scalar == "\"" {
                    throw ParseError(line: line, reason: "a quote inside an unquoted field (quote the field and double the quote)")
                }
                field.unicodeScalars.append(scalar)
                fieldHasContent = true
            }
        }
        if inQuotes { throw ParseError(line: recordLine, reason: "a quoted field is not closed") }
        if quoted || fieldHasContent || !fields.isEmpty { endRecord() }

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
        guard text.isEmpty || text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
