import Foundation

/// A Swift type that can be stored in an attribute: typed accessors on managed objects use it.
///
/// For example, a generated subclass writes:
///
/// ```swift
/// var lastName: String {
///     get { self["lastName"] ?? "" }
///     set { self["lastName"] = newValue }
/// }
/// ```
public protocol AttributeValueConvertible {
    /// Reads the value from an attribute value, or returns nil when it holds something else (or nothing).
    init?(attributeValue: AttributeValue)
    /// The value as an attribute value.
    var attributeValue: AttributeValue { get }
    /// What a non-optional property of this type reads when the attribute is nil: zero for numbers, false
    /// for Booleans (Core Data's scalar types), nil (a programmer error) for everything else.
    static var valueForNil: Self? { get }
}

extension AttributeValueConvertible {
    public static var valueForNil: Self? { nil }
}

extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
    public init?(attributeValue: AttributeValue) {
        if attributeValue.isNull {
            self = .none
        } else if let value = Wrapped(attributeValue: attributeValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
    public var attributeValue: AttributeValue { map(\.attributeValue) ?? .null }
    public static var valueForNil: Self? { .some(.none) }
}

extension AttributeValue: AttributeValueConvertible {
    public init?(attributeValue: AttributeValue) { self = attributeValue }
    public var attributeValue: AttributeValue { self }
}

extension String: AttributeValueConvertible {
    public init?(attributeValue: AttributeValue) {
        guard let value = attributeValue.stringValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue { .string(self) }
}

extension Int64: AttributeValueConvertible {
    public static var valueForNil: Int64? { 0 }
    public init?(attributeValue: AttributeValue) {
        guard let value = attributeValue.int64Value else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue { .integer(self) }
}

extension Int: AttributeValueConvertible {
    public static var valueForNil: Int? { 0 }
    public init?(attributeValue: AttributeValue) {
        guard let value = attributeValue.int64Value, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
}

extension Int32: AttributeValueConvertible {
    public static var valueForNil: Int32? { 0 }
    public init?(attributeValue: AttributeValue) {
        guard let value = attributeValue.int64Value, let exact = Int32(exactly: value) else { return nil }
        self = exact
    }
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
}

extension Int16: AttributeValueConvertible {
    public static var valueForNil: Int16? { 0 }
    public init?(attributeValue: AttributeValue) {
        guard let value = attributeValue.int64Value, let exact = Int16(exactly: value) else { return nil }
        self = exact
    }
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
}

extension Double: AttributeValueConvertible {
    public static var valueForNil: Double? { 0 }
    public init?(attributeValue: AttributeValue) {
        guard let value = attributeValue.doubleValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue { .double(self) }
}

extension Float: AttributeValueConvertible {
    public static var valueForNil: Float? { 0 }
    public init?(attributeValue: AttributeValue) {
        guard let value = attributeValue.doubleValue else { return nil }
        self = Float(value)
    }
    public var attributeValue: AttributeValue { .double(Double(self)) }
}

extension Bool: AttributeValueConvertible {
    public static var valueForNil: Bool? { false }
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .boolean(let value): self = value
        case .integer(let value): self = value != 0
        default: return nil
        }
    }
    public var attributeValue: AttributeValue { .boolean(self) }
}

extension Date: AttributeValueConvertible {
    public init?(attributeValue: AttributeValue) {
        guard let value = attributeValue.dateValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue { .date(self) }
}

extension Data: AttributeValueConvertible {
    public init?(attributeValue: AttributeValue) {
        guard case .binary(let value) = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue { .binary(self) }
}

extension UUID: AttributeValueConvertible {
    public init?(attributeValue: AttributeValue) {
        guard case .uuid(let value) = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue { .uuid(self) }
}

extension Decimal: AttributeValueConvertible {
    public static var valueForNil: Decimal? { 0 }
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .decimal(let value): self = value
        case .integer(let value): self = Decimal(value)
        case .double(let value): self = Decimal(value)
        default: return nil
        }
    }
    public var attributeValue: AttributeValue { .decimal(self) }
}

extension URL: AttributeValueConvertible {
    public init?(attributeValue: AttributeValue) {
        guard case .uri(let value) = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue { .uri(self) }
}
