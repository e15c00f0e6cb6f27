import Foundation

// Foundation's `Predicate` (`#Predicate`) and `SortDescriptor` wherever a `FetchPredicate` or a
// `SortCriterion` is taken: each is translated once, when the request is made, into the same tree a format
// string parses into, so a typed predicate gets the same SQL, the same in-memory evaluation and the same
// answers as its format-string twin.

extension FetchPredicate {
    /// Translates a Foundation predicate over a managed object class into a fetch predicate.
    ///
    /// ```swift
    /// let city = "Oslo"
    /// let predicate = try FetchPredicate(#Predicate<Person> { $0.age >= 30 && $0.city == city })
    /// // the same tree as try FetchPredicate(format: "age >= 30 AND city == %@", city)
    /// ```
    ///
    /// Key paths must lead to `@Attribute`, `@ToOne`, `@ToMany` or `@OrderedToMany` properties (what
    /// `objectgraph codegen` writes); the model checks the names when the request runs, as it does for a
    /// format string. See <doc:Fetching> for the constructs translated and their format-string twins.
    ///
    /// - Throws: ``TypedPredicateError`` naming the construct, and where it is, when something has no
    ///   counterpart (never a crash, never a fallback to evaluating Swift code row by row).
    public init<Root: ManagedObject>(_ predicate: Predicate<Root>) throws(TypedPredicateError) {
        self.init(try TypedPredicateTranslator.node(of: predicate))
    }
}

extension ModelKeyPathProbe {
    /// The model key path (`company.name`) of a Swift key path through to-one relationships to an
    /// attribute, for sorting and section names.
    static func attributeKeyPath<Root: ManagedObject>(
        _ keyPath: PartialKeyPath<Root>, for construct: String
    ) throws(TypedPredicateError) -> String {
        guard let accesses = accesses(of: keyPath, rootClass: Root.self), let last = accesses.last else {
            throw TypedPredicateError(
                kind: .unknownKeyPath, construct: TypedPredicateTranslator.keyPathName(keyPath), path: [construct],
                reason: "it reads no @Attribute, @ToOne, @ToMany or @OrderedToMany property of \(Root.self)")
        }
        guard last.kind == .attribute else {
            throw TypedPredicateError(
                kind: .unsupported, construct: accesses.map(\.key).joined(separator: "."), path: [construct],
                reason: "it does not end in an attribute; \(construct) needs an attribute (through to-one relationships)")
        }
        return accesses.map(\.key).joined(separator: ".")
    }
}

extension SortCriterion {
    /// Translates a Foundation sort descriptor: its key path and order. (On Linux, Foundation's
    /// `String.StandardComparator` only offers `.lexical`, which is ``Comparison/binary``; for case-insensitive or
    /// localized order use ``init(_:ascending:comparison:)-(KeyPath<Root,Value>,_,_)`` with a key path.)
    ///
    /// - Throws: ``TypedPredicateError`` when the descriptor has no key path, or its key path does not lead to
    ///   an attribute.
    public init<Root: ManagedObject>(_ descriptor: SortDescriptor<Root>) throws(TypedPredicateError) {
        guard let keyPath = descriptor.keyPath else {
            throw TypedPredicateError(
                kind: .unsupported, construct: "\(descriptor)", path: ["SortDescriptor"],
                reason: "only sort descriptors made from a key path can be translated")
        }
        let key = try ModelKeyPathProbe.attributeKeyPath(keyPath, for: "SortDescriptor")
        self.init(key, ascending: descriptor.order == .forward, comparison: .binary)
    }

    /// Sorts by the attribute a typed key path leads to, with any comparison:
    /// `try SortCriterion(\Person.lastName, comparison: .localizedStandard)`.
    ///
    /// - Throws: ``TypedPredicateError`` when the key path does not lead to an attribute through to-one
    ///   relationships.
    public init<Root: ManagedObject, Value>(
        _ keyPath: KeyPath<Root, Value>, ascending: Bool = true, comparison: Comparison = .binary
    ) throws(TypedPredicateError) {
        self.init(
            try ModelKeyPathProbe.attributeKeyPath(keyPath, for: "SortCriterion"), ascending: ascending,
            comparison: comparison)
    }

    /// Sorts by the attribute a typed key path leads to, in Foundation's `SortOrder`.
    public init<Root: ManagedObject, Value>(
        _ keyPath: KeyPath<Root, Value>, order: SortOrder, comparison: Comparison = .binary
    ) throws(TypedPredicateError) {
        try self.init(keyPath, ascending: order == .forward, comparison: comparison)
    }
}

extension FetchRequest {
    /// A request for objects of `Result`'s entity (``ManagedObject/entityName``) matching a typed predicate,
    /// in the order of Foundation sort descriptors:
    ///
    /// ```swift
    /// let request = try FetchRequest<Person>(
    ///     predicate: #Predicate { $0.age >= 30 && $0.tags.contains { $0.name == "swift" } },
    ///     sortBy: [SortDescriptor(\.age, order: .reverse)])
    /// ```
    ///
    /// - Throws: ``TypedPredicateError`` when the predicate or a sort descriptor cannot be translated.
    public init(
        predicate: Predicate<Result>?, sortBy: [SortDescriptor<Result>] = [], fetchLimit: Int = 0,
        fetchOffset: Int = 0
    ) throws(TypedPredicateError) {
        var criteria: [SortCriterion] = []
        for descriptor in sortBy { criteria.append(try SortCriterion(descriptor)) }
        try self.init(predicate: predicate, sortCriteria: criteria, fetchLimit: fetchLimit, fetchOffset: fetchOffset)
    }

    /// A request for objects of `Result`'s entity matching a typed predicate, sorted by criteria (typed ones
    /// from ``SortCriterion/init(_:ascending:comparison:)-(KeyPath<Root,Value>,_,_)`` included).
    ///
    /// - Throws: ``TypedPredicateError`` when the predicate cannot be translated.
    public init(
        predicate: Predicate<Result>?, sortCriteria: [SortCriterion], fetchLimit: Int = 0, fetchOffset: Int = 0
    ) throws(TypedPredicateError) {
        self.init(
            entityName: Result.entityName, predicate: try predicate.map { p throws(TypedPredicateError) in try FetchPredicate(p) },
            sortCriteria: sortCriteria, fetchLimit: fetchLimit, fetchOffset: fetchOffset)
    }
}

extension BatchUpdateRequest {
    /// Updates the objects of `Root`'s entity matching a typed predicate.
    ///
    /// - Throws: ``TypedPredicateError`` when the predicate cannot be translated.
    public init<Root: ManagedObject>(
        predicate: Predicate<Root>, propertiesToUpdate: [String: AttributeValue]
    ) throws(TypedPredicateError) {
        self.init(
            entityName: Root.entityName, predicate: try FetchPredicate(predicate), propertiesToUpdate: propertiesToUpdate)
    }
}

extension BatchDeleteRequest {
    /// Deletes the objects of `Root`'s entity matching a typed predicate.
    ///
    /// - Throws: ``TypedPredicateError`` when the predicate cannot be translated.
    public init<Root: ManagedObject>(predicate: Predicate<Root>) throws(TypedPredicateError) {
        self.init(entityName: Root.entityName, predicate: try FetchPredicate(predicate))
    }
}

extension FetchedResultsController {
    /// Creates a controller whose sections are named by the attribute a typed key path leads to.
    ///
    /// - Throws: ``TypedPredicateError`` when the key path does not lead to an attribute.
    public convenience init<Value>(
        fetchRequest: FetchRequest<Result>, managedObjectContext: ManagedObjectContext,
        sectionNameKeyPath: KeyPath<Result, Value>, cacheName: String? = nil
    ) throws(TypedPredicateError) {
        let key = try ModelKeyPathProbe.attributeKeyPath(sectionNameKeyPath, for: "sectionNameKeyPath")
        self.init(
            fetchRequest: fetchRequest, managedObjectContext: managedObjectContext, sectionNameKeyPath: key,
            cacheName: cacheName)
    }
}

extension ManagedObjectModel {
    /// A typed fetch request made from the template `name` (Core Data's
    /// `fetchRequestFromTemplate(withName:substitutionVariables:)`), with its `$VARIABLES` replaced by
    /// `variables` and, if given, a typed predicate joined with `AND`:
    ///
    /// ```swift
    /// // Template "PeopleInCity": Person where city ==[cd] $CITY
    /// let request = try model.fetchRequest(fromTemplateWithName: "PeopleInCity", as: Person.self,
    ///     substitutionVariables: ["CITY": "Zürich"], combinedWith: #Predicate { $0.age >= 18 })
    /// let people: [Person] = try context.fetch(request!)
    /// ```
    ///
    /// - Returns: nil when the model has no template of that name (as Core Data returns nil).
    /// - Throws: ``FetchPredicateError`` as the untyped variant does, also when the template fetches another
    ///   entity than `Result`'s (or one of its parents) or the typed predicate cannot be translated (kind
    ///   `.unsupported`, with the translator's message).
    public func fetchRequest<Result: ManagedObject>(
        fromTemplateWithName name: String, as type: Result.Type,
        substitutionVariables variables: [String: any PredicateArgument] = [:],
        combinedWith additional: Predicate<Result>? = nil
    ) throws(FetchPredicateError) -> FetchRequest<Result>? {
        guard let template = fetchRequestTemplate(named: name) else { return nil }
        guard let resultEntity = entity(named: Result.entityName) else {
            throw FetchPredicateError(kind: .unknownKey,
                message: "The model has no entity '\(Result.entityName)' for \(Result.self)")
        }
        // The template's objects must be `Result`s: its entity is Result's or one below it.
        guard entityAndDescendants(of: resultEntity).contains(where: { $0.name == template.entityName }) else {
            throw FetchPredicateError(kind: .unknownKey, message: "Template '\(name)' fetches \(template.entityName), "
                + "not \(Result.entityName) or one of its sub-entities")
        }
        var extra: FetchPredicate?
        if let additional {
            do throws(TypedPredicateError) {
                extra = try FetchPredicate(additional)
            } catch {
                throw FetchPredicateError(kind: .unsupported, message: error.description)
            }
        }
        guard let untyped = try fetchRequest(fromTemplateWithName: name, substitutionVariables: variables,
            combinedWith: extra)
        else { return nil }
        var request = FetchRequest<Result>(entityName: untyped.entityName, predicate: untyped.predicate)
        request.sortCriteria = untyped.sortCriteria
        return request
    }
}
