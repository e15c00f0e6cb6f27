import Foundation
import SQLiteStorage

extension SQLiteStore {
    /// The framework version written in the store metadata (`NSPersistenceFrameworkVersion`).
    static let frameworkVersion = StoreMetadata.objectGraphFrameworkVersion

    /// Creates Core Data's tables in a new (empty) file, or checks an existing store against the model.
    ///
    /// - Returns: the store's UUID (`Z_METADATA.Z_UUID`).
    func prepareSchema(_ connection: SQLiteConnection) throws(ObjectGraphError) -> String {
        try sqlite {
            if try connection.tableExists("Z_METADATA") {
                return try verifySchema(connection)
            }
            let userTables = try connection.scalar(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            if case .integer(let count)? = userTables, count > 0 {
                throw ObjectGraphError.notAnObjectGraphStore(
                    path: path, reason: "it has \(count) table(s) but no Z_METADATA table")
            }
            if isReadOnly {
                throw ObjectGraphError.notAnObjectGraphStore(
                    path: path, reason: "it has no Z_METADATA table, and a read-only store is never created")
            }
            return try createSchema(connection)
        }
    }

    private func createSchema(_ connection: SQLiteConnection) throws -> String {
        let uuid = UUID().uuidString
        // auto_vacuum must be chosen before the first table exists; Core Data uses incremental (2).
        try connection.execute("PRAGMA auto_vacuum = 2")
        try connection.transaction(.immediate) {
            try connection.execute(
                "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
            try connection.execute("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
            try connection.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
            for entity in model.entities.sorted(by: { model.entityNumber(of: $0) < model.entityNumber(of: $1) }) {
                let layout = try layout(of: entity)
                if entity.parentEntityName == nil { try connection.execute(layout.createTableSQL) }
                let parentNumber = entity.parentEntityName.flatMap(model.entity(named:)).map(model.entityNumber(of:)) ?? 0
                try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
                    .run([.integer(Int64(layout.entityNumber)), .text(entity.name), .integer(Int64(parentNumber))])
            }
            for table in joinTables.values.filter(\.isOwner).sorted(by: { $0.name < $1.name }) {
                try connection.execute(table.createTableSQL)
            }
            for index in StoreIndexes.expected(model: model, layouts: layouts, joinTables: joinTables) {
                try connection.execute(index.sql)
            }
            try DerivedAttributeTriggers(model: model, layouts: layouts).reconcile(connection)
            try TextSearchIndex.reconcile(connection, expected: TextSearchIndex.expected(model: model, layouts: layouts))
            try connection.prepare("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
                .run([.text(uuid), .blob([UInt8](try StoreMetadata(storeType: "SQLite", storeUUID: uuid,
                    entityVersionHashes: model.entityVersionHashes,
                    versionIdentifiers: model.versionIdentifiers.sorted(),
                    frameworkVersion: Self.frameworkVersion, modelVersionName: model.versionName).propertyList()))])
        }
        return uuid
    }

    /// Checks that every entity's table and columns exist, and reads the store UUID.
    private func verifySchema(_ connection: SQLiteConnection) throws -> String {
        guard case .text(let uuid)? = try connection.scalar("SELECT Z_UUID FROM Z_METADATA WHERE Z_VERSION = 1") else {
            throw ObjectGraphError.notAnObjectGraphStore(path: path, reason: "Z_METADATA has no store UUID")
        }
        if case .blob(let bytes)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1"),
            let metadata = StoreMetadata(propertyList: Data(bytes), storeUUID: uuid),
            !metadata.entityVersionHashes.isEmpty
        {
            self.metadata = metadata
            if isForeignStore {
                // Another framework's store: its hashes may be ones we cannot compute, so its structure decides,
                // and nothing in it (indexes included) is changed.
                compatibility = try SQLiteStore.compatibility(connection, metadata: metadata, model: model)
                if case .incompatible(let reason) = compatibility {
                    throw ObjectGraphError.incompatibleStore(path: path, reason: "it was \(metadata.writer), "
                        + "whose entity version hashes are not the model's, and its schema differs: \(reason)")
                }
                return uuid
            }
            let expected = model.entityVersionHashes
            let changed = Set(expected.keys).union(metadata.entityVersionHashes.keys)
                .filter { expected[$0] != metadata.entityVersionHashes[$0] }.sorted()
            if !changed.isEmpty {
                throw ObjectGraphError.incompatibleModel(path: path, entities: changed,
                    reason: "the model changed since the store was written, and the store was not migrated")
            }
            // Indexes are not part of the version hashes: a model version that only adds or removes a fetch
            // index or uniqueness constraint is applied here, in one transaction.
            if !isReadOnly {
                let expected = StoreIndexes.expected(model: model, layouts: layouts, joinTables: joinTables)
                let differences = try StoreIndexes.differences(connection, expected: expected)
                if !differences.drop.isEmpty || !differences.create.isEmpty {
                    _ = try connection.transaction(.immediate) {
                        try StoreIndexes.reconcile(connection, expected: expected)
                    }
                }
                // Derived attributes' triggers follow the model too (a migration rebuilds tables without them).
                let derived = DerivedAttributeTriggers(model: model, layouts: layouts)
                if try derived.needsReconciling(connection) {
                    try connection.transaction(.immediate) { try derived.reconcile(connection) }
                }
                // So is the text search index: built when the model first asks for it, dropped when it no longer does.
                let textIndexes = TextSearchIndex.expected(model: model, layouts: layouts)
                if try TextSearchIndex.available(connection, expected: textIndexes).count != textIndexes.count
                    || TextSearchIndex.hasOthers(connection, than: textIndexes)
                {
                    _ = try connection.transaction(.immediate) {
                        try TextSearchIndex.reconcile(connection, expected: textIndexes)
                    }
                }
            }
            return uuid
        }
        if isForeignStore {
            compatibility = try SQLiteStore.compatibility(connection,
                metadata: metadata ?? StoreMetadata(storeType: "SQLite", storeUUID: uuid, entityVersionHashes: [:],
                    frameworkVersion: 0), model: model)
            if case .incompatible(let reason) = compatibility {
                throw ObjectGraphError.incompatibleStore(path: path, reason: reason)
            }
            return uuid
        }
        // Stores written before version hashes: check the tables instead.
        for table in joinTables.values where table.isOwner {
            guard try connection.tableExists(table.name) else {
                throw ObjectGraphError.incompatibleStore(path: path, reason: "it has no join table \(table.name)")
            }
        }
        for entity in model.entities {
            let layout = try layout(of: entity)
            guard try connection.tableExists(layout.tableName) else {
                throw ObjectGraphError.incompatibleStore(
                    path: path, reason: "entity \(entity.name) has no table \(layout.tableName)")
            }
            let present = Set(try connection.columnNames(ofTable: layout.tableName))
            for column in ["Z_PK", "Z_ENT", "Z_OPT"] + layout.tableColumns.map(\.name) where !present.contains(column) {
                throw ObjectGraphError.incompatibleStore(
                    path: path, reason: "table \(layout.tableName) has no column \(column) for entity \(entity.name)")
            }
        }
        return uuid
    }
}
