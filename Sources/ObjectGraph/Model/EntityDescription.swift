/// One entity of a model: its name, properties, parent entity, and the class its objects are made of.
///
/// The counterpart of Core Data's `NSEntityDescription`. Descriptions are immutable, so they can be shared
/// by every context and queue. You create one with its *own* properties and, optionally, the name of its
/// parent entity; the entity that a ``ManagedObjectModel`` hands back also carries the inherited
/// properties (``attributes`` and ``relationships`` list inherited ones first).
public final class EntityDescription: Sendable, Hashable, CustomStringConvertible {
    /// The entity's name (`"Person"`).
    public let name: String
    /// All attributes, inherited ones first, in model order.
    public let attributes: [AttributeDescription]
    /// All relationships, inherited ones first, in model order.
    public let relationships: [RelationshipDescription]
    /// How many of ``attributes`` are inherited from the parent entity.
    public let inheritedAttributeCount: Int
    /// The Composite attributes (``AttributeType/composite``), inherited ones first, with their elements. They are
    /// not in ``attributes``: there each element stands, in the composite's place, as an attribute of its own named
    /// `composite.element` (`location.latitude`), with its own column — Core Data's flattening of composites.
    public let compositeAttributes: [AttributeDescription]
    /// How many of ``compositeAttributes`` are inherited from the parent entity.
    public let inheritedCompositeAttributeCount: Int
    /// How many of ``relationships`` are inherited from the parent entity.
    public let inheritedRelationshipCount: Int
    /// The name of the parent entity, if any.
    public let parentEntityName: String?
    /// The class instantiated for its objects: ``ManagedObject`` or an app subclass such as `Person`.
    public let managedObjectClass: ManagedObject.Type
    /// The class name the model file names (`representedClassName`), if any.
    public let managedObjectClassName: String?
    /// Whether objects of this entity may be created directly.
    public let isAbstract: Bool
    /// Sets of attribute names whose values must be unique together.
    public let uniquenessConstraints: [[String]]
    /// Indexes the store should keep for fetches.
    public let fetchIndexes: [FetchIndexDescription]
    /// The name this entity had in an earlier model version, for migration.
    public let renamingIdentifier: String?
    /// Extra text mixed into the version hash to force a new version.
    public let versionHashModifier: String?
    /// Free-form key-value pairs from the model file.
    public let userInfo: [String: String]

    private let attributeIndexByName: [String: Int]
    /// ``attributeIndexByName`` as a byte-compared table: the fast path of ``attributeIndex(named:)``.
    private let attributeNameTable: PropertyNameTable
    private let relationshipIndexByName: [String: Int]
    /// Indexes (into ``attributes``) of the attributes that are stored, in model order.
    let persistentAttributeIndexes: [Int]
    /// What saving checks of each stored attribute (see ``AttributeValueCheck``).
    let valueChecks: [AttributeValueCheck]
    /// Each attribute's type and whether it is transient, by position: read on every `setValue` without
    /// copying the attribute's description.
    let attributeKinds: [(type: AttributeType, isTransient: Bool)]
    /// Indexes (into ``attributes``) of the attributes whose values an SQLite store may keep in files
    /// (``AttributeDescription/allowsExternalBinaryDataStorage``); usually empty.
    let externalBinaryAttributeIndexes: [Int]
    /// Every attribute's default value, in attribute order: a new object starts with this array (sharing
    /// its buffer until a value changes) instead of building one per object.
    let defaultValues: [AttributeValue]
    /// The namespace of this entity's temporary IDs, found once: every insert makes one.
    let temporaryIDNamespace: ObjectIDNamespace

    /// Creates an entity from its own properties.
    ///
    /// - Parameters:
    ///   - name: the entity name; its table is `Z` plus the upper-cased name of its root entity.
    ///   - attributes: its own attributes; names must be unique within the entity and its ancestors. A Composite
    ///     attribute is replaced by its elements (see ``compositeAttributes``).
    ///   - relationships: its own relationships.
    ///   - parentEntity: the name of the entity it inherits from, if any.
    ///   - managedObjectClass: the subclass to instantiate, `ManagedObject.self` by default.
    ///   - managedObjectClassName: the class name as the model file writes it.
    ///   - isAbstract: whether inserting objects of this entity is refused.
    ///   - uniquenessConstraints: sets of attribute names whose values must be unique together.
    ///   - fetchIndexes: indexes the store should keep for fetches.
    ///   - renamingIdentifier: the name this entity had in an earlier model version, for migration.
    ///   - versionHashModifier: extra text mixed into the version hash to force a new version.
    ///   - userInfo: free-form key-value pairs from the model file.
    public init(
        name: String, attributes: [AttributeDescription], relationships: [RelationshipDescription] = [],
        parentEntity: String? = nil, managedObjectClass: ManagedObject.Type = ManagedObject.self,
        managedObjectClassName: String? = nil, isAbstract: Bool = false, uniquenessConstraints: [[String]] = [],
        fetchIndexes: [FetchIndexDescription] = [], renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil, userInfo: [String: String] = [:]
    ) {
        self.name = name
        let (flattened, composites) = CompositeFlattening.flatten(attributes)
        let attributes = flattened
        self.attributes = flattened
        self.compositeAttributes = composites
        self.inheritedCompositeAttributeCount = 0
        self.relationships = relationships
        self.inheritedAttributeCount = 0
        self.inheritedRelationshipCount = 0
        self.parentEntityName = parentEntity
        self.managedObjectClass = managedObjectClass
        self.managedObjectClassName = managedObjectClassName
        self.isAbstract = isAbstract
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        attributeIndexByName = Self.index(attributes.map(\.name))
        attributeNameTable = PropertyNameTable(attributeIndexByName)
        relationshipIndexByName = Self.index(relationships.map(\.name))
        persistentAttributeIndexes = attributes.indices.filter { !attributes[$0].isTransient }
        valueChecks = Self.valueChecks(attributes)
        attributeKinds = attributes.map { ($0.attributeType, $0.isTransient) }
        externalBinaryAttributeIndexes = attributes.indices.filter { attributes[$0].storesBinaryExternally }
        defaultValues = attributes.map(\.defaultValue)
        temporaryIDNamespace = .temporary(entityName: name)
    }

    /// The same entity with `parent`'s (resolved) properties inherited, and its class replaced by
    /// `resolvedClass` when the model knows a better one.
    init(resolving own: EntityDescription, parent: EntityDescription?, resolvedClass: ManagedObject.Type?) {
        name = own.name
        let allAttributes = (parent?.attributes ?? []) + own.ownAttributes
        let allRelationships = (parent?.relationships ?? []) + own.ownRelationships
        attributes = allAttributes
        compositeAttributes = (parent?.compositeAttributes ?? []) + own.ownCompositeAttributes
        inheritedCompositeAttributeCount = parent?.compositeAttributes.count ?? 0
        relationships = allRelationships
        inheritedAttributeCount = parent?.attributes.count ?? 0
        inheritedRelationshipCount = parent?.relationships.count ?? 0
        parentEntityName = own.parentEntityName
        managedObjectClass = resolvedClass ?? own.managedObjectClass
        managedObjectClassName = own.managedObjectClassName
        isAbstract = own.isAbstract
        uniquenessConstraints = own.uniquenessConstraints
        fetchIndexes = own.fetchIndexes
        renamingIdentifier = own.renamingIdentifier
        versionHashModifier = own.versionHashModifier
        userInfo = own.userInfo
        attributeIndexByName = Self.index(allAttributes.map(\.name))
        attributeNameTable = PropertyNameTable(attributeIndexByName)
        relationshipIndexByName = Self.index(allRelationships.map(\.name))
        persistentAttributeIndexes = allAttributes.indices.filter { !allAttributes[$0].isTransient }
        valueChecks = Self.valueChecks(allAttributes)
        attributeKinds = allAttributes.map { ($0.attributeType, $0.isTransient) }
        externalBinaryAttributeIndexes = allAttributes.indices.filter { allAttributes[$0].storesBinaryExternally }
        defaultValues = allAttributes.map(\.defaultValue)
        temporaryIDNamespace = own.temporaryIDNamespace
    }

    private static func valueChecks(_ attributes: [AttributeDescription]) -> [AttributeValueCheck] {
        attributes.indices.compactMap { index in
            let attribute = attributes[index]
            guard !attribute.isTransient else { return nil }
            return AttributeValueCheck(index: index, type: attribute.attributeType, isOptional: attribute.isOptional,
                hasRules: attribute.hasValueRules)
        }
    }

    private static func index(_ names: [String]) -> [String: Int] {
        var index: [String: Int] = [:]
        for (offset, name) in names.enumerated() where index[name] == nil { index[name] = offset }
        return index
    }

    /// The attributes declared on this entity itself (not inherited).
    public var ownAttributes: ArraySlice<AttributeDescription> { attributes[inheritedAttributeCount...] }

    /// The relationships declared on this entity itself (not inherited).
    public var ownRelationships: ArraySlice<RelationshipDescription> { relationships[inheritedRelationshipCount...] }

    /// The attribute named `name`, if the entity has (or inherits) one.
    public func attribute(named name: String) -> AttributeDescription? {
        attributeIndex(named: name).map { attributes[$0] }
    }

    /// The relationship named `name`, if the entity has (or inherits) one.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationshipIndexByName[name].map { relationships[$0] }
    }

    /// The position of the attribute named `name` in ``attributes``: found by its bytes when they are a
    /// name's exact bytes, else (other spellings `String ==` equates, unknown names) by the dictionary.
    func attributeIndex(named name: String) -> Int? {
        attributeNameTable.position(ofExactly: name) ?? attributeIndexByName[name]
    }

    /// The SQLite table Core Data names for this entity: `Z` plus the upper-cased name.
    public var tableName: String { "Z" + name.uppercased() }

    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool {
        lhs === rhs
            || (lhs.name == rhs.name && lhs.attributes == rhs.attributes && lhs.relationships == rhs.relationships
                && lhs.parentEntityName == rhs.parentEntityName && lhs.isAbstract == rhs.isAbstract)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    public var description: String {
        let properties = attributes.map(\.description) + relationships.map(\.description)
        return "\(name)\(parentEntityName.map { " : \($0)" } ?? "") { " + properties.joined(separator: ", ") + " }"
    }
}

/// An index the store keeps to speed up fetches: the counterpart of `NSFetchIndexDescription`.
public struct FetchIndexDescription: Sendable, Hashable {
    /// One indexed property and its order.
    public struct Element: Sendable, Hashable {
        /// The attribute's name.
        public var property: String
        /// Whether the index is ascending.
        public var ascending: Bool

        /// Creates an element; ascending by default.
        public init(property: String, ascending: Bool = true) {
            self.property = property
            self.ascending = ascending
        }
    }

    /// The index's name.
    public var name: String
    /// The indexed properties, in order.
    public var elements: [Element]

    /// Creates a fetch index.
    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}
