import Foundation

/// One field of a CSV record: its text and whether it was quoted, so that an empty quoted field (`""`)
/// can mean an empty string while an empty unquoted field means "no value".
struct CSVField: Equatable {
    var text: String
    var quoted: Bool
}

/// One CSV record and the line it starts on (1-based; a quoted newline makes a record span lines).
struct CSVRecord: Equatable {
    var fields: [CSVField]
    var line: Int
}

/// CSV that is not well formed: what is wrong and where (1-based line and column in bytes).
struct CSVReadError: Error, CustomStringConvertible, Equatable {
    var message: String
    var line: Int
    var column: Int

    var description: String { "\(message) at line \(line), column \(column)" }
}

/// An RFC 4180 CSV parser over UTF-8 bytes.
///
/// Fields are separated by commas and records by CRLF, LF or CR. A field that starts with a double quote
/// is quoted: it may contain commas, line breaks and doubled quotes (`""` for `"`), and must be followed
/// by a comma, a line break or the end of the input. A quote inside an unquoted field is an error, as is
/// an unterminated quoted field. Empty lines are skipped, a UTF-8 byte-order mark is ignored, and a final
/// line break does not start a new record.
enum CSVReader {
    /// Parses all records of `data`.
    static func parse(_ data: Data) throws(CSVReadError) -> [CSVRecord] {
        let bytes = [UInt8](data)
        var position = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var lineStart = position
        var records: [CSVRecord] = []
        var fields: [CSVField] = []
        var recordLine = 1

        func text(_ range: Range<Int>) throws(CSVReadError) -> String {
            guard let string = String(validating: bytes[range], as: UTF8.self) else {
                throw CSVReadError(message: "invalid UTF-8", line: line, column: range.lowerBound - lineStart + 1)
            }
            return string
        }
        func isLineBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }
        /// Moves past a line break at `position` (CRLF counts once).
        func skipLineBreak() {
            if bytes[position] == 0x0D, position + 1 < bytes.count, bytes[position + 1] == 0x0A { position += 1 }
            position += 1
            line += 1
            lineStart = position
        }

        while position < bytes.count {
            if fields.isEmpty {
                recordLine = line
                if isLineBreak(bytes[position]) {  // an empty line
                    skipLineBreak()
                    continue
                }
            }
            var field: CSVField
            if bytes[position] == UInt8(ascii: "\"") {
                let openLine = line
                let openColumn = position - lineStart + 1
                position += 1
                var value = ""
                var runStart = position
                while true {
                    guard position < bytes.count else {
                        throw CSVReadError(message: "unterminated quoted field (opened here)", line: openLine,
                            column: openColumn)
                    }
                    let byte = bytes[position]
                    if byte == UInt8(ascii: "\"") {
                        value += try text(runStart..<position)
                        if position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "\"") {
                            value += "\""
                            position += 2
                            runStart = position
                            continue
                        }
                        position += 1
                        break
                    }
                    if isLineBreak(byte) {
                        value += try text(runStart..<position)
                        let isCRLF = byte == 0x0D && position + 1 < bytes.count && bytes[position + 1] == 0x0A
                        value += isCRLF ? "\r\n" : String(UnicodeScalar(byte))
                        skipLineBreak()
                        runStart = position
                        continue
                    }
                    position += 1
                }
                if position < bytes.count, bytes[position] != UInt8(ascii: ","), !isLineBreak(bytes[position]) {
                    throw CSVReadError(message: "unexpected character after a closing quote (expected ',' or a "
                        + "line break)", line: line, column: position - lineStart + 1)
                }
                field = CSVField(text: value, quoted: true)
            } else {
                let start = position
                while position < bytes.count, bytes[position] != UInt8(ascii: ","), !isLineBreak(bytes[position]) {
                    if bytes[position] == UInt8(ascii: "\"") {
                        throw CSVReadError(message: "a double quote inside an unquoted field (quote the whole "
                            + "field and double the quote)", line: line, column: position - lineStart + 1)
                    }
                    position += 1
                }
                field = CSVField(text: try text(start..<position), quoted: false)
            }
            fields.append(field)
            if position < bytes.count, bytes[position] == UInt8(ascii: ",") {
                position += 1
                if position == bytes.count { fields.append(CSVField(text: "", quoted: false)) }
                continue
            }
            // End of the record: a line break or the end of the input.
            records.append(CSVRecord(fields: fields, line: recordLine))
            fields = []
            if position < bytes.count { skipLineBreak() }
        }
        if !fields.isEmpty { records.append(CSVRecord(fields: fields, line: recordLine)) }
        return records
    }
}
