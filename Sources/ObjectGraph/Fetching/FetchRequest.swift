/// A description of objects to fetch: entity, filter, order and limits.
///
/// The counterpart of Core Data's `NSFetchRequest<ResultType>`. `Result` is the class of the objects you
/// expect back (`Person`, or ``ManagedObject`` for any); a fetch fails with a typed error if the entity's
/// objects are of another class.
///
/// For example:
///
/// ```swift
/// var request = FetchRequest<Person>(entityName: "Person")
/// request.predicate = try FetchPredicate(format: "age >= %d", 30)
/// request.sortCriteria = [SortCriterion("lastName", comparison: .caseAndDiacriticInsensitive)]
/// let people = try context.fetch(request)
/// ```
public struct FetchRequest<Result: ManagedObject>: Sendable, Hashable, CustomStringConvertible {
    /// The entity whose objects are fetched.
    public var entityName: String
    /// Which objects match; nil matches all.
    public var predicate: FetchPredicate?
    /// The order of the results; ties are broken by object ID, so equal keys always come back in one order.
    public var sortCriteria: [SortCriterion]
    /// The maximum number of objects to return; 0 means no limit (as in Core Data).
    public var fetchLimit: Int
    /// How many matching objects to skip.
    public var fetchOffset: Int
    /// Whether unsaved inserts, updates and deletes of the fetching context are reflected (default true).
    public var includesPendingChanges: Bool
    /// A hint for how many objects to load at a time; accepted for Core Data compatibility.
    public var fetchBatchSize: Int
    /// Whether objects of sub-entities are fetched too (default true, as in Core Data).
    public var includesSubentities: Bool
    /// Whether newly fetched objects come back as faults (default true, as in Core Data). Their values are
    /// kept from the fetch, so firing such a fault needs no further query.
    public var returnsObjectsAsFaults: Bool
    /// Whether the fetch reads property values at all (default true). When false, objects not yet registered
    /// come back as bare faults that read their row when first used.
    public var includesPropertyValues: Bool
    /// Relationship names whose destinations are loaded together with the results (one query per to-one
    /// relationship), instead of one fault at a time.
    public var relationshipKeyPathsForPrefetching: [String]
    /// What a dictionary fetch (``ManagedObjectContext/fetchDictionaries(_:)``) returns for each row or
    /// group: key paths, the object ID and aggregates, each under its name. Empty: every stored attribute.
    /// Ignored by object fetches, as in Core Data.
    public var propertiesToFetch: [FetchedProperty]
    /// Key paths (or names of ``propertiesToFetch``) whose equal values make one group of a dictionary
    /// fetch; every non-aggregate fetched property must be among them. Empty: no grouping.
    public var propertiesToGroupBy: [String]
    /// Which groups a grouped dictionary fetch keeps, evaluated on each group's result: its keys are the
    /// names of ``propertiesToFetch`` and the key paths of ``propertiesToGroupBy`` (`people > 10`,
    /// `sum_age >= 100`). Needs ``propertiesToGroupBy``, as in Core Data.
    public var havingPredicate: FetchPredicate?
    /// Whether a dictionary fetch leaves out rows equal to an earlier one (SQL's `SELECT DISTINCT`).
    public var returnsDistinctResults: Bool
    /// The stores to read (Core Data's `affectedStores`); nil reads every store of the coordinator that holds
    /// the entity, merging their results in the request's order. Stores that do not hold the entity are
    /// skipped. Unsaved objects of the fetching context count as in the store they will be saved to (see
    /// ``ManagedObjectContext/assign(_:to:)``).
    public var affectedStores: [PersistentStore]?

    /// Creates a request for all objects of `entityName`, unsorted.
    public init(
        entityName: String, predicate: FetchPredicate? = nil, sortCriteria: [SortCriterion] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortCriteria = sortCriteria
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includesPendingChanges = true
        self.fetchBatchSize = 0
        self.includesSubentities = true
        self.returnsObjectsAsFaults = true
        self.includesPropertyValues = true
        self.relationshipKeyPathsForPrefetching = []
        self.propertiesToFetch = []
        self.propertiesToGroupBy = []
        self.havingPredicate = nil
        self.returnsDistinctResults = false
        self.affectedStores = nil
    }

    /// The same request for a different result class.
    func cast<Other: ManagedObject>(to: Other.Type) -> FetchRequest<Other> {
        var other = FetchRequest<Other>(
            entityName: entityName, predicate: predicate, sortCriteria: sortCriteria, fetchLimit: fetchLimit,
            fetchOffset: fetchOffset)
        other.includesPendingChanges = includesPendingChanges
        other.fetchBatchSize = fetchBatchSize
        other.includesSubentities = includesSubentities
        other.returnsObjectsAsFaults = returnsObjectsAsFaults
        other.includesPropertyValues = includesPropertyValues
        other.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        other.propertiesToFetch = propertiesToFetch
        other.propertiesToGroupBy = propertiesToGroupBy
        other.havingPredicate = havingPredicate
        other.returnsDistinctResults = returnsDistinctResults
        other.affectedStores = affectedStores
        return other
    }

    public var description: String {
        var parts = ["entity: \(entityName)"]
        if let predicate { parts.append("predicate: \(predicate)") }
        if !sortCriteria.isEmpty { parts.append("sort: " + sortCriteria.map(\.description).joined(separator: ", ")) }
        if fetchLimit > 0 { parts.append("limit: \(fetchLimit)") }
        if fetchOffset > 0 { parts.append("offset: \(fetchOffset)") }
        if !propertiesToFetch.isEmpty {
            parts.append("properties: " + propertiesToFetch.map(\.description).joined(separator: ", "))
        }
        if !propertiesToGroupBy.isEmpty { parts.append("group by: " + propertiesToGroupBy.joined(separator: ", ")) }
        if let havingPredicate { parts.append("having: \(havingPredicate)") }
        if returnsDistinctResults { parts.append("distinct") }
        if let affectedStores { parts.append("stores: " + affectedStores.map(\.identifier).joined(separator: ", ")) }
        return "<FetchRequest " + parts.joined(separator: "; ") + ">"
    }
}
