/// A typed to-one relationship of a managed object: `@ToOne("company") var company: Company?`.
///
/// Reading fires the object's (and the relationship's) fault; writing keeps the inverse in step, as
/// ``ManagedObject/setRelatedObject(_:forKey:)`` does.
@propertyWrapper
public struct ToOne<Destination: ManagedObject>: Sendable {
    /// The relationship's name in the model.
    public let key: String

    /// Binds the property to the to-one relationship named `key`.
    public init(_ key: String) { self.key = key }

    @available(*, unavailable, message: "@ToOne can only be used on properties of ManagedObject subclasses")
    public var wrappedValue: Destination? {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }  // swiftlint:disable:this unused_setter_value
    }

    /// Reads and writes through the enclosing managed object.
    public static subscript<Owner: ManagedObject>(
        _enclosingInstance object: Owner, wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Destination?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Destination? {
        get {
            let key = object[keyPath: storageKeyPath].key
            if ModelKeyPathProbe.isProbing,
                let standIn = ModelKeyPathProbe.recordToOne(object, key: key, destination: Destination.self)
            {
                return standIn  // a typed predicate is asking which relationship this property is
            }
            return object.relatedObject(forKey: key) as? Destination
        }
        set { object.setRelatedObject(newValue, forKey: object[keyPath: storageKeyPath].key) }
    }
}

/// A typed unordered to-many relationship: `@ToMany("employees") var employees: Set<Employee>`.
///
/// Assigning a set replaces the contents (keeping inverses in step); use the object's
/// ``ManagedObject/addRelatedObject(_:forKey:)`` and ``ManagedObject/removeRelatedObject(_:forKey:)`` (or the
/// `add…`/`remove…` helpers that `objectgraph codegen` writes) to change one object at a time.
@propertyWrapper
public struct ToMany<Destination: ManagedObject>: Sendable {
    /// The relationship's name in the model.
    public let key: String

    /// Binds the property to the to-many relationship named `key`.
    public init(_ key: String) { self.key = key }

    @available(*, unavailable, message: "@ToMany can only be used on properties of ManagedObject subclasses")
    public var wrappedValue: Set<Destination> {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }  // swiftlint:disable:this unused_setter_value
    }

    /// Reads and writes through the enclosing managed object.
    public static subscript<Owner: ManagedObject>(
        _enclosingInstance object: Owner, wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Set<Destination>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Set<Destination> {
        get {
            let key = object[keyPath: storageKeyPath].key
            if ModelKeyPathProbe.isProbing, ModelKeyPathProbe.record(object, key: key, kind: .toMany) { return [] }
            return Set(object.relatedObjects(forKey: key).compactMap { $0 as? Destination })
        }
        set { object.setRelatedObjects(Array(newValue), forKey: object[keyPath: storageKeyPath].key) }
    }
}

/// A typed ordered to-many relationship: `@OrderedToMany("songs") var songs: [Song]`.
@propertyWrapper
public struct OrderedToMany<Destination: ManagedObject>: Sendable {
    /// The relationship's name in the model.
    public let key: String

    /// Binds the property to the ordered to-many relationship named `key`.
    public init(_ key: String) { self.key = key }

    @available(*, unavailable, message: "@OrderedToMany can only be used on properties of ManagedObject subclasses")
    public var wrappedValue: [Destination] {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }  // swiftlint:disable:this unused_setter_value
    }

    /// Reads and writes through the enclosing managed object.
    public static subscript<Owner: ManagedObject>(
        _enclosingInstance object: Owner, wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, [Destination]>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> [Destination] {
        get {
            let key = object[keyPath: storageKeyPath].key
            if ModelKeyPathProbe.isProbing, ModelKeyPathProbe.record(object, key: key, kind: .orderedToMany) {
                return []
            }
            return object.relatedObjects(forKey: key).compactMap { $0 as? Destination }
        }
        set { object.setRelatedObjects(newValue, forKey: object[keyPath: storageKeyPath].key) }
    }
}
