/// Why an import file cannot be read on: what is wrong and where (1-based line, 1-based column counted in
/// bytes on that line, and the 0-based byte offset in the file).
///
/// Problems of a single row (a JSON element that is not an object, a CSV record with the wrong number of
/// fields, a malformed JSON Lines line) are not read errors: they come back in that row's
/// ``ImportRow/fields`` and the reader goes on.
public struct ImportReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of read errors.
    public enum Kind: Sendable, Equatable {
        /// The file cannot be opened or read (the message is the system's).
        case unreadable
        /// The bytes are not well-formed JSON or CSV.
        case malformed
        /// The file is not laid out as its format needs: a CSV file without a header row or with an empty or
        /// repeated name in it, a JSON file that is not an array.
        case layout
        /// One row is longer than the reader's limit (``ImportFileReader/maximumRowBytes``).
        case rowTooLarge
    }

    /// What kind of problem it is.
    public var kind: Kind
    /// What is wrong.
    public var message: String
    /// The 1-based line (0 when the file could not be read).
    public var line: Int
    /// The 1-based column, in bytes on the line.
    public var column: Int
    /// The 0-based byte offset in the file.
    public var byteOffset: Int

    /// Creates an error.
    public init(kind: Kind, message: String, line: Int, column: Int, byteOffset: Int) {
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }

    /// `message at line L, column C` (the message alone for unreadable files and header problems).
    public var description: String {
        switch kind {
        case .unreadable, .layout: message
        case .malformed, .rowTooLarge: "\(message) at line \(line), column \(column)"
        }
    }
}
