/// The kind of value an attribute holds, with Core Data's raw values.
///
/// Core Data users know these from Xcode's model editor; the raw values are `NSAttributeType`'s, so that
/// model files and stores written elsewhere keep their meaning.
public enum AttributeType: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A transient attribute of no declared type.
    case undefined = 0
    /// A 16-bit signed integer, stored as INTEGER.
    case integer16 = 100
    /// A 32-bit signed integer, stored as INTEGER.
    case integer32 = 200
    /// A 64-bit signed integer, stored as INTEGER.
    case integer64 = 300
    /// A decimal number, stored as DECIMAL.
    case decimal = 400
    /// A double-precision floating-point number, stored as FLOAT.
    case double = 500
    /// A single-precision floating-point number, stored as FLOAT.
    case float = 600
    /// A string, stored as VARCHAR.
    case string = 700
    /// A Boolean, stored as INTEGER 0 or 1.
    case boolean = 800
    /// A date, stored as TIMESTAMP: seconds since 2001-01-01 00:00:00 UTC.
    case date = 900
    /// Raw bytes, stored as BLOB.
    case binary = 1000
    /// A UUID, stored as a 16-byte BLOB.
    case uuid = 1100
    /// A URL, stored as VARCHAR.
    case uri = 1200
    /// A value encoded to bytes, stored as BLOB.
    case transformable = 1800
    /// A group of element attributes stored together under one name (Core Data's `NSCompositeAttributeType`, iOS 17):
    /// see ``AttributeDescription/elements``. A composite has no column of its own; each element is stored in a
    /// column of the entity's table, as Core Data flattens composites.
    case composite = 2100

    /// The SQL column type Core Data declares for this attribute type.
    public var sqlColumnType: String {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .float: "FLOAT"
        case .decimal: "DECIMAL"
        case .date: "TIMESTAMP"
        case .string, .uri: "VARCHAR"
        case .binary, .uuid, .transformable, .undefined, .composite: "BLOB"
        }
    }

    /// Core Data's grouping of columns in a table: integers first, then reals, then text, then blobs.
    var columnGroup: Int {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: 0
        case .double, .float, .decimal, .date: 1
        case .string, .uri: 2
        case .binary, .uuid, .transformable, .undefined, .composite: 3
        }
    }

    public var description: String {
        switch self {
        case .undefined: "Undefined"
        case .integer16: "Integer 16"
        case .integer32: "Integer 32"
        case .integer64: "Integer 64"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Boolean"
        case .date: "Date"
        case .binary: "Binary"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable: "Transformable"
        case .composite: "Composite"
        }
    }
}
