import Foundation

/// Reads the records of a CSV file (RFC 4180, see ``ImportFileReader`` for the rules) one at a time, as
/// the file is read, without giving the first record a special meaning: for callers with header rules of
/// their own.
public final class CSVRecordReader {
    private let input: ChunkedInput
    private var line = 1
    private var lineStart = 0
    private var isDone = false

    /// Opens the file at `url`.
    ///
    /// - Throws: ``ImportReadError`` (`.unreadable`) when the file cannot be opened or read.
    public init(contentsOf url: URL, chunkSize: Int = 1 << 20) throws(ImportReadError) {
        input = try ChunkedInput(url: url, chunkSize: chunkSize)
    }

    /// Reads records from bytes in memory.
    public init(data: Data) {
        input = ChunkedInput(bytes: [UInt8](data))
    }

    /// Reads records from bytes in memory handed out `chunkSize` at a time (to test chunk boundaries).
    public init(data: Data, chunkSize: Int) {
        input = ChunkedInput(bytes: [UInt8](data), chunkSize: chunkSize)
    }

    /// The next record, or nil after the last one; empty lines are skipped.
    ///
    /// - Throws: ``ImportReadError`` (`.malformed`) with the line, column and byte offset of the problem.
    public func next() throws(ImportReadError) -> CSVRecord? {
        while !isDone {
            let outcome = input.storage.withUnsafeBufferPointer { buffer in
                Result { () throws(ScanFailure) -> (CSVRecord?, CSVScanner) in
                    var position = input.start
                    if input.base == 0, position == 0 {
                        position = try ImportFileReader.skipByteOrderMark(buffer, isFinal: input.isAtEnd)
                    }
                    var scanner = CSVScanner(bytes: buffer, base: input.base, isFinal: input.isAtEnd,
                        position: position, line: line, lineStart: lineStart)
                    return (try scanner.scanRecord(), scanner)
                }
            }
            switch outcome {
            case .success(let (record, scanner)):
                input.consume(upTo: scanner.position)
                line = scanner.line
                lineStart = scanner.lineStart
                if record == nil { isDone = true }
                return record
            case .failure(.needMore):
                try input.readMore()
            case .failure(let failure):
                isDone = true
                let scanner = JSONScanner(bytes: UnsafeBufferPointer(start: nil, count: 0), base: input.base,
                    isFinal: true, position: 0, line: line, lineStart: lineStart)
                throw failure.readError(scanner)
            }
        }
        return nil
    }
}
