import Foundation

extension PersistentStoreCoordinator {
    /// The current metadata of one of this coordinator's stores, as Core Data's `metadata(for:)`.
    ///
    /// - Throws: ``ObjectGraphError/unknownStore(identifier:)`` when the store is not (or no longer) added.
    public func metadata(for store: PersistentStore) throws(ObjectGraphError) -> StoreMetadata {
        try checkAdded(store)
        return store.metadata
    }

    /// Replaces the app's metadata keys of a store (``StoreMetadata/userInfo``), as Core Data's
    /// `setMetadata(_:for:)`. An SQLite store writes them at once, in `Z_METADATA`'s property list next to
    /// the version hashes (Core Data waits for the next save; writing now means nothing is lost if none comes);
    /// an in-memory store keeps them in memory. The system keys — type, UUID, version hashes and identifiers,
    /// framework version — always stay the store's own, whatever `metadata` says.
    ///
    /// ```swift
    /// var metadata = try coordinator.metadata(for: store)
    /// metadata.userInfo["importedAt"] = .date(Date())
    /// try coordinator.setMetadata(metadata, for: store)
    /// ```
    ///
    /// - Throws: ``ObjectGraphError/readOnlyStore(store:)``, ``ObjectGraphError/unknownStore(identifier:)``, or
    ///   a store error (the store then keeps its previous metadata).
    public func setMetadata(_ metadata: StoreMetadata, for store: PersistentStore) throws(ObjectGraphError) {
        try checkAdded(store)
        guard !store.isReadOnly else { throw .readOnlyStore(store: store.displayName) }
        var updated = store.metadata
        updated.userInfo = metadata.userInfo.filter { !StoreMetadata.systemKeys.contains($0.key) }
        try store.backend.writeMetadata(updated)
        store.replaceMetadata(updated)
    }

    /// Reads the metadata of the SQLite store at `url` without opening it for use (Core Data's
    /// `metadataForPersistentStore(ofType:at:)`): check `entityVersionHashes` against a model before adding it.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when the file is not a store.
    public static func metadataForPersistentStore(at url: URL) throws(ObjectGraphError) -> StoreMetadata {
        try SQLiteStore.readMetadata(path: url.path)
    }

    private func checkAdded(_ store: PersistentStore) throws(ObjectGraphError) {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw .unknownStore(identifier: store.identifier)
        }
    }
}
