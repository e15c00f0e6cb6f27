/// One field of a CSV record: its text and whether it was quoted, so that an empty quoted field (`""`)
/// can mean an empty string while an empty unquoted field means "no value".
public struct CSVField: Sendable, Hashable {
    /// The field's text (quotes removed, doubled quotes made single).
    public var text: String
    /// Whether the field was in double quotes.
    public var quoted: Bool

    /// Creates a field.
    public init(text: String, quoted: Bool) {
        self.text = text
        self.quoted = quoted
    }
}

/// One CSV record, the 1-based line it starts on (a quoted line break makes a record span lines) and its
/// 0-based byte offset in the file.
public struct CSVRecord: Sendable, Hashable {
    /// The fields, in order.
    public var fields: [CSVField]
    /// The 1-based line the record starts on.
    public var line: Int
    /// The 0-based byte offset of the record in the file.
    public var byteOffset: Int
}

/// An RFC 4180 CSV scanner over a window of a file's UTF-8 bytes (see ``JSONScanner`` for windows).
///
/// Fields are separated by commas and records by CRLF, LF or CR. A field that starts with a double quote
/// is quoted: it may contain commas, line breaks and doubled quotes (`""` for `"`), and must be followed
/// by a comma, a line break or the end of the input. A quote inside an unquoted field is an error, as is
/// an unterminated quoted field. Empty lines are skipped, and a final line break does not start a new record.
struct CSVScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let base: Int
    let isFinal: Bool
    var position: Int
    var line: Int
    var lineStart: Int

    private func failure(_ message: String, at index: Int? = nil, line: Int? = nil, lineStart: Int? = nil) -> ScanFailure {
        .malformed(message, offset: base + (index ?? position), line: line ?? self.line,
            lineStart: lineStart ?? self.lineStart)
    }

    @inline(__always) private static func isLineBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }

    /// Moves past the line break at `position` (CRLF counts once); needs the next byte after a CR.
    private mutating func skipLineBreak() throws(ScanFailure) {
        if bytes[position] == 0x0D {
            guard position + 1 < bytes.count || isFinal else { throw .needMore }
            if position + 1 < bytes.count, bytes[position + 1] == 0x0A { position += 1 }
        }
        position += 1
        line += 1
        lineStart = base + position
    }

    private func text(_ range: Range<Int>, isASCII: Bool = false) throws(ScanFailure) -> String {
        guard let string = utf8String(bytes, range, isASCII: isASCII) else {
            throw failure("invalid UTF-8", at: range.lowerBound)
        }
        return string
    }

    /// The next record, or nil at the end of the input (empty lines before it are skipped).
    mutating func scanRecord() throws(ScanFailure) -> CSVRecord? {
        while true {
            guard position < bytes.count else {
                if isFinal { return nil }
                throw .needMore
            }
            guard Self.isLineBreak(bytes[position]) else { break }
            try skipLineBreak()
        }
        let record = CSVRecord(fields: [], line: line, byteOffset: base + position)
        var fields: [CSVField] = []
        while true {
            fields.append(try scanField())
            if position < bytes.count, bytes[position] == UInt8(ascii: ",") {
                position += 1
                if position == bytes.count {
                    guard isFinal else { throw .needMore }
                    fields.append(CSVField(text: "", quoted: false))
                    break
                }
                continue
            }
            // The end of the record: a line break or the end of the input.
            if position < bytes.count { try skipLineBreak() }
            break
        }
        return CSVRecord(fields: fields, line: record.line, byteOffset: record.byteOffset)
    }

    private mutating func scanField() throws(ScanFailure) -> CSVField {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            let start = position
            var high: UInt8 = 0
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: ",") || Self.isLineBreak(byte) { break }
                if byte == UInt8(ascii: "\"") {
                    throw failure("a double quote inside an unquoted field (quote the whole field and double the quote)")
                }
                high |= byte
                position += 1
            }
            guard position < bytes.count || isFinal else { throw .needMore }
            return CSVField(text: try text(start..<position, isASCII: high < 0x80), quoted: false)
        }
        let openLine = line
        let openLineStart = lineStart
        let open = position
        position += 1
        var value = ""
        var runStart = position
        while true {
            guard position < bytes.count else {
                guard isFinal else { throw .needMore }
                throw failure("unterminated quoted field (opened here)", at: open, line: openLine, lineStart: openLineStart)
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                guard position + 1 < bytes.count || isFinal else { throw .needMore }
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
            if Self.isLineBreak(byte) {
                value += try text(runStart..<position)
                guard byte == 0x0A || position + 1 < bytes.count || isFinal else { throw .needMore }
                let isCRLF = byte == 0x0D && position + 1 < bytes.count && bytes[position + 1] == 0x0A
                value += isCRLF ? "\r\n" : String(UnicodeScalar(byte))
                try skipLineBreak()
                runStart = position
                continue
            }
            position += 1
        }
        if position < bytes.count, bytes[position] != UInt8(ascii: ","), !Self.isLineBreak(bytes[position]) {
            throw failure("unexpected character after a closing quote (expected ',' or a line break)")
        }
        return CSVField(text: value, quoted: true)
    }
}
