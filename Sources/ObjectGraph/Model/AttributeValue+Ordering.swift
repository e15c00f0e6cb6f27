import Foundation

extension AttributeValue {
    /// SQLite's storage classes in their sort order: NULL, then numbers, then text, then blobs.
    var storageClassRank: Int {
        switch self {
        case .null: 0
        case .integer, .double, .decimal, .boolean, .date: 1
        case .string, .uri: 2
        case .binary, .uuid: 3
        }
    }

    /// Orders two values exactly as SQLite's `ORDER BY` does with the BINARY collation.
    ///
    /// Sorting in memory (pending changes, the in-memory store, the fetched-results controller's
    /// incremental updates) and sorting in SQL must agree row for row; this is the single definition
    /// both sides follow. NULL sorts first, numbers compare by value, text compares by its UTF-8 bytes,
    /// blobs by their bytes.
    ///
    /// - Returns: a negative number, zero or a positive number as `self` sorts before, with or after `other`.
    public func storeOrder(comparedTo other: AttributeValue) -> Int {
        let lhsRank = storageClassRank
        let rhsRank = other.storageClassRank
        if lhsRank != rhsRank { return lhsRank < rhsRank ? -1 : 1 }
        switch (self, other) {
        case (.null, .null):
            return 0
        case let (.integer(lhs), .integer(rhs)):
            return lhs < rhs ? -1 : (lhs == rhs ? 0 : 1)
        case let (.string(lhs), .string(rhs)):
            return Self.compareUTF8(lhs, rhs)
        case (.string, _), (.uri, _):
            return Self.compareUTF8(sqlText, other.sqlText)
        case (.binary, _), (.uuid, _):
            return Self.compareBytes(sqlBytes, other.sqlBytes)
        default:
            let lhs = numericValue
            let rhs = other.numericValue
            return lhs < rhs ? -1 : (lhs == rhs ? 0 : 1)
        }
    }

    /// The number SQLite stores for numeric kinds (dates as seconds since 2001, Booleans as 0/1).
    var numericValue: Double {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        case .decimal(let value): AttributeValue.double(from: value)
        case .boolean(let value): value ? 1 : 0
        case .date(let value): value.timeIntervalSinceReferenceDate
        default: 0
        }
    }

    /// The text SQLite stores for textual kinds.
    var sqlText: String {
        switch self {
        case .string(let value): value
        case .uri(let value): value.absoluteString
        default: ""
        }
    }

    /// The bytes SQLite stores for blob kinds (a UUID as its 16 raw bytes).
    var sqlBytes: [UInt8] {
        switch self {
        case .binary(let value): [UInt8](value)
        case .uuid(let value):
            withUnsafeBytes(of: value.uuid) { [UInt8]($0) }
        default: []
        }
    }

    /// Compares the UTF-8 bytes of two strings, as SQLite's BINARY collation does, without copying them
    /// (the fetched-results controller compares sort keys millions of times).
    private static func compareUTF8(_ lhs: String, _ rhs: String) -> Int {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in rhs.withUTF8 { right in ObjectGraph.compareBytes(left, right) } }
    }

    private static func compareBytes(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBufferPointer { left in rhs.withUnsafeBufferPointer { right in ObjectGraph.compareBytes(left, right) } }
    }
}
