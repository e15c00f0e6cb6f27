import Foundation

/// What a key path of a to-many collection (`Set<Tag>`, `[Song]`, a filter's result) reads.
enum CollectionKeyPathProperty {
    case count
    case isEmpty
}

/// Collections that can stand for to-many relationships in a predicate: their `count` and `isEmpty` key
/// paths are recognised.
protocol ToManyCollectionKeyPaths {
    static func collectionProperty(_ keyPath: AnyKeyPath) -> CollectionKeyPathProperty?
}

extension Set: ToManyCollectionKeyPaths {
    static func collectionProperty(_ keyPath: AnyKeyPath) -> CollectionKeyPathProperty? {
        if keyPath == \Set<Element>.count as AnyKeyPath { return .count }
        if keyPath == \Set<Element>.isEmpty as AnyKeyPath { return .isEmpty }
        return nil
    }
}

extension Array: ToManyCollectionKeyPaths {
    static func collectionProperty(_ keyPath: AnyKeyPath) -> CollectionKeyPathProperty? {
        if keyPath == \[Element].count as AnyKeyPath { return .count }
        if keyPath == \[Element].isEmpty as AnyKeyPath { return .isEmpty }
        return nil
    }
}

extension TypedPredicateTranslator {
    /// The term `root[keyPath: keyPath]` stands for, `rootType` being the static type of the root.
    func keyPath(
        _ keyPath: AnyKeyPath, on root: TypedPredicateTerm, rootType: Any.Type
    ) throws(TypedPredicateError) -> TypedPredicateTerm {
        switch root {
        case .object(let reference):
            guard let objectType = rootType as? ManagedObject.Type else {
                throw unknownKeyPath(keyPath, "\(rootType) is not a ManagedObject subclass")
            }
            guard let accesses = ModelKeyPathProbe.accesses(of: keyPath, rootClass: objectType), let last = accesses.last
            else {
                throw unknownKeyPath(
                    keyPath,
                    "it reads no @Attribute, @ToOne, @ToMany or @OrderedToMany property of \(objectType) (a computed "
                        + "or plain Swift property has no column to query)")
            }
            let path = reference.path + accesses.map(\.key)
            switch last.kind {
            case .objectID:
                return root
            case .attribute:
                return .operand(.key(path.joined(separator: ".")))
            case .toOne:
                return .object(.init(path: path, scope: reference.scope))
            case .toMany, .orderedToMany:
                return .toMany(.init(path: path.joined(separator: "."), scope: reference.scope, filter: nil))
            }
        case .toMany(let reference):
            guard let collection = rootType as? any ToManyCollectionKeyPaths.Type,
                let property = collection.collectionProperty(keyPath)
            else {
                throw unknownKeyPath(
                    keyPath, "of a to-many relationship only count and isEmpty can be read (or use contains(where:), "
                        + "allSatisfy and filter)")
            }
            let count = collectionOperand(.count, of: reference)
            switch property {
            case .count: return .operand(count)
            case .isEmpty: return .condition(.comparison(.init(count, .equalTo, .value(.integer(0)))))
            }
        case .constant(let value):
            if value is ManagedObject {
                throw unsupported(
                    Self.keyPathName(keyPath),
                    "reading a property of a captured object is not translated; capture the property's value instead")
            }
            guard let result = value[keyPath: keyPath] else {
                throw unknownKeyPath(keyPath, "it does not apply to the captured \(type(of: value))")
            }
            return .constant(result)
        case .value:
            throw unsupported(
                Self.keyPathName(keyPath),
                "a property of a stored value (such as a string's count) has no counterpart in ObjectGraph's predicates")
        case .condition:
            throw unsupported(Self.keyPathName(keyPath), "a property of a condition has no counterpart")
        }
    }
}
