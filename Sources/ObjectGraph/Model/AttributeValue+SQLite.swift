import Foundation
import SQLiteStorage

extension AttributeValue {
    /// The value as SQLite stores it, in Core Data's encodings: dates as seconds since 2001-01-01 UTC,
    /// Booleans as 0/1, UUIDs as 16 raw bytes, decimals as REAL, URLs as text.
    public var sqliteValue: SQLiteValue {
        switch self {
        case .null: .null
        case .integer(let value): .integer(value)
        case .double(let value): .real(value)
        case .decimal(let value): .real(Self.double(from: value))
        case .string(let value): .text(value)
        case .boolean(let value): .integer(value ? 1 : 0)
        case .date(let value): .real(value.timeIntervalSinceReferenceDate)
        case .binary(let value): .blob([UInt8](value))
        case .uuid: .blob(sqlBytes)
        case .uri(let value): .text(value.absoluteString)
        }
    }

    /// The nearest double to a decimal, through its text (Foundation's direct conversion can be off by an ulp).
    static func double(from decimal: Decimal) -> Double {
        Double(decimal.description) ?? NSDecimalNumber(decimal: decimal).doubleValue
    }

    /// Reads a stored SQLite value back as a value of `type`.
    ///
    /// Values that do not fit the declared type (a store edited by hand, say) come back as they are stored,
    /// never as a crash.
    public init(sqliteValue: SQLiteValue, type: AttributeType) {
        switch sqliteValue {
        case .null: self = .null
        case .integer(let value): self = Self(storedInteger: value, type: type)
        case .real(let value): self = Self(storedReal: value, type: type)
        case .text(let value): self = Self(storedText: value, type: type)
        case .blob(let bytes): self = bytes.withUnsafeBytes { Self(storedBlob: $0, type: type) }
        }
    }

    /// Reads a column of a statement's current row as a value of `type`, exactly as
    /// ``init(sqliteValue:type:)`` reads the same column's ``SQLiteValue``, but without the intermediate
    /// copy: what a fetch runs for every column of every row.
    init(column: SQLiteColumnValue, type: AttributeType) {
        switch column {
        case .null: self = .null
        case .integer(let value): self = Self(storedInteger: value, type: type)
        case .real(let value): self = Self(storedReal: value, type: type)
        case .text(let utf8): self = Self(storedText: String(decoding: utf8, as: UTF8.self), type: type)
        case .blob(let bytes): self = Self(storedBlob: bytes, type: type)
        }
    }

    /// A stored INTEGER as `type`: Booleans, reals, decimals and dates are kept as integers by SQLite.
    private init(storedInteger value: Int64, type: AttributeType) {
        switch type {
        case .boolean: self = .boolean(value != 0)
        case .double, .float: self = .double(Double(value))
        case .decimal: self = .decimal(Decimal(value))
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: TimeInterval(value)))
        default: self = .integer(value)
        }
    }

    /// A stored REAL as `type`; an integer attribute holding a whole REAL reads as that integer.
    private init(storedReal value: Double, type: AttributeType) {
        switch type {
        case .decimal:
            // Through the shortest decimal text, so 19.99 reads back as 19.99, not 19.990000000000002.
            self = .decimal(Decimal(string: String(value)) ?? Decimal(value))
        case .date:
            self = .date(Date(timeIntervalSinceReferenceDate: value))
        case .integer16, .integer32, .integer64:
            self = value.rounded() == value && abs(value) < 9.2e18 ? .integer(Int64(value)) : .double(value)
        default:
            self = .double(value)
        }
    }

    /// Stored TEXT as `type`: a URL when it is one and parses, a string otherwise.
    private init(storedText value: String, type: AttributeType) {
        if type == .uri, let url = URL(string: value) {
            self = .uri(url)
        } else {
            self = .string(value)
        }
    }

    /// A stored BLOB as `type`: a UUID when it is one and has 16 bytes, bytes otherwise.
    private init(storedBlob bytes: UnsafeRawBufferPointer, type: AttributeType) {
        if type == .uuid, bytes.count == 16 {
            self = .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        } else {
            self = .binary(Data(bytes))
        }
    }
}
