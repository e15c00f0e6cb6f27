import SQLiteStorage

extension SQLiteStore {
    /// The join table side for relationship `index` of `entity` (looked up on the entity that declares it).
    func joinTable(of entity: EntityDescription, relationshipIndex index: Int) -> JoinTable? {
        let name = entity.relationships[index].name
        var declaring: EntityDescription? = entity
        while let current = declaring {
            if current.ownRelationships.contains(where: { $0.name == name }) {
                return joinTables["\(current.name).\(name)"]
            }
            declaring = current.parentEntityName.flatMap(model.entity(named:))
        }
        return nil
    }

    func relatedIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex index: Int)
        throws(ObjectGraphError) -> [ManagedObjectID]
    {
        guard let key = objectID.primaryKey else { return [] }
        let relationship = entity.relationships[index]
        guard let destination = model.entity(named: relationship.destinationEntityName) else {
            throw .unknownEntity(relationship.destinationEntityName)
        }
        let destinationLayout = try layout(of: destination)
        let sql: String
        if let table = joinTable(of: entity, relationshipIndex: index) {
            let order = table.orderColumn.map { "j.\($0), d.Z_PK" } ?? "d.Z_PK"
            sql = "SELECT d.Z_PK, d.Z_ENT FROM \(table.name) j JOIN \(destinationLayout.tableName) d "
                + "ON d.Z_PK = j.\(table.otherColumn) WHERE j.\(table.ownColumn) = ? ORDER BY \(order)"
        } else if let inverseName = relationship.inverseName,
            let foreignKey = destinationLayout.foreignKeys.first(where: {
                destination.relationships[$0.relationshipIndex].name == inverseName
            })
        {
            let numbers = destinationLayout.entityNumbersWithDescendants.map(String.init).joined(separator: ", ")
            let order = foreignKey.orderColumn.map { "\($0), Z_PK" } ?? "Z_PK"
            sql = "SELECT Z_PK, Z_ENT FROM \(destinationLayout.tableName) WHERE \(foreignKey.name) = ? "
                + "AND Z_ENT IN (\(numbers)) ORDER BY \(order)"
        } else {
            return []
        }
        let namespaces = idNamespaces
        return try withReader { connection throws(ObjectGraphError) in
            try sqlite {
                let statement = try connection.cachedStatement(sql)
                try statement.bind([.integer(key)])
                var result: [ManagedObjectID] = []
                while try statement.step() {
                    let entityName = layout(forEntityNumber: Int(statement.int64(at: 1)))?.entity.name ?? destination.name
                    result.append(namespaces.id(entityName: entityName, key: statement.int64(at: 0)))
                }
                return result
            }
        }
    }

    /// One query (per 500 owners) for a to-many relationship of many objects: what prefetching uses.
    func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex index: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        let relationship = entity.relationships[index]
        guard let destination = model.entity(named: relationship.destinationEntityName) else {
            throw .unknownEntity(relationship.destinationEntityName)
        }
        let destinationLayout = try layout(of: destination)
        let owners = Dictionary(objectIDs.compactMap { id in id.primaryKey.map { ($0, id) } }, uniquingKeysWith: { a, _ in a })
        let select: String
        if let table = joinTable(of: entity, relationshipIndex: index) {
            let order = table.orderColumn.map { ", j.\($0)" } ?? ""
            select = "SELECT j.\(table.ownColumn), d.Z_PK, d.Z_ENT\(order) FROM \(table.name) j JOIN \(destinationLayout.tableName) d "
                + "ON d.Z_PK = j.\(table.otherColumn) WHERE j.\(table.ownColumn) IN "
        } else if let inverseName = relationship.inverseName,
            let foreignKey = destinationLayout.foreignKeys.first(where: {
                destination.relationships[$0.relationshipIndex].name == inverseName
            })
        {
            let order = foreignKey.orderColumn.map { ", \($0)" } ?? ""
            select = "SELECT \(foreignKey.name), Z_PK, Z_ENT\(order) FROM \(destinationLayout.tableName) WHERE \(foreignKey.name) IN "
        } else {
            return [:]
        }
        let namespaces = idNamespaces
        let keys = Array(owners.keys).sorted()
        return try withReader { connection throws(ObjectGraphError) in
            try sqlite {
                var result: [ManagedObjectID: [(order: Int64, id: ManagedObjectID)]] = [:]
                for start in stride(from: 0, to: keys.count, by: 500) {
                    let chunk = keys[start..<min(start + 500, keys.count)]
                    let statement = try connection.prepare(
                        select + "(" + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ")")
                    try statement.bind(chunk.map { .integer($0) })
                    while try statement.step() {
                        guard let owner = owners[statement.int64(at: 0)] else { continue }
                        let entityName = layout(forEntityNumber: Int(statement.int64(at: 2)))?.entity.name ?? destination.name
                        let order = statement.columnCount > 3 ? statement.int64(at: 3) : statement.int64(at: 1)
                        result[owner, default: []].append(
                            (order, namespaces.id(entityName: entityName, key: statement.int64(at: 1))))
                    }
                }
                return result.mapValues { $0.sorted { ($0.order, $0.id.key) < ($1.order, $1.id.key) }.map(\.id) }
            }
        }
    }

    /// Binds a to-one destination (its key, and its `Z_ENT` when the layout has an entity column).
    func bindForeignKeys(
        _ toOne: [ManagedObjectID?], layout: TableLayout, statement: SQLiteStatement, from start: Int32,
        permanentIDs: [ManagedObjectID: ManagedObjectID]
    ) throws -> Int32 {
        var index = start
        for key in layout.foreignKeys {
            let id = key.relationshipIndex < toOne.count ? toOne[key.relationshipIndex] : nil
            let resolved = id.map { permanentIDs[$0] ?? $0 }
            if let primaryKey = resolved?.primaryKey {
                try statement.bind(int64: primaryKey, at: index)
            } else {
                try statement.bind(null: index)
            }
            index += 1
            if key.entityColumn != nil {
                if let entityName = resolved?.entityName, let entity = model.entity(named: entityName), resolved?.primaryKey != nil {
                    try statement.bind(int64: Int64(model.entityNumber(of: entity)), at: index)
                } else {
                    try statement.bind(null: index)
                }
                index += 1
            }
        }
        return index
    }

    /// Writes the owning side's join-table changes, and removes the join rows of deleted objects.
    func applyJoinChanges(
        _ request: StoreSaveRequest, _ connection: SQLiteConnection, permanentIDs: [ManagedObjectID: ManagedObjectID]
    ) throws {
        for change in request.joinChanges {
            // Either side may write (inserts and deletes are idempotent), so a side that was never loaded in
            // the saving context is covered by the other side's change.
            guard let table = joinTable(of: change.entity, relationshipIndex: change.relationshipIndex),
                let own = (permanentIDs[change.objectID] ?? change.objectID).primaryKey
            else { continue }
            for id in change.removed {
                guard let other = (permanentIDs[id] ?? id).primaryKey else { continue }
                try connection.cachedStatement(
                    "DELETE FROM \(table.name) WHERE \(table.ownColumn) = ? AND \(table.otherColumn) = ?")
                    .run([.integer(own), .integer(other)])
            }
            for id in change.added {
                guard let other = (permanentIDs[id] ?? id).primaryKey else { continue }
                try connection.cachedStatement(
                    "INSERT OR IGNORE INTO \(table.name) (\(table.ownColumn), \(table.otherColumn)) VALUES (?, ?)")
                    .run([.integer(own), .integer(other)])
            }
        }
        // Ordered one-to-many: each destination row records its position in Z_FOK_<INVERSE>; ordered
        // many-to-many: each join row records it in the table's Z_FOK_ column for this side.
        for change in request.orderChanges {
            if let table = joinTable(of: change.entity, relationshipIndex: change.relationshipIndex),
                let column = table.orderColumn
            {
                guard let own = (permanentIDs[change.objectID] ?? change.objectID).primaryKey else { continue }
                for (position, id) in change.added.enumerated() {
                    guard let other = (permanentIDs[id] ?? id).primaryKey else { continue }
                    try connection.cachedStatement(
                        "UPDATE \(table.name) SET \(column) = ? WHERE \(table.ownColumn) = ? AND \(table.otherColumn) = ?")
                        .run([.integer(Int64(position + 1)), .integer(own), .integer(other)])
                }
                continue
            }
            let relationship = change.entity.relationships[change.relationshipIndex]
            guard let inverseName = relationship.inverseName,
                let destination = model.entity(named: relationship.destinationEntityName)
            else { continue }
            for (position, id) in change.added.enumerated() {
                let resolved = permanentIDs[id] ?? id
                guard let key = resolved.primaryKey,
                    let layout = try? layout(of: model.entity(named: resolved.entityName) ?? destination),
                    let column = layout.foreignKeys.first(where: {
                        layout.entity.relationships[$0.relationshipIndex].name == inverseName
                    })?.orderColumn
                else { continue }
                try connection.cachedStatement("UPDATE \(layout.tableName) SET \(column) = ? WHERE Z_PK = ?")
                    .run([.integer(Int64(position + 1)), .integer(key)])
            }
        }
        for delete in request.deletes {
            guard let key = delete.objectID.primaryKey else { continue }
            for index in delete.entity.relationships.indices {
                guard let table = joinTable(of: delete.entity, relationshipIndex: index) else { continue }
                try connection.cachedStatement("DELETE FROM \(table.name) WHERE \(table.ownColumn) = ?")
                    .run([.integer(key)])
            }
        }
    }
}
