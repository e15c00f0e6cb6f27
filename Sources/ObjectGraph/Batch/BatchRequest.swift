/// What a batch request reports back: Core Data's `resultType` of `NSBatchInsertRequest`,
/// `NSBatchUpdateRequest` and `NSBatchDeleteRequest`.
public enum BatchResultType: Sendable, Hashable {
    /// Only the number of objects inserted, updated or deleted (the default; nothing is kept per object).
    case count
    /// The number and the object IDs, plus every change for merging into contexts (``BatchResult/changes``).
    case objectIDs
}

/// The outcome of a batch request.
public struct BatchResult: Sendable {
    /// How many objects the request inserted, updated or deleted (for a delete, cascaded deletions included).
    public let count: Int
    /// Those objects, when the request asked for ``BatchResultType/objectIDs``; nil otherwise.
    public let objectIDs: [ManagedObjectID]?
    /// Everything the request changed in the store, when it asked for ``BatchResultType/objectIDs``: its
    /// inserts, updates or deletes, and for a delete the objects whose relationships its delete rules
    /// nullified. Hand it to ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)`` (or
    /// ``ManagedObjectContext/mergeChanges(fromBatchResult:into:)``) so that contexts and their
    /// fetched-results controllers see the change.
    public let changes: RemoteContextSave?
}

/// Inserts many objects of one entity straight into the store, without managed objects: Core Data's
/// `NSBatchInsertRequest`. Run it with `ManagedObjectContext.execute(_:)` or
/// `PersistentStoreCoordinator.execute(_:)`.
///
/// Each object is a dictionary of attribute values; attributes left out get their default value. Values
/// must fit their attribute (an integer for a Double attribute is read as that number); non-optional
/// attributes need a value. Relationships cannot be set, validation rules beyond type and optionality and
/// uniqueness constraints are not checked, and no context hears about the insert until the result's
/// changes are merged — as with Core Data.
public struct BatchInsertRequest {
    /// The entity whose objects are inserted.
    public var entityName: String
    /// What the result reports.
    public var resultType: BatchResultType = .count
    /// Where the values come from.
    enum Source {
        case objects([[String: AttributeValue]])
        case handler((inout [String: AttributeValue]) -> Bool)
    }
    let source: Source

    /// Inserts one object per dictionary of `objects`.
    public init(entityName: String, objects: [[String: AttributeValue]]) {
        self.entityName = entityName
        source = .objects(objects)
    }

    /// Inserts objects one at a time, as Core Data's `dictionaryHandler`: `handler` gets an empty
    /// dictionary to fill and returns false to insert it and be called again, or true when it is done (that
    /// last dictionary is not inserted). Objects stream into the store's transaction, so a million of them
    /// need no more memory than one. The handler runs on the calling thread, inside the store's write
    /// transaction: it must not use the store itself.
    public init(entityName: String, dictionaryHandler handler: @escaping (inout [String: AttributeValue]) -> Bool) {
        self.entityName = entityName
        source = .handler(handler)
    }
}

/// Sets attribute values on every object of an entity that matches a predicate, straight in the store:
/// Core Data's `NSBatchUpdateRequest`. Each changed row's version (`Z_OPT`) goes up, so a context holding
/// unsaved changes to one of them meets a merge conflict when it saves, as after any other save.
public struct BatchUpdateRequest: Sendable {
    /// The entity whose objects are updated.
    public var entityName: String
    /// Which objects; nil for all.
    public var predicate: FetchPredicate?
    /// The new values, by attribute name (relationships cannot be set). Values are checked as a batch
    /// insert's are.
    public var propertiesToUpdate: [String: AttributeValue]
    /// Whether objects of sub-entities are updated too (default true).
    public var includesSubentities = true
    /// What the result reports.
    public var resultType: BatchResultType = .count

    /// Updates the objects of `entityName` matching `predicate` with `propertiesToUpdate`.
    public init(entityName: String, predicate: FetchPredicate? = nil, propertiesToUpdate: [String: AttributeValue]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}

/// Deletes objects straight in the store: Core Data's `NSBatchDeleteRequest`.
///
/// Unlike Core Data's — which leaves relationships for the app to fix — the delete applies every delete
/// rule of the deleted objects in the same transaction: *cascade* deletes the destinations too (and their
/// rules apply in turn), *nullify* clears the destinations' inverse (and counts them as updated), *deny*
/// refuses the whole request with ``ObjectGraphError/deleteDenied(objectID:relationship:)`` while a deleted
/// object still has destinations that survive, and *no action* leaves them. A rule that would reach into
/// another store is refused with ``ObjectGraphError/batchRequestRefused(entity:reason:)``. A refused
/// request changes nothing.
public struct BatchDeleteRequest: Sendable {
    /// The entity whose objects are deleted.
    public var entityName: String
    /// Which objects, when not given by ID; nil for all.
    public var predicate: FetchPredicate?
    /// The objects to delete, when given by ID (then ``predicate`` is not used).
    public var objectIDs: [ManagedObjectID]?
    /// Whether objects of sub-entities are deleted too (default true).
    public var includesSubentities = true
    /// What the result reports.
    public var resultType: BatchResultType = .count

    /// Deletes the objects of `entityName` matching `predicate` (all of them when nil).
    public init(entityName: String, predicate: FetchPredicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }

    /// Deletes the objects a fetch request describes (its entity, predicate and sub-entity setting; sort
    /// order, limit and offset are ignored), as Core Data's `init(fetchRequest:)`.
    public init<Result>(fetchRequest: FetchRequest<Result>) {
        self.init(entityName: fetchRequest.entityName, predicate: fetchRequest.predicate)
        includesSubentities = fetchRequest.includesSubentities
    }

    /// Deletes the objects `objectIDs`, which must all be of one entity (or its sub-entities) and one store.
    /// IDs of objects that no longer exist are skipped.
    public init(objectIDs: [ManagedObjectID]) {
        self.init(entityName: objectIDs.first?.entityName ?? "")
        self.objectIDs = objectIDs
    }
}
