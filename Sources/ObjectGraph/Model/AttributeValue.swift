import Foundation

/// A value held by a managed object's attribute, or passed to a predicate.
///
/// Core Data stores `Any?` behind key-value coding; Swift on Linux has no KVC, so values travel as this
/// enum. It is `Sendable`, so snapshots of rows can cross queues inside save notifications.
public enum AttributeValue: Sendable, Hashable, CustomStringConvertible {
    /// No value (`nil` in Core Data).
    case null
    /// An integer or Boolean-as-integer.
    case integer(Int64)
    /// A floating-point number.
    case double(Double)
    /// A decimal number.
    case decimal(Decimal)
    /// A string.
    case string(String)
    /// A Boolean.
    case boolean(Bool)
    /// A point in time.
    case date(Date)
    /// Raw bytes.
    case binary(Data)
    /// A UUID.
    case uuid(UUID)
    /// A URL.
    case uri(URL)

    /// True for ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as a string, if it is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as an integer: integers, Booleans, and floating-point numbers without a fraction.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .boolean(let value): value ? 1 : 0
        case .double(let value) where value.rounded() == value && abs(value) < 9.2e18: Int64(value)
        default: nil
        }
    }

    /// The value as a floating-point number, if it is numeric.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        case .decimal(let value): AttributeValue.double(from: value)
        case .boolean(let value): value ? 1 : 0
        default: nil
        }
    }

    /// The value as a date, if it is one.
    public var dateValue: Date? {
        if case .date(let value) = self { return value }
        return nil
    }

    public var description: String {
        switch self {
        case .null: "nil"
        case .integer(let value): String(value)
        case .double(let value): String(value)
        case .decimal(let value): value.description
        case .string(let value): "\"\(value)\""
        case .boolean(let value): value ? "YES" : "NO"
        case .date(let value): "CAST(\(value.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .binary(let value): "<\(value.count) bytes>"
        case .uuid(let value): value.uuidString
        case .uri(let value): value.absoluteString
        }
    }
}

extension AttributeValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}
