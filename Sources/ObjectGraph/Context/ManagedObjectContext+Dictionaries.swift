extension ManagedObjectContext {
    /// Fetches dictionaries instead of objects (Core Data's `.dictionaryResultType`): for each matching row —
    /// or, with ``FetchRequest/propertiesToGroupBy`` or aggregates, for each group — the values of
    /// ``FetchRequest/propertiesToFetch`` under their names (all stored attributes when it is empty), nil
    /// values left out as Core Data leaves them out.
    ///
    /// For example, the number of people and their mean age per city, for cities with more than ten:
    ///
    /// ```swift
    /// var request = FetchRequest<ManagedObject>(entityName: "Person")
    /// request.propertiesToFetch = ["city", .count(as: "people"), .average("age", as: "meanAge")]
    /// request.propertiesToGroupBy = ["city"]
    /// request.havingPredicate = try FetchPredicate(format: "people > 10")
    /// request.sortCriteria = [SortCriterion("people", ascending: false)]
    /// let rows = try context.fetchDictionaries(request)   // [["city": "Oslo", "people": 42, "meanAge": 37.5], …]
    /// ```
    ///
    /// The work happens in the store — one SQL statement on an SQLite store, the same computation on the
    /// in-memory store's rows — and no objects are made. **Dictionary fetches read the saved state of the
    /// store**: unsaved changes of this context (and of its parents) are not included, whatever
    /// ``FetchRequest/includesPendingChanges`` says, as in Core Data, which does not support pending
    /// changes with dictionary results. Save first to include them.
    ///
    /// - Throws: ``ObjectGraphError/invalidRequest(entity:reason:)`` for properties, group keys, having keys
    ///   or sort keys that do not fit (see ``FetchedProperty``), ``ObjectGraphError/predicate(_:)``, routing
    ///   errors, or a store error.
    public func fetchDictionaries<Result: ManagedObject>(_ request: FetchRequest<Result>) throws(ObjectGraphError)
        -> [[String: AttributeValue]]
    {
        checkQueue("fetchDictionaries(_:)")
        guard let coordinator = persistentStoreCoordinator else { throw .noCoordinator(context: description) }
        return try coordinator.fetchDictionaries(request)
    }
}

extension PersistentStoreCoordinator {
    /// Plans `request` as a dictionary fetch and runs it in the store that holds its entity.
    func fetchDictionaries<Result>(_ request: FetchRequest<Result>) throws(ObjectGraphError) -> [[String: AttributeValue]] {
        let plan = try DictionaryFetchPlan(request, model: managedObjectModel)
        let store = try store(for: plan.entity)
        guard let backend = store.backend as? any BatchStoreBackend else {
            throw .unsupportedStoreOperation("the store \(store.displayName) cannot compute dictionary results")
        }
        return try backend.fetchDictionaries(plan)
    }
}
