/// One input value of a row: a JSON value, or a CSV field.
public enum ImportField: Sendable, Equatable {
    /// A value from a JSON array element or a JSON Lines line.
    case json(ImportJSONValue)
    /// A CSV field.
    case csv(CSVField)
}

/// Why one row cannot be imported, as a sentence (`expected an object, found a string`).
public struct ImportRowProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, for callers that word it their own way.
    public enum Kind: Sendable, Equatable {
        /// A CSV record with `found` fields under a header of `header` names.
        case fieldCount(found: Int, header: Int)
        /// Anything else: the description says what.
        case other
    }

    /// What is wrong with the row.
    public var description: String
    /// What kind of problem it is.
    public var kind: Kind

    /// Creates a problem.
    public init(_ description: String, kind: Kind = .other) {
        self.description = description
        self.kind = kind
    }
}

/// One row of an import file: its 0-based index among the data rows (a CSV header is not counted), where it
/// starts in the file, and its key-value pairs in input order — or why it has none.
public struct ImportRow: Sendable {
    /// The 0-based position among the data rows.
    public var index: Int
    /// The 1-based line the row starts on.
    public var line: Int
    /// The 0-based byte offset of the row in the file.
    public var byteOffset: Int
    /// The row's key-value pairs in input order, or why the row is malformed.
    public var fields: Result<[(key: String, value: ImportField)], ImportRowProblem>

    /// Creates a row.
    public init(index: Int, line: Int, byteOffset: Int,
        fields: Result<[(key: String, value: ImportField)], ImportRowProblem>)
    {
        self.index = index
        self.line = line
        self.byteOffset = byteOffset
        self.fields = fields
    }
}
