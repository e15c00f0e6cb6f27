/// Everything a store holds, in a form any store type can load: what moving a store to another type
/// (``PersistentStoreCoordinator/migratePersistentStore(_:to:options:type:)``) copies.
///
/// Rows keep their primary keys and versions, so object IDs (with the store's UUID) and the versions that
/// contexts hold for optimistic locking stay valid in the new store.
struct StoreContents: Sendable {
    /// The members of one object's to-many relationship, in order for ordered relationships.
    struct ToMany: Sendable {
        /// The object.
        let owner: ManagedObjectID
        /// Its (concrete) entity.
        let entity: EntityDescription
        /// The relationship's index in `entity.relationships`.
        let relationshipIndex: Int
        /// The related objects.
        let members: [ManagedObjectID]
    }

    /// Every row, of every entity, each under its own (concrete) entity.
    var rows: [RowSnapshot] = []
    /// The non-empty to-many relationships of every row.
    var toMany: [ToMany] = []
    /// The highest primary key used or reserved in each hierarchy, by root entity name: the new store hands
    /// out keys after it, so keys obtained ahead of a save never clash.
    var primaryKeyMaxima: [String: Int64] = [:]
    /// The app's metadata keys (``StoreMetadata/userInfo``).
    var userInfo: [String: MetadataValue] = [:]

    /// Reads everything `store` holds (through its backend, as fetches do), values kept in external files
    /// included (read into the rows).
    ///
    /// - Throws: the store's read errors.
    static func read(from store: PersistentStore, model: ManagedObjectModel) throws(ObjectGraphError) -> StoreContents {
        try read(backend: store.backend, userInfo: store.metadata.userInfo, model: model)
    }

    /// Reads everything `backend` holds, with the app's metadata keys `userInfo`. An in-memory or atomic store
    /// is read straight from its rows (``InMemoryStore/contents(userInfo:)``), any other through fetches.
    ///
    /// - Throws: the store's read errors.
    static func read(backend: any StoreBackend, userInfo: [String: MetadataValue], model: ManagedObjectModel)
        throws(ObjectGraphError) -> StoreContents
    {
        if let memory = backend as? InMemoryStore { return memory.contents(userInfo: userInfo) }
        var contents = StoreContents(userInfo: userInfo)
        for root in model.entities where root.parentEntityName == nil {
            var rows = try backend.fetch(entity: root, predicate: nil, sortCriteria: [], limit: 0, offset: 0,
                includesSubentities: true)
            // Values an SQLite store keeps in files, and a server's values, are read: the contents carry every value
            // itself. A server's are read a batch per statement first, not one round trip each.
            let external = rows.indices.compactMap { position -> (position: Int, entity: EntityDescription)? in
                guard let entity = model.entity(named: rows[position].objectID.entityName),
                    !entity.externalBinaryAttributeIndexes.isEmpty
                else { return nil }
                return (position, entity)
            }
            let prefetched = ExternalBinaryReference.prefetch(external.map { (rows[$0.position].values, $0.entity) })
            for (position, entity) in external {
                let row = rows[position]
                rows[position] = RowSnapshot(objectID: row.objectID,
                    values: try ExternalBinaryReference.inlined(row.values, of: entity, prefetched: prefetched),
                    version: row.version, toOne: row.toOne)
            }
            contents.rows += rows
            let highest = rows.compactMap(\.objectID.primaryKey).max() ?? 0
            contents.primaryKeyMaxima[root.name] = max(contents.primaryKeyMaxima[root.name] ?? 0, highest)
        }
        var idsByEntity: [String: [ManagedObjectID]] = [:]
        for row in contents.rows { idsByEntity[row.objectID.entityName, default: []].append(row.objectID) }
        for (name, ids) in idsByEntity.sorted(by: { $0.key < $1.key }) {
            guard let entity = model.entity(named: name) else { throw .unknownEntity(name) }
            for (index, relationship) in entity.relationships.enumerated()
            where relationship.isToMany && !relationship.isTransient {
                let related = try backend.relatedIDs(ofMany: ids, entity: entity, relationshipIndex: index)
                for id in ids {
                    guard let members = related[id], !members.isEmpty else { continue }
                    contents.toMany.append(ToMany(owner: id, entity: entity, relationshipIndex: index, members: members))
                }
            }
        }
        let reserved: [String: Int64]
        if let sqlite = backend as? SQLiteStore {
            reserved = try sqlite.primaryKeyMaxima()
        } else {
            reserved = [:]
        }
        contents.primaryKeyMaxima.merge(reserved) { max($0, $1) }
        return contents
    }
}
