import Foundation

/// A property-list value an app keeps in a store's metadata (``StoreMetadata/userInfo``).
///
/// Core Data's store metadata is an `[String: Any]` property list; this is the same set of value kinds as a
/// `Sendable`, `Hashable` enum, so metadata can cross queues and be compared. Literals build it directly:
///
/// ```swift
/// var metadata = try coordinator.metadata(for: store)
/// metadata.userInfo["lastImport"] = .date(Date())
/// metadata.userInfo["importedFiles"] = ["a.csv", "b.csv"]
/// try coordinator.setMetadata(metadata, for: store)
/// ```
public enum MetadataValue: Sendable, Hashable {
    /// A string.
    case string(String)
    /// A whole number.
    case integer(Int)
    /// A floating-point number.
    case double(Double)
    /// A Boolean.
    case bool(Bool)
    /// A point in time.
    case date(Date)
    /// Raw bytes.
    case data(Data)
    /// An ordered list of values.
    case array([MetadataValue])
    /// Values by key.
    case dictionary([String: MetadataValue])

    /// The value as a Foundation property-list object, for `PropertyListSerialization`.
    var propertyListObject: Any {
        switch self {
        case .string(let value): value
        case .integer(let value): value
        case .double(let value): value
        case .bool(let value): value
        case .date(let value): value
        case .data(let value): value
        case .array(let values): values.map(\.propertyListObject)
        case .dictionary(let values): values.mapValues(\.propertyListObject)
        }
    }

    /// Reads a value that `PropertyListSerialization` produced; nil for anything a property list cannot hold.
    init?(propertyListObject object: Any) {
        switch object {
        case let value as String: self = .string(value)
        case let value as Data: self = .data(value)
        case let value as Date: self = .date(value)
        case let values as [Any]:
            var converted: [MetadataValue] = []
            for value in values {
                guard let element = MetadataValue(propertyListObject: value) else { return nil }
                converted.append(element)
            }
            self = .array(converted)
        case let values as [String: Any]:
            var converted: [String: MetadataValue] = [:]
            for (key, value) in values {
                guard let element = MetadataValue(propertyListObject: value) else { return nil }
                converted[key] = element
            }
            self = .dictionary(converted)
        case let number as NSNumber:
            self = Self.number(number)
        default:
            return nil
        }
    }

    /// Numbers come back from property lists as `NSNumber`s (or bridge to them): tell Booleans, whole
    /// numbers and doubles apart by the number's own type code (`c` is how a Boolean reports itself).
    private static func number(_ number: NSNumber) -> MetadataValue {
        switch String(cString: number.objCType) {
        case "c", "B": .bool(number.boolValue)
        case "f", "d": .double(number.doubleValue)
        default: .integer(number.intValue)
        }
    }
}

extension MetadataValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string value from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer value from a literal.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// A double value from a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A Boolean value from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array value from a literal.
    public init(arrayLiteral elements: MetadataValue...) { self = .array(elements) }
    /// A dictionary value from a literal (a repeated key keeps its last value).
    public init(dictionaryLiteral elements: (String, MetadataValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
