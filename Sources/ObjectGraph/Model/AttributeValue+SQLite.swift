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
        switch (sqliteValue, type) {
        case (.null, _):
            self = .null
        case (.integer(let value), .boolean):
            self = .boolean(value != 0)
        case (.integer(let value), .double), (.integer(let value), .float):
            self = .double(Double(value))
        case (.integer(let value), .decimal):
            self = .decimal(Decimal(value))
        case (.real(let value), .decimal):
            // Through the shortest decimal text, so 19.99 reads back as 19.99, not 19.990000000000002.
            self = .decimal(Decimal(string: String(value)) ?? Decimal(value))
        case (.integer(let value), .date):
            self = .date(Date(timeIntervalSinceReferenceDate: TimeInterval(value)))
        case (.integer(let value), _):
            self = .integer(value)
        case (.real(let value), .date):
            self = .date(Date(timeIntervalSinceReferenceDate: value))
        case (.real(let value), .integer16), (.real(let value), .integer32), (.real(let value), .integer64):
            self = value.rounded() == value && abs(value) < 9.2e18 ? .integer(Int64(value)) : .double(value)
        case (.real(let value), _):
            self = .double(value)
        case (.text(let value), .uri):
            self = URL(string: value).map(AttributeValue.uri) ?? .string(value)
        case (.text(let value), _):
            self = .string(value)
        case (.blob(let bytes), .uuid) where bytes.count == 16:
            self = .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        case (.blob(let bytes), _):
            self = .binary(Data(bytes))
        }
    }
}
