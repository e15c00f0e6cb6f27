import Foundation
import SQLiteStorage

extension SQLiteStore {
    /// `Z_PRIMARYKEY.Z_MAX` of every root entity: the highest key used or reserved, by root entity name.
    func primaryKeyMaxima() throws(ObjectGraphError) -> [String: Int64] {
        try withReader { connection throws(ObjectGraphError) in
            try sqlite {
                var maxima: [String: Int64] = [:]
                for row in try connection.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY") {
                    guard row.count == 2, case .integer(let number) = row[0], case .integer(let maximum) = row[1],
                        let entity = layout(forEntityNumber: Int(number))?.entity, entity.parentEntityName == nil
                    else { continue }
                    maxima[entity.name] = maximum
                }
                return maxima
            }
        }
    }

    /// Gives this newly created store the UUID `identifier` (so that IDs naming another store with that UUID
    /// name this one) and the app's metadata keys `userInfo`, in `Z_METADATA`. The object keeps the UUID it was
    /// opened with: open the file again to use the new one.
    func adoptIdentity(_ identifier: String, userInfo: [String: MetadataValue]) throws(ObjectGraphError) {
        let metadata = StoreMetadata(storeType: PersistentStoreType.sqlite.rawValue, storeUUID: identifier,
            entityVersionHashes: model.entityVersionHashes, versionIdentifiers: model.versionIdentifiers.sorted(),
            frameworkVersion: Self.frameworkVersion, userInfo: userInfo)
        try withWriter { connection throws(ObjectGraphError) in
            try sqlite {
                let plist = try metadata.propertyList()
                try connection.transaction(.immediate) {
                    try connection.prepare("UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ? WHERE Z_VERSION = 1")
                        .run([.text(identifier), .blob([UInt8](plist))])
                }
            }
        }
    }

    /// Writes `contents` into this empty store: the rows, their to-one and to-many relationships and the
    /// order of ordered ones in one save, then, in a second transaction, the rows' versions (`Z_OPT`) and the
    /// key counters (`Z_MAX`). The rows' IDs must name this store's UUID (see ``adoptIdentity(_:userInfo:)``).
    func load(_ contents: StoreContents) throws(ObjectGraphError) {
        var request = StoreSaveRequest()
        for row in contents.rows {
            guard let entity = model.entity(named: row.objectID.entityName) else {
                throw .unknownEntity(row.objectID.entityName)
            }
            request.inserts.append(StoreSaveRequest.Insert(
                temporaryID: .makeTemporary(in: entity.temporaryIDNamespace), entity: entity, values: row.values,
                toOne: row.toOne, permanentID: row.objectID))
        }
        for relation in contents.toMany {
            let change = StoreSaveRequest.JoinChange(objectID: relation.owner, entity: relation.entity,
                relationshipIndex: relation.relationshipIndex, added: relation.members, removed: [])
            // Join tables take the members (a one-to-many relationship has none: its rows' foreign keys say it);
            // ordered relationships take their order.
            request.joinChanges.append(change)
            if relation.entity.relationships[relation.relationshipIndex].isOrdered { request.orderChanges.append(change) }
        }
        if !request.inserts.isEmpty { _ = try save(request) }
        let versioned = contents.rows.filter { $0.version != 1 }
        try withWriter { connection throws(ObjectGraphError) in
            var updates: [(sql: String, values: [SQLiteValue])] = []
            for row in versioned {
                guard let entity = model.entity(named: row.objectID.entityName), let key = row.objectID.primaryKey else {
                    continue
                }
                updates.append(("UPDATE \(try layout(of: entity).tableName) SET Z_OPT = ? WHERE Z_PK = ?",
                    [.integer(row.version), .integer(key)]))
            }
            for (name, maximum) in contents.primaryKeyMaxima.sorted(by: { $0.key < $1.key }) {
                guard let root = model.entity(named: name) else { continue }
                updates.append(("UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, ?) WHERE Z_ENT = ?",
                    [.integer(maximum), .integer(Int64(model.entityNumber(of: root)))]))
            }
            try sqlite {
                try connection.transaction(.immediate) {
                    for update in updates { try connection.cachedStatement(update.sql).run(update.values) }
                }
            }
        }
    }
}
