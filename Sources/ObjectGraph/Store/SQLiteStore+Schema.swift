import Foundation
import SQLiteStorage

extension SQLiteStore {
    /// The framework version written in the store metadata (`NSPersistenceFrameworkVersion`).
    static let frameworkVersion = 1

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
            for entity in model.entities.sorted(by: { $0.name < $1.name }) {
                let layout = try layout(of: entity)
                try connection.execute(layout.createTableSQL)
                try connection.execute(
                    "CREATE INDEX \(layout.tableName)_Z_ENT_INDEX ON \(layout.tableName) (Z_ENT)")
                try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)")
                    .run([.integer(Int64(layout.entityNumber)), .text(entity.name)])
            }
            try connection.prepare("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
                .run([.text(uuid), .blob([UInt8](try metadataPlist()))])
        }
        return uuid
    }

    /// The metadata dictionary Core Data keeps in `Z_METADATA.Z_PLIST`, as a binary property list.
    ///
    /// Entity version hashes (`NSStoreModelVersionHashes`) are not written yet: they arrive with the model
    /// layer's version hashing, and an existing store is checked against the model's tables meanwhile.
    private func metadataPlist() throws -> Data {
        let metadata: [String: Any] = [
            "NSStoreType": "SQLite",
            "NSPersistenceFrameworkVersion": Self.frameworkVersion,
            "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionIdentifiers": [String](),
            "_NSAutoVacuumLevel": "2",
        ]
        return try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
    }

    /// Checks that every entity's table and columns exist, and reads the store UUID.
    private func verifySchema(_ connection: SQLiteConnection) throws -> String {
        guard case .text(let uuid)? = try connection.scalar("SELECT Z_UUID FROM Z_METADATA WHERE Z_VERSION = 1") else {
            throw ObjectGraphError.notAnObjectGraphStore(path: path, reason: "Z_METADATA has no store UUID")
        }
        for entity in model.entities {
            let layout = try layout(of: entity)
            guard try connection.tableExists(layout.tableName) else {
                throw ObjectGraphError.incompatibleStore(
                    path: path, reason: "entity \(entity.name) has no table \(layout.tableName)")
            }
            let present = Set(try connection.columnNames(ofTable: layout.tableName))
            for column in ["Z_PK", "Z_ENT", "Z_OPT"] + layout.columns.map(\.name) where !present.contains(column) {
                throw ObjectGraphError.incompatibleStore(
                    path: path, reason: "table \(layout.tableName) has no column \(column) for entity \(entity.name)")
            }
        }
        return uuid
    }
}
