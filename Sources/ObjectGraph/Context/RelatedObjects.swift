/// The contents of one relationship of one object.
enum RelationshipSlot {
    /// Not loaded yet: read from the store (or the row's foreign key) on first access.
    case fault
    /// A loaded to-one relationship.
    case toOne(ManagedObject?)
    /// A loaded to-many relationship.
    case toMany(RelatedObjects)
}

/// The objects of a to-many relationship: in order (meaningful for ordered relationships), with a
/// membership index so that adding to a large relationship stays cheap.
struct RelatedObjects {
    private(set) var items: [ManagedObject] = []
    private var members: Set<ObjectIdentifier> = []

    init(_ objects: [ManagedObject] = []) {
        for object in objects { append(object) }
    }

    func contains(_ object: ManagedObject) -> Bool { members.contains(ObjectIdentifier(object)) }

    @discardableResult
    mutating func append(_ object: ManagedObject) -> Bool {
        guard members.insert(ObjectIdentifier(object)).inserted else { return false }
        items.append(object)
        return true
    }

    @discardableResult
    mutating func insert(_ object: ManagedObject, at index: Int) -> Bool {
        guard members.insert(ObjectIdentifier(object)).inserted else { return false }
        items.insert(object, at: max(0, min(index, items.count)))
        return true
    }

    @discardableResult
    mutating func remove(_ object: ManagedObject) -> Bool {
        guard members.remove(ObjectIdentifier(object)) != nil else { return false }
        items.removeAll { $0 === object }
        return true
    }

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
}
