/// The model names of typed key paths, for the places that take key paths as strings: a dictionary fetch's
/// properties and grouping, prefetching, `%K`.
///
/// ```swift
/// try ModelKeyPaths.name(of: \Person.company?.name)    // "company.name"
/// request.propertiesToFetch = [try .keyPath(\Person.city), .count(as: "people")]
/// request.propertiesToGroupBy = [try ModelKeyPaths.name(of: \Person.city)]
/// request.relationshipKeyPathsForPrefetching = [try ModelKeyPaths.name(of: \Person.company)]
/// ```
public enum ModelKeyPaths {
    /// The model key path of a Swift key path through to-one relationships to an attribute or a relationship
    /// (`\Person.company?.name` is `company.name`).
    ///
    /// - Throws: ``TypedPredicateError`` (``TypedPredicateError/Kind/unknownKeyPath``) when the key path reads
    ///   no `@Attribute`, `@ToOne`, `@ToMany` or `@OrderedToMany` property (or hand-written accessor).
    public static func name<Root: ManagedObject, Value>(of keyPath: KeyPath<Root, Value>) throws(TypedPredicateError) -> String {
        guard let accesses = ModelKeyPathProbe.accesses(of: keyPath, rootClass: Root.self), !accesses.isEmpty,
            !accesses.contains(where: { $0.kind == .objectID })
        else {
            throw TypedPredicateError(
                kind: .unknownKeyPath, construct: TypedPredicateTranslator.keyPathName(keyPath),
                reason: "it reads no @Attribute, @ToOne, @ToMany or @OrderedToMany property of \(Root.self)")
        }
        return accesses.map(\.key).joined(separator: ".")
    }
}

extension FetchedProperty {
    /// A typed key path returned under its model name (or `name`): `try .keyPath(\Person.company?.name)`.
    ///
    /// - Throws: ``TypedPredicateError`` when the key path names no model property.
    public static func keyPath<Root: ManagedObject, Value>(
        _ keyPath: KeyPath<Root, Value>, as name: String? = nil
    ) throws(TypedPredicateError) -> FetchedProperty {
        .keyPath(try ModelKeyPaths.name(of: keyPath), as: name)
    }

    /// An aggregate of a typed key path: `try .aggregate(.average, \Person.age, as: "meanAge")`.
    ///
    /// - Throws: ``TypedPredicateError`` when the key path names no model property.
    public static func aggregate<Root: ManagedObject, Value>(
        _ function: Function, _ keyPath: KeyPath<Root, Value>, as name: String? = nil
    ) throws(TypedPredicateError) -> FetchedProperty {
        .aggregate(function, try ModelKeyPaths.name(of: keyPath), as: name)
    }
}
