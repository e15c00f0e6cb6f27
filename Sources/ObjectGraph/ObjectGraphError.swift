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
    /// SQLite reported an error.
    case sqlite(SQLiteError)
    /// A predicate could not be compiled or evaluated.
    case predicate(FetchPredicateError)
    /// Objects being saved were changed or deleted in the store since they were fetched (optimistic locking).
    case mergeConflicts([MergeConflict])
    /// Objects failed validation at save.
    case validation([ValidationFailure])
    /// A fetch found objects of a class other than the request's result class.
    case resultTypeMismatch(entity: String, expected: String, actual: String)
    /// A fetched-results controller's sort order does not keep sections together (Core Data's 134060).
    case sectionsOutOfOrder(index: Int, sectionName: String)
    /// A fetched-results controller's request has no sort criteria.
    case missingSortCriteria
    /// An object from another context or without a context was passed in.
    case objectNotInContext(ManagedObjectID)

    public var description: String {
        switch self {
        case .unknownEntity(let name): "The model has no entity named '\(name)'."
        case let .unknownKey(entity, key): "Entity '\(entity)' has no attribute '\(key)'."
        case .noPersistentStore: "The coordinator has no persistent store."
        case .noCoordinator(let context): "Context \(context) has no persistent store coordinator."
        case let .notAnObjectGraphStore(path, reason): "\(path) is not an ObjectGraph store: \(reason)."
        case let .incompatibleStore(path, reason): "The store at \(path) does not match the model: \(reason)."
        case .sqlite(let error): error.description
        case .predicate(let error): "\(error)"
        case .mergeConflicts(let conflicts):
            "Could not save: \(conflicts.count) object(s) changed in the store since they were read: "
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
        case .objectNotInContext(let id): "Object \(id) does not belong to this context."
        }
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

    public var description: String {
        storeVersion == 0
            ? "\(objectID) was deleted (had version \(expectedVersion))"
            : "\(objectID) is at version \(storeVersion), expected \(expectedVersion)"
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
