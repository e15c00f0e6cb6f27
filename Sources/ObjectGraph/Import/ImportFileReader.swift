import Foundation

/// Reads the rows of an import file as it goes — a JSON array of objects, JSON Lines (one object per line)
/// or CSV with a header row of names — so that the first rows can be saved while the rest is unread, and
/// memory stays flat (about one chunk plus the longest row) whatever the file's size.
///
/// ```swift
/// let reader = try ImportFileReader(contentsOf: url)
/// while let row = try reader.next() { … }
/// ```
///
/// Errors that stop the reading (malformed JSON or CSV, a bad CSV header, an unreadable file, a row over
/// ``maximumRowBytes``) are thrown as ``ImportReadError`` with line, column and byte offset; problems of one
/// row (a JSON element that is not an object, a repeated key, a CSV record with the wrong number of fields, a
/// JSON Lines line that is not valid JSON) come back in that row and the reading goes on.
public final class ImportFileReader {
    /// The file formats.
    public enum Format: String, Sendable, CaseIterable {
        /// A JSON array of objects.
        case json = "JSON"
        /// JSON Lines: one JSON object per line (`.jsonl`, `.ndjson`).
        case jsonLines = "JSON Lines"
        /// CSV (RFC 4180) with a header row of names.
        case csv = "CSV"

        /// The format an extension names (`json`, `jsonl`, `ndjson`, `csv`, in any case), or nil.
        public init?(pathExtension: String) {
            switch pathExtension.lowercased() {
            case "json": self = .json
            case "jsonl", "ndjson": self = .jsonLines
            case "csv": self = .csv
            default: return nil
            }
        }
    }

    /// The longest row read by default: 64 MiB.
    public static let defaultMaximumRowBytes = 64 << 20

    /// The format being read.
    public let format: Format
    /// The longest row accepted, in bytes; a longer one is a ``ImportReadError/Kind/rowTooLarge`` error.
    public let maximumRowBytes: Int
    /// The CSV header's names (nil for JSON, and before the first ``next()``).
    public private(set) var header: [String]?

    private let input: ChunkedInput
    private var state = State.start
    private var rowIndex = 0
    private var line = 1
    private var lineStart = 0

    private enum State { case start, rows(first: Bool), done }

    /// Opens the file at `url`. The format is `format`, else the extension's, else the content's (`[` first:
    /// a JSON array; `{`: JSON Lines; anything else: CSV).
    ///
    /// - Throws: ``ImportReadError`` (`.unreadable`) when the file cannot be opened or read.
    public init(contentsOf url: URL, format: Format? = nil, chunkSize: Int = 1 << 20,
        maximumRowBytes: Int = ImportFileReader.defaultMaximumRowBytes) throws(ImportReadError)
    {
        input = try ChunkedInput(url: url, chunkSize: chunkSize)
        self.maximumRowBytes = maximumRowBytes
        self.format = format ?? Format(pathExtension: url.pathExtension) ?? Self.sniff(input.storage)
    }

    /// Reads rows from bytes in memory (for tests and small inputs); the format as for files, without an extension.
    public convenience init(data: Data, format: Format? = nil,
        maximumRowBytes: Int = ImportFileReader.defaultMaximumRowBytes)
    {
        self.init(data: data, format: format, chunkSize: nil, maximumRowBytes: maximumRowBytes)
    }

    /// Reads rows from bytes in memory handed out `chunkSize` at a time, as a file is read (nil: all at once) —
    /// for tests and fuzzing of chunk boundaries.
    public init(data: Data, format: Format?, chunkSize: Int?, maximumRowBytes: Int) {
        input = ChunkedInput(bytes: [UInt8](data), chunkSize: chunkSize)
        self.maximumRowBytes = maximumRowBytes
        self.format = format ?? Self.sniff([UInt8](data.prefix(4096)))
    }

    /// Where the content starts: after a UTF-8 byte-order mark, if the window (which must then be long enough
    /// to tell) starts with one.
    static func skipByteOrderMark(_ buffer: UnsafeBufferPointer<UInt8>, isFinal: Bool) throws(ScanFailure) -> Int {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        if buffer.count < 3, !isFinal, mark.starts(with: buffer) { throw .needMore }
        return buffer.starts(with: mark) ? 3 : 0
    }

    /// The format by content: the first byte after a byte-order mark and whitespace.
    static func sniff(_ bytes: [UInt8]) -> Format {
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        switch first {
        case UInt8(ascii: "["): return .json
        case UInt8(ascii: "{"): return .jsonLines
        default: return .csv
        }
    }

    /// Bytes read from the file so far.
    public var bytesRead: Int { input.bytesRead }
    /// Bytes consumed by the rows returned so far.
    public var bytesConsumed: Int { input.offset }
    /// The file's size, when it is a regular file.
    public var fileSize: Int? { input.size }

    /// The next row, or nil after the last one.
    ///
    /// - Throws: ``ImportReadError`` when the file is malformed, unreadable or has a row that is too long.
    public func next() throws(ImportReadError) -> ImportRow? {
        while true {
            if case .done = state { return nil }
            let startOffset = input.offset
            let outcome = input.storage.withUnsafeBufferPointer { buffer in
                Result { () throws(ScanFailure) -> Step in try step(buffer) }
            }
            switch outcome {
            case .success(let step):
                input.consume(upTo: step.end)
                line = step.line
                lineStart = step.lineStart
                state = step.state
                if let row = step.row { return row }
                if case .done = state { return nil }
            case .failure(.needMore):
                if input.bytesRead - startOffset >= maximumRowBytes {
                    throw ImportReadError(kind: .rowTooLarge,
                        message: "a row longer than \(maximumRowBytes) bytes (the reader's limit)", line: line,
                        column: startOffset - lineStart + 1, byteOffset: startOffset)
                }
                try input.readMore()
            case .failure(let failure):
                let scanner = JSONScanner(bytes: UnsafeBufferPointer(start: nil, count: 0), base: input.base,
                    isFinal: true, position: 0, line: line, lineStart: lineStart)
                state = .done
                throw failure.readError(scanner)
            }
        }
    }

    /// What one step of reading produced: maybe a row, and where the reading stands after it.
    private struct Step {
        var row: ImportRow?
        var end: Int
        var line: Int
        var lineStart: Int
        var state: State
    }

    private func step(_ buffer: UnsafeBufferPointer<UInt8>) throws(ScanFailure) -> Step {
        var position = input.start
        let isFinal = input.isAtEnd
        if case .start = state, input.base == 0, position == 0 {
            position = try Self.skipByteOrderMark(buffer, isFinal: isFinal)
        }
        switch format {
        case .json: return try jsonStep(buffer, position: position, isFinal: isFinal)
        case .jsonLines: return try jsonLinesStep(buffer, position: position, isFinal: isFinal)
        case .csv: return try csvStep(buffer, position: position, isFinal: isFinal)
        }
    }

    // MARK: JSON array

    private func jsonStep(_ buffer: UnsafeBufferPointer<UInt8>, position: Int, isFinal: Bool) throws(ScanFailure) -> Step {
        var scanner = JSONScanner(bytes: buffer, base: input.base, isFinal: isFinal, position: position, line: line,
            lineStart: lineStart)
        scanner.skipWhitespace()
        guard scanner.position < buffer.count else {
            guard isFinal else { throw .needMore }
            if case .start = state { throw layoutError("the file is empty: it must hold a JSON array of objects") }
            throw scanner.failure("unexpected end of input: expected ',' or ']'")
        }
        let byte = buffer[scanner.position]
        switch state {
        case .done:
            return Step(row: nil, end: scanner.position, line: scanner.line, lineStart: scanner.lineStart, state: .done)
        case .start:
            guard byte == UInt8(ascii: "[") else {
                if byte == UInt8(ascii: "{") {
                    throw layoutError("the file must hold a JSON array of objects, not an object (one object per line is "
                        + "JSON Lines: name the file .jsonl)")
                }
                let kind = Self.kind(startingWith: byte)
                throw kind.map { layoutError("the file must hold a JSON array of objects, not \($0)") }
                    ?? scanner.failure("unexpected character '\(JSONScanner.printable(byte))': expected a value")
            }
            scanner.position += 1
            return Step(row: nil, end: scanner.position, line: scanner.line, lineStart: scanner.lineStart,
                state: .rows(first: true))
        case .rows(let first):
            if byte == UInt8(ascii: "]") {
                scanner.position += 1
                scanner.skipWhitespace()
                guard scanner.position == buffer.count else { throw scanner.failure("unexpected text after the JSON value") }
                guard isFinal else { throw .needMore }
                return Step(row: nil, end: scanner.position, line: scanner.line, lineStart: scanner.lineStart, state: .done)
            }
            if !first {
                guard byte == UInt8(ascii: ",") else {
                    throw scanner.failure("unexpected character '\(JSONScanner.printable(byte))': expected ',' or ']'")
                }
                scanner.position += 1
                scanner.skipWhitespace()
            }
            let rowLine = scanner.line
            let rowOffset = input.base + scanner.position
            let fields = try scanner.parseRow()
            let row = ImportRow(index: rowIndex, line: rowLine, byteOffset: rowOffset, fields: fields)
            rowIndex += 1
            return Step(row: row, end: scanner.position, line: scanner.line, lineStart: scanner.lineStart,
                state: .rows(first: false))
        }
    }

    private func layoutError(_ message: String) -> ScanFailure { .layout(message) }

    /// What a JSON document starting with `byte` is, for "not an object" messages.
    private static func kind(startingWith byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): "a number"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "a Boolean"
        case UInt8(ascii: "n"): "null"
        default: nil
        }
    }

    // MARK: JSON Lines

    private func jsonLinesStep(_ buffer: UnsafeBufferPointer<UInt8>, position: Int, isFinal: Bool) throws(ScanFailure)
        -> Step
    {
        var scanner = JSONScanner(bytes: buffer, base: input.base, isFinal: isFinal, position: position, line: line,
            lineStart: lineStart)
        scanner.skipWhitespace()
        guard scanner.position < buffer.count else {
            guard isFinal else { throw .needMore }
            return Step(row: nil, end: scanner.position, line: scanner.line, lineStart: scanner.lineStart, state: .done)
        }
        let rowStart = scanner.position
        var lineEnd = buffer.count
        if let base = buffer.baseAddress, let found = memchr(base + rowStart, 0x0A, buffer.count - rowStart) {
            lineEnd = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        guard lineEnd < buffer.count || isFinal else { throw .needMore }
        // The line alone, as a whole document.
        var lineScanner = JSONScanner(bytes: UnsafeBufferPointer(rebasing: buffer[..<lineEnd]), base: input.base,
            isFinal: true, position: rowStart, line: scanner.line, lineStart: scanner.lineStart)
        let fields: Result<[(key: String, value: ImportField)], ImportRowProblem>
        do {
            let row = try lineScanner.parseRow()
            lineScanner.skipWhitespace()
            if lineScanner.position < lineEnd {
                fields = .failure(ImportRowProblem("not valid JSON: unexpected text after the object at column "
                    + "\(input.base + lineScanner.position - scanner.lineStart + 1)"))
            } else {
                fields = row
            }
        } catch {
            let described = error.readError(lineScanner)
            fields = .failure(ImportRowProblem("not valid JSON: \(described.message) at column \(described.column)"))
        }
        let row = ImportRow(index: rowIndex, line: scanner.line, byteOffset: input.base + rowStart, fields: fields)
        rowIndex += 1
        let next = min(lineEnd + 1, buffer.count)
        let nextLine = lineEnd < buffer.count ? scanner.line + 1 : scanner.line
        return Step(row: row, end: next, line: nextLine, lineStart: lineEnd < buffer.count ? input.base + next : scanner.lineStart,
            state: .rows(first: false))
    }

    // MARK: CSV

    private func csvStep(_ buffer: UnsafeBufferPointer<UInt8>, position: Int, isFinal: Bool) throws(ScanFailure) -> Step {
        var scanner = CSVScanner(bytes: buffer, base: input.base, isFinal: isFinal, position: position, line: line,
            lineStart: lineStart)
        let record = try scanner.scanRecord()
        func step(_ row: ImportRow?, _ state: State) -> Step {
            Step(row: row, end: scanner.position, line: scanner.line, lineStart: scanner.lineStart, state: state)
        }
        guard let record else {
            if case .start = state {
                throw layoutError("the file is empty: a CSV file needs a header row of attribute names")
            }
            return step(nil, .done)
        }
        guard let header else {
            let names = record.fields.map { $0.text.trimmingCharacters(in: .whitespaces) }
            var seen: Set<String> = []
            for (column, name) in names.enumerated() {
                guard !name.isEmpty else {
                    throw layoutError("the header (line \(record.line)) has an empty name in column \(column + 1)")
                }
                guard seen.insert(name).inserted else {
                    throw layoutError("the header (line \(record.line)) names '\(name)' more than once")
                }
            }
            self.header = names
            return step(nil, .rows(first: true))
        }
        let fields: Result<[(key: String, value: ImportField)], ImportRowProblem>
        if record.fields.count == header.count {
            var pairs: [(key: String, value: ImportField)] = []
            pairs.reserveCapacity(header.count)
            for (name, field) in zip(header, record.fields) { pairs.append((name, .csv(field))) }
            fields = .success(pairs)
        } else {
            fields = .failure(ImportRowProblem("has \(record.fields.count) field(s) but the header has \(header.count)",
                kind: .fieldCount(found: record.fields.count, header: header.count)))
        }
        let row = ImportRow(index: rowIndex, line: record.line, byteOffset: record.byteOffset, fields: fields)
        rowIndex += 1
        return step(row, .rows(first: false))
    }
}
