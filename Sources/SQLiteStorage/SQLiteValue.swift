/// One SQLite value, in the five storage classes SQLite knows.
///
/// `.real(.nan)` cannot be stored: SQLite turns NaN into NULL on bind, so ``SQLiteStatement`` refuses
/// to bind it (``SQLiteError/mismatch``) rather than lose the value silently.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The integer payload, or nil for any other case.
    public var integerValue: Int64? {
        if case .integer(let v) = self { return v }
        return nil
    }

    /// The real payload, or nil for any other case.
    public var realValue: Double? {
        if case .real(let v) = self { return v }
        return nil
    }

    /// The text payload, or nil for any other case.
    public var textValue: String? {
        if case .text(let v) = self { return v }
        return nil
    }

    /// The blob payload, or nil for any other case.
    public var blobValue: [UInt8]? {
        if case .blob(let v) = self { return v }
        return nil
    }
}

extension SQLiteValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let v): "'" + v.replacing("'", with: "''") + "'"
        case .blob(let v): "X'" + v.map { hexByte($0) }.joined() + "'"
        }
    }
}

private func hexByte(_ byte: UInt8) -> String {
    let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}

extension SQLiteValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
}
