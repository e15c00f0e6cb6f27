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
    /// Whether generated Swift properties use a scalar type (`Int64`) rather than an optional object.
    public var usesScalarValueType: Bool
    /// The smallest allowed value (numbers, dates) or length (strings, binary data), if limited.
    public var minimum: AttributeValue?
    /// The largest allowed value (numbers, dates) or length (strings, binary data), if limited.
    public var maximum: AttributeValue?
    /// A regular expression a string value must match entirely, if any.
    public var regularExpression: String?
    /// Whether large binary values may be stored outside the database file.
    public var allowsExternalBinaryDataStorage: Bool
    /// The name this attribute had in an earlier model version, for migration.
    public var renamingIdentifier: String?
    /// Extra text mixed into the version hash to force a new version.
    public var versionHashModifier: String?
    /// For transformable attributes: the transformer's name, if not the default.
    public var valueTransformerName: String?
    /// For transformable attributes: the Swift or Objective-C class of the value, if declared.
    public var customClassName: String?
    /// Free-form key-value pairs from the model file.
    public var userInfo: [String: String]
    /// Whether a deleted object's value of this attribute is kept in the persistent history's tombstone
    /// (``PersistentHistoryChange/tombstone``): Core Data's `preservesValueInHistoryOnDeletion`, the model
    /// file's `preserveAfterDeletion="YES"`. Attributes that allow external storage are never kept.
    public var preservesValueInHistoryOnDeletion = false
    /// The derivation of a derived attribute (the model file's `derived="YES"` and `derivationExpression`, such
    /// as `pages.@count`), kept as written; nil for an ordinary attribute. SQLite stores compute it at save time:
    /// in a store Core Data wrote its own triggers keep the column, in ObjectGraph's stores ours do (see
    /// *Derived attributes* in <doc:AppleCompatibility>); saves never write the column themselves.
    public var derivationExpression: String? = nil
    /// Whether the store keeps a text search index of this attribute: Core Data's `isIndexedBySpotlight`, Xcode's
    /// "Index in Spotlight" (the model file's `spotlightIndexingEnabled="YES"`). There is no Spotlight on Linux; the
    /// SQLite store keeps instead a trigram index (FTS5) of the attribute's case- and diacritic-folded text, which
    /// answers `CONTAINS[cd]`, `BEGINSWITH[cd]`, `ENDSWITH[cd]`, `LIKE[cd]` and `==[cd]` with a pattern of three or
    /// more characters without reading every row. Only string attributes that are stored are indexed. Not part of
    /// the version hash: adding or removing the index needs no migration (the store builds or drops it on open).
    public var isIndexedBySpotlight = false
    /// For a Composite attribute (``AttributeType/composite``), its element attributes, in model order: Core Data's
    /// `NSCompositeAttributeDescription.elements`. Empty for every other attribute. An entity stores each element in
    /// a column of its own (see ``EntityDescription/compositeAttributes``).
    public var elements: [AttributeDescription] = []
    /// Whether the attribute is derived (``derivationExpression``).
    public var isDerived: Bool { derivationExpression != nil }

    /// Creates an attribute; by default optional, persistent, nil for new objects, unconstrained and without a text
    /// search index.
    public init(
        name: String, type: AttributeType, isOptional: Bool = true, isTransient: Bool = false,
        defaultValue: AttributeValue = .null, usesScalarValueType: Bool = false, minimum: AttributeValue? = nil,
        maximum: AttributeValue? = nil, regularExpression: String? = nil,
        allowsExternalBinaryDataStorage: Bool = false, renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil, valueTransformerName: String? = nil, customClassName: String? = nil,
        userInfo: [String: String] = [:], isIndexedBySpotlight: Bool = false
    ) {
        self.name = name
        self.attributeType = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.defaultValue = defaultValue
        self.usesScalarValueType = usesScalarValueType
        self.minimum = minimum
        self.maximum = maximum
        self.regularExpression = regularExpression
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.valueTransformerName = valueTransformerName
        self.customClassName = customClassName
        self.userInfo = userInfo
        self.isIndexedBySpotlight = isIndexedBySpotlight
    }

    /// The SQLite column Core Data names for this attribute: `Z` plus the upper-cased name. A composite's element,
    /// which an entity lists as `composite.element`, gets `Z` + `COMPOSITE_ELEMENT` (the dot becomes an underscore).
    public var columnName: String {
        let upper = name.uppercased()
        return "Z" + (upper.contains(".") ? upper.replacingOccurrences(of: ".", with: "_") : upper)
    }

    public var description: String {
        let composed = elements.isEmpty ? "" : " { " + elements.map(\.description).joined(separator: ", ") + " }"
        return "\(name): \(attributeType)\(isOptional ? "?" : "")\(isTransient ? " (transient)" : "")" + composed
    }
}
