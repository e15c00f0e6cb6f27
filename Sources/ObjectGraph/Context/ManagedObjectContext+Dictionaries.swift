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
    /// in-memory store's rows — and no objects are made. When several stores hold the entity (see
    /// ``FetchRequest/affectedStores``), the matching rows of all of them are grouped, aggregated, sorted and
    /// cut together, exactly as if one store held them all: groups with the same keys in different stores
    /// are one group. **Dictionary fetches read the saved state of the
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
    /// Plans `request` as a dictionary fetch and runs it in the store that holds its entity; when several
    /// stores take part, reads their matching rows and computes the results from all of them at once.
    func fetchDictionaries<Result>(_ request: FetchRequest<Result>) throws(ObjectGraphError) -> [[String: AttributeValue]] {
        let plan = try DictionaryFetchPlan(request, model: managedObjectModel)
        let stores = try stores(forFetching: plan.entity, includesSubentities: plan.includesSubentities,
            affectedStores: request.affectedStores)
        if stores.count == 1, let store = stores.first {
            if let backend = store.backend as? any BatchStoreBackend { return try backend.fetchDictionaries(plan) }
            if let replicated = store.incrementalStore as? any ReplicatedStore {
                let replica = try replicated.replica
                try replica.checkExternalDataComparisons(plan.predicate, on: plan.entity)
                return try Self.readingExternalValues(try replica.batchBackend.fetchDictionaries(plan), plan)
            }
            throw .unsupportedStoreOperation("the store \(store.displayName) cannot compute dictionary results")
        }
        let graph = StoredRowGraph(coordinator: self)
        var rows: [DictionaryResultAssembler.Row] = []
        for store in stores {
            for row in try store.backend.fetch(entity: plan.entity, predicate: plan.predicate, sortCriteria: [],
                limit: 0, offset: 0, includesSubentities: plan.includesSubentities)
            {
                let subject = graph.subject(for: row)
                rows.append(DictionaryResultAssembler.Row(id: row.objectID) { keyPath in
                    guard let keyPath else { return .uri(row.objectID.uriRepresentation) }
                    switch KeyPathReader.value(of: keyPath, on: subject) {
                    case .value(let value): return value
                    case .object(let id): return .uri(id.uriRepresentation)
                    default: return .null
                    }
                })
            }
        }
        return try Self.readingExternalValues(try DictionaryResultAssembler(plan: plan).assemble(rows), plan)
    }

    /// `results` with every reference to a large value kept apart from its row (a replica's, see
    /// ``StoredValueReference``, or a file's) in a Binary or Transformable column replaced by its bytes: dictionaries
    /// hold values.
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` when a value cannot be read.
    static func readingExternalValues(_ results: [[String: AttributeValue]], _ plan: DictionaryFetchPlan)
        throws(ObjectGraphError) -> [[String: AttributeValue]]
    {
        let names = plan.columns.compactMap { column -> String? in
            guard case .value(_, let type) = plan.slots[column.slot], type == .binary || type == .transformable
            else { return nil }
            return column.name
        }
        guard !names.isEmpty else { return results }
        var output = results
        for (position, result) in results.enumerated() {
            for name in names {
                guard let value = result[name], let reference = ExternalBinaryReference(value) else { continue }
                output[position][name] = .binary(try reference.read())
            }
        }
        return output
    }
}
