import Foundation

/// The IDs another process (or another coordinator) saved, as Core Data's
/// `mergeChanges(fromRemoteContextSave:into:)` takes them: no values, only which objects changed.
public struct RemoteContextSave: Sendable {
    /// Objects the remote save inserted.
    public var insertedObjectIDs: [ManagedObjectID]
    /// Objects the remote save updated.
    public var updatedObjectIDs: [ManagedObjectID]
    /// Objects the remote save deleted.
    public var deletedObjectIDs: [ManagedObjectID]

    /// The changes, by object ID.
    public init(
        inserted: [ManagedObjectID] = [], updated: [ManagedObjectID] = [], deleted: [ManagedObjectID] = []
    ) {
        insertedObjectIDs = inserted
        updatedObjectIDs = updated
        deletedObjectIDs = deleted
    }

    /// The changes, by URI (as another process would pass them on), resolved with `coordinator`; URIs it
    /// does not know are skipped.
    public init(
        insertedURIs: [URL] = [], updatedURIs: [URL] = [], deletedURIs: [URL] = [],
        coordinator: PersistentStoreCoordinator
    ) {
        insertedObjectIDs = insertedURIs.compactMap { coordinator.managedObjectID(forURIRepresentation: $0) }
        updatedObjectIDs = updatedURIs.compactMap { coordinator.managedObjectID(forURIRepresentation: $0) }
        deletedObjectIDs = deletedURIs.compactMap { coordinator.managedObjectID(forURIRepresentation: $0) }
    }
}

extension ManagedObjectContext {
    /// Brings each of `contexts` up to date with a save made elsewhere — another process or another
    /// coordinator on the same file — that this coordinator's contexts never saw. The saved rows are read
    /// from the store (past the row cache, which cannot know about them) on each context's queue, then
    /// merged as a local save would be: registered objects take the new values, deleted ones are deleted, and
    /// each context posts one objects-did-change (so fetched-results controllers follow).
    ///
    /// Waits until every context has merged. Rows that no longer exist count as deleted; rows that cannot be read
    /// (an I/O error, a lock held too long) are left as they are, never taken as deleted.
    public static func mergeChanges(fromRemoteContextSave changes: RemoteContextSave, into contexts: [ManagedObjectContext]) {
        for context in contexts {
            context.performAndWait { context.mergeRemoteSave(changes) }
        }
    }

    private func mergeRemoteSave(_ changes: RemoteContextSave) {
        guard let coordinator = persistentStoreCoordinator else { return }
        let model = coordinator.managedObjectModel
        var snapshots: [ManagedObjectID: RowSnapshot] = [:]
        var byEntity: [String: [ManagedObjectID]] = [:]
        for id in changes.insertedObjectIDs + changes.updatedObjectIDs { byEntity[id.entityName, default: []].append(id) }
        // Objects whose rows could not be read: nothing is known about them, so they are neither merged nor
        // taken as deleted (their next fault or refresh reads them again).
        var unread: Set<String> = []
        for (entityName, ids) in byEntity {
            guard let entity = model.entity(named: entityName) else { continue }
            do {
                for row in try coordinator.rows(for: ids, entity: entity, bypassingCache: true) {
                    snapshots[row.objectID] = row
                }
            } catch {
                unread.insert(entityName)
                lastFaultError = error
            }
        }
        // Each object once, inserted first; rows a successful read did not find no longer exist: deleted.
        var listed: Set<ManagedObjectID> = []
        let insertedRows = changes.insertedObjectIDs.compactMap { id in listed.insert(id).inserted ? snapshots[id] : nil }
        let updatedRows = changes.updatedObjectIDs.compactMap { id in listed.insert(id).inserted ? snapshots[id] : nil }
        let gone = listed.filter { snapshots[$0] == nil && !unread.contains($0.entityName) }
        let save = ContextDidSave(
            rows: insertedRows + updatedRows, insertedRowCount: insertedRows.count,
            deleted: Set(changes.deletedObjectIDs).union(gone), contextName: "remote",
            sourceContext: ObjectIdentifier(RemoteContextSaveSource.shared))
        mergeChanges(fromContextDidSave: save)
    }
}

/// Stands for "somewhere else" as the source of a remote save, so no context mistakes it for its own.
private final class RemoteContextSaveSource: Sendable {
    static let shared = RemoteContextSaveSource()
}
