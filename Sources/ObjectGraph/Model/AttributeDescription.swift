/// One attribute of an entity: its name, type, optionality and default.
///
/// The counterpart of Core Data's `NSAttributeDescription`. Transient attributes live only in memory:
/// they have no column and are never saved.
public struct AttributeDescription: Sendable, Hashable, CustomStringConvertible {
    /// The attribute's name, used as its key (`"lastName"`).
    public var name: String
    /// What kind of value it holds.
    public var attributeType: AttributeType
    /// Whether it may be nil when its object is saved.
    public var isOptional: Bool
    /// Whether it lives only in memory (no column, never saved).
    public var isTransient: Bool
    /// The value a newly inserted object starts with.
    public var defaultValue: AttributeValue

    /// Creates an attribute; by default optional, persistent, and nil for new objects.
    public init(
        name: String, type: AttributeType, isOptional: Bool = true, isTransient: Bool = false,
        defaultValue: AttributeValue = .null
    ) {
        self.name = name
        self.attributeType = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.defaultValue = defaultValue
    }

    /// The SQLite column Core Data names for this attribute: `Z` plus the upper-cased name.
    public var columnName: String { "Z" + name.uppercased() }

    public var description: String {
        "\(name): \(attributeType)\(isOptional ? "?" : "")\(isTransient ? " (transient)" : "")"
    }
}
