/// One entity of a model: its name, attributes, and the class its objects are made of.
///
/// The counterpart of Core Data's `NSEntityDescription`. Descriptions are immutable once created, so they
/// can be shared by every context and queue.
public final class EntityDescription: Sendable, Hashable, CustomStringConvertible {
    /// The entity's name (`"Person"`).
    public let name: String
    /// Its attributes, in model order.
    public let attributes: [AttributeDescription]
    /// The class instantiated for its objects: ``ManagedObject`` or an app subclass such as `Person`.
    public let managedObjectClass: ManagedObject.Type
    /// Whether objects of this entity may be created directly.
    public let isAbstract: Bool

    private let indexByName: [String: Int]
    /// Indexes (into ``attributes``) of the attributes that are stored, in model order.
    let persistentAttributeIndexes: [Int]

    /// Creates an entity.
    ///
    /// - Parameters:
    ///   - name: the entity name; its table is `Z` plus the upper-cased name.
    ///   - attributes: its attributes; names must be unique.
    ///   - managedObjectClass: the subclass to instantiate, `ManagedObject.self` by default.
    ///   - isAbstract: whether inserting objects of this entity is refused.
    public init(
        name: String, attributes: [AttributeDescription], managedObjectClass: ManagedObject.Type = ManagedObject.self,
        isAbstract: Bool = false
    ) {
        self.name = name
        self.attributes = attributes
        self.managedObjectClass = managedObjectClass
        self.isAbstract = isAbstract
        var index: [String: Int] = [:]
        for (offset, attribute) in attributes.enumerated() where index[attribute.name] == nil {
            index[attribute.name] = offset
        }
        indexByName = index
        persistentAttributeIndexes = attributes.indices.filter { !attributes[$0].isTransient }
    }

    /// The attribute named `name`, if the entity has one.
    public func attribute(named name: String) -> AttributeDescription? {
        indexByName[name].map { attributes[$0] }
    }

    /// The position of the attribute named `name` in ``attributes``.
    func attributeIndex(named name: String) -> Int? { indexByName[name] }

    /// The SQLite table Core Data names for this entity: `Z` plus the upper-cased name.
    public var tableName: String { "Z" + name.uppercased() }

    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool {
        lhs === rhs || (lhs.name == rhs.name && lhs.attributes == rhs.attributes)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    public var description: String {
        "\(name) { " + attributes.map(\.description).joined(separator: ", ") + " }"
    }
}
