import Foundation
import SQLiteStorage

/// What went wrong in the framework, with enough detail to act on: what, where and why.
///
/// Core Data reports these as `NSError` codes (134060, 133020, 1570, …); here they are typed cases.
public enum ObjectGraphError: Error, Sendable, CustomStringConvertible {
    /// The model has no entity with this name.
    case unknownEntity(String)
    /// The entity has no attribute with this name (for example in a sort criterion).
    case unknownKey(entity: String, key: String)
    /// The coordinator has no persistent store to read from or save to.
    case noPersistentStore
    /// The context has no coordinator.
    case noCoordinator(context: String)
    /// The store file exists but is not a store this framework wrote (no `Z_METADATA`).
    case notAnObjectGraphStore(path: String, reason: String)
    /// The store was written for a different model.
    case incompatibleStore(path: String, reason: String)
    /// The atomic store file at `path` is an ObjectGraph store but cannot be read: truncated, or damaged
    /// (`reason` says what and where). The file was not changed.
    case damagedStore(path: String, reason: String)
    /// The store's metadata holds entity version hashes that differ from the model's (the model changed since
    /// the store was written) and the store was not migrated: migration was turned off, or no version of the
    /// model matches the store. `entities` are the entities whose hashes differ (added, removed or changed).
    case incompatibleModel(path: String, entities: [String], reason: String)
    /// Lightweight migration cannot infer how to carry the store from model version `from` to `to`: `change`
    /// says what changed (`Person.age: Integer 64 → Integer 16`), `reason` why it cannot be done in place.
    /// The store was left untouched.
    case migrationNotInferable(path: String, from: String, to: String, change: String, reason: String)
    /// SQLite reported an error.
    case sqlite(SQLiteError)
    /// A predicate could not be compiled or evaluated.
    case predicate(FetchPredicateError)
    /// Objects being saved were changed or deleted in the store since they were fetched (optimistic locking).
    case mergeConflicts([MergeConflict])
    /// Inserted objects repeat the values of a uniqueness constraint (with the `.error` merge policy).
    case constraintConflicts([ConstraintConflict])
    /// Objects failed validation at save.
    case validation([ValidationFailure])
    /// A fetch found objects of a class other than the request's result class.
    case resultTypeMismatch(entity: String, expected: String, actual: String)
    /// A fetched-results controller's sort order does not keep sections together (Core Data's 134060).
    case sectionsOutOfOrder(index: Int, sectionName: String)
    /// A fetched-results controller's request has no sort criteria.
    case missingSortCriteria
    /// A fetched-results controller's background fetch was cancelled by a later fetch, or by a reset of its
    /// context; its results were not used.
    case fetchCancelled
    /// An object from another context or without a context was passed in.
    case objectNotInContext(ManagedObjectID)
    /// A save, metadata change or key allocation was sent to a store added read-only (Core Data's
    /// `NSReadOnlyPersistentStoreOption`); nothing was written.
    case readOnlyStore(store: String)
    /// A store was added with a configuration name the model does not define.
    case unknownConfiguration(String)
    /// The coordinator has stores, but none whose configuration holds this entity.
    case noStoreForEntity(String)
    /// An object ID (or URI) names a store this coordinator does not have (never added, or removed).
    case unknownStore(identifier: String)
    /// The same store file was added to the coordinator twice.
    case storeAlreadyAdded(path: String)
    /// A relationship links objects held by different stores, which a store cannot record (as in Core Data).
    case crossStoreRelationship(from: ManagedObjectID, to: ManagedObjectID)
    /// A store option (such as an SQLite pragma) is malformed or not allowed.
    case invalidStoreOption(name: String, reason: String)
    /// An insert asked for a permanent ID whose row already exists.
    case duplicateObjectID(ManagedObjectID)
    /// A store management operation (backup, migration, replacement) would overwrite a file or folder that
    /// already exists at `path`; nothing was changed.
    case destinationExists(path: String)
    /// The store file at `path` is added to this coordinator, and the operation needs it not to be (remove
    /// it with ``PersistentStoreCoordinator/remove(_:)`` first); nothing was changed.
    case storeInUse(path: String)
    /// A store management operation cannot do what was asked (for example replace an in-memory store, which
    /// has no file, or copy a store onto its own file); nothing was changed.
    case unsupportedStoreOperation(String)
    /// Creating, copying or removing a store's file, side file or folder failed.
    case fileOperationFailed(path: String, reason: String)
    /// A dictionary fetch or batch request is malformed for `entity` (an unknown or ungrouped property, a
    /// sum of text, a value that does not fit its attribute); `reason` says which part and why. Nothing was
    /// read or written.
    case invalidRequest(entity: String, reason: String)
    /// A batch delete met a deny rule: `objectID` still holds objects in `relationship`. Nothing was deleted.
    case deleteDenied(objectID: ManagedObjectID, relationship: String)
    /// A batch request cannot be applied by the store as asked (a delete rule that would reach another
    /// store, say); `reason` says why. Nothing was written.
    case batchRequestRefused(entity: String, reason: String)
    /// The value of an attribute stored outside its row (``AttributeDescription/allowsExternalBinaryDataStorage``)
    /// cannot be read: from its file at `path` beside an SQLite store — removed or replaced by hand, or deleted by a
    /// later save before this (lazy) read — or from a PostgreSQL store's `Z_EXTERNALDATA`, where `path` names the
    /// database, the object, the attribute and the value ID — replaced or removed by a later save (another
    /// client's, say) before this read, or the server cannot be reached; `reason` says what failed.
    case externalDataUnavailable(path: String, reason: String)
    /// ``ManagedObjectContext/assign(_:to:)`` cannot put the object in that store: the object was saved
    /// already (its store is fixed), the store is not added to the context's coordinator, or its configuration
    /// does not hold the object's entity; `reason` says which.
    case cannotAssignStore(objectID: ManagedObjectID, store: String, reason: String)
    /// The persistent history after transaction `transactionNumber` of the store `store` was purged
    /// (``PersistentStoreCoordinator/deleteHistory(before:)-(HistoryToken)``), so fetching after that token
    /// would miss transactions: Core Data's `NSPersistentHistoryTokenExpiredError`. Drop the token and start
    /// over from the current state; the oldest transaction still kept is `oldestAvailable`.
    case historyTokenExpired(store: String, transactionNumber: Int64, oldestAvailable: Int64)
    /// A store could not be read (`reason`): locked by another writer for longer than the busy timeout, an
    /// I/O error, or a damaged file. Nothing was assumed about the rows it was asked for — in particular they
    /// are not taken as deleted; ask again later.
    case readFailed(store: String, reason: String)
    /// The store's server could not be reached, or the connection to it broke during the operation (`reason`
    /// says which and why). A save that meets this left nothing in the store and its context keeps every change;
    /// the next operation connects again.
    case storeUnavailable(store: String, reason: String)
    /// The store's server refused a statement (`reason` is its message, never a password). Nothing of the failed
    /// operation was kept.
    case storeFailed(store: String, reason: String)
    /// The store's server refused a save because a row breaks a uniqueness constraint (`reason` is its message):
    /// another client committed the same constrained values after this context checked them. Nothing of the save
    /// was kept. A context saving with a merge policy other than `.error` resolves the conflict again and retries
    /// (an upsert); with `.error` the retry reports ``constraintConflicts(_:)``.
    case uniqueConstraintViolated(store: String, reason: String)
    /// Attribute `attribute` of `entity` names value transformer `name`, and none is registered under it (see
    /// ``ValueTransformers/register(_:forName:)``). Nothing was read or changed.
    case valueTransformerNotFound(name: String, entity: String, attribute: String)
    /// The value of attribute `attribute` of `entity` could not be transformed (`reason`: which way, and the
    /// transformer's or the archive's own words). Nothing was changed.
    case valueTransformFailed(entity: String, attribute: String, reason: String)

    public var description: String {
        switch self {
        case .unknownEntity(let name): "The model has no entity named '\(name)'."
        case let .unknownKey(entity, key): "Entity '\(entity)' has no attribute '\(key)'."
        case .noPersistentStore: "The coordinator has no persistent store."
        case .noCoordinator(let context): "Context \(context) has no persistent store coordinator."
        case let .notAnObjectGraphStore(path, reason): "\(path) is not an ObjectGraph store: \(reason)."
        case let .incompatibleStore(path, reason): "The store at \(path) does not match the model: \(reason)."
        case let .damagedStore(path, reason): "The store at \(path) is damaged: \(reason). The file was not changed."
        case let .incompatibleModel(path, entities, reason):
            "The store at \(path) does not match the model: it was written for another version of the model "
                + "(entities that differ: \(entities.joined(separator: ", "))), and \(reason)."
        case let .migrationNotInferable(path, from, to, change, reason):
            "The store at \(path) cannot be migrated from model \(from) to \(to): \(change): \(reason). "
                + "The store was left as it was."
        case .sqlite(let error): error.description
        case .predicate(let error): "\(error)"
        case .mergeConflicts(let conflicts):
            "Could not save: \(conflicts.count) object(s) changed in the store since they were read: "
                + conflicts.map(\.description).joined(separator: "; ")
        case .constraintConflicts(let conflicts):
            "Could not save: \(conflicts.count) uniqueness conflict(s): "
                + conflicts.map(\.description).joined(separator: "; ")
        case .validation(let failures):
            "Could not save: " + failures.map(\.description).joined(separator: "; ")
        case let .resultTypeMismatch(entity, expected, actual):
            "Objects of entity '\(entity)' are \(actual), not \(expected)."
        case let .sectionsOutOfOrder(index, name):
            "The fetched object at index \(index) has an out of order section name '\(name)'. "
                + "Objects must be sorted by section name."
        case .missingSortCriteria:
            "A fetched-results controller needs a fetch request with at least one sort criterion."
        case .fetchCancelled:
            "The background fetch was cancelled (a later fetch replaced it, or the context was reset); its results were not used."
        case .objectNotInContext(let id): "Object \(id) does not belong to this context."
        case .readOnlyStore(let store): "The store \(store) is read-only; nothing was written."
        case .unknownConfiguration(let name): "The model has no configuration named '\(name)'."
        case .noStoreForEntity(let name): "No persistent store's configuration holds entity '\(name)'."
        case .unknownStore(let identifier): "The coordinator has no store with identifier \(identifier)."
        case .storeAlreadyAdded(let path): "The store at \(path) was already added to this coordinator."
        case let .crossStoreRelationship(from, to):
            "\(from) cannot be related to \(to): they live in different stores."
        case let .invalidStoreOption(name, reason): "Store option '\(name)' is not valid: \(reason)."
        case .duplicateObjectID(let id): "An object with ID \(id) already exists in its store."
        case .destinationExists(let path):
            "\(path) already exists; it was left as it is (destroy it first, or replace it with "
                + "replacePersistentStore if it is a store)."
        case .storeInUse(let path):
            "The store at \(path) is added to this coordinator; remove it from the coordinator first. Nothing was changed."
        case .unsupportedStoreOperation(let reason): "Unsupported store operation: \(reason)."
        case let .fileOperationFailed(path, reason): "Could not change \(path): \(reason)."
        case let .invalidRequest(entity, reason): "Invalid request for entity '\(entity)': \(reason)."
        case let .deleteDenied(objectID, relationship):
            "Batch delete refused: \(objectID) still has objects in '\(relationship)', whose delete rule is Deny. "
                + "Nothing was deleted."
        case let .batchRequestRefused(entity, reason):
            "Batch request on '\(entity)' refused: \(reason). Nothing was written."
        case let .externalDataUnavailable(path, reason):
            "The externally stored value in \(path) cannot be read: \(reason)."
        case let .cannotAssignStore(objectID, store, reason):
            "\(objectID) cannot be assigned to the store \(store): \(reason)."
        case let .historyTokenExpired(store, number, oldest):
            "The persistent history of store \(store) after transaction \(number) was purged (the oldest kept is "
                + "\(oldest)); drop the token and start again from the store's current state."
        case let .readFailed(store, reason): "The store \(store) could not be read: \(Self.ending(reason)) No row was taken as deleted."
        case let .storeUnavailable(store, reason):
            "The store \(store) is unavailable: \(Self.ending(reason)) Nothing of the failed operation was kept; try again."
        case let .storeFailed(store, reason): "The store \(store) refused the operation: \(Self.ending(reason)) Nothing of it was kept."
        case let .uniqueConstraintViolated(store, reason):
            "The store \(store) refused the save, which breaks a uniqueness constraint: \(Self.ending(reason)) Nothing of it was kept."
        case let .valueTransformerNotFound(name, entity, attribute):
            "\(entity).\(attribute) uses value transformer '\(name)', and none is registered under that name "
                + "(ValueTransformers.register(_:forName:))."
        case let .valueTransformFailed(entity, attribute, reason):
            "The value of \(entity).\(attribute) could not be transformed: \(reason)."
        }
    }

    /// `reason` ended as a sentence: with a full stop, unless it already ends in one, a question or an exclamation
    /// mark (a server's message often does: "Is the server running on that host …?").
    private static func ending(_ reason: String) -> String {
        guard let last = reason.last, !".?!".contains(last) else { return reason }
        return reason + "."
    }
}

/// An object whose row changed (or vanished) in the store between its fetch and its save.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// The object that could not be saved.
    public var objectID: ManagedObjectID
    /// The row version the context had read.
    public var expectedVersion: Int64
    /// The row version now in the store; 0 when the row was deleted.
    public var storeVersion: Int64
    /// The object's persistent values as the context would have saved them, by attribute name.
    public var objectSnapshot: [String: AttributeValue] = [:]
    /// The values the context last read from (or saved to) the store.
    public var cachedSnapshot: [String: AttributeValue] = [:]
    /// The values now in the store; nil when the row was deleted.
    public var persistedSnapshot: [String: AttributeValue]? = nil

    /// A conflict with only the versions known (the store reports these; the context adds the snapshots).
    public init(objectID: ManagedObjectID, expectedVersion: Int64, storeVersion: Int64) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
        self.storeVersion = storeVersion
    }

    /// The attributes whose stored value differs from what the context read.
    public var keysChangedInStore: [String] {
        guard let persisted = persistedSnapshot else { return [] }
        return persisted.keys.filter { persisted[$0] != cachedSnapshot[$0] }.sorted()
    }

    public var description: String {
        storeVersion == 0
            ? "\(objectID) was deleted (had version \(expectedVersion))"
            : "\(objectID) is at version \(storeVersion), expected \(expectedVersion)"
                + (keysChangedInStore.isEmpty ? "" : " (changed in the store: \(keysChangedInStore.joined(separator: ", ")))")
    }
}

/// One validation failure: which object, which key, and why.
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The object that failed.
    public var objectID: ManagedObjectID
    /// The attribute that failed.
    public var key: String
    /// Why it failed.
    public var reason: String

    public var description: String { "\(objectID.entityName).\(key): \(reason) (\(objectID))" }
}
