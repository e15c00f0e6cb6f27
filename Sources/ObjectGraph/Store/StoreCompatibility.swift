import Foundation
import SQLiteStorage

/// How a store was found to fit a model (or why it does not), as adding it decides.
///
/// A store ObjectGraph wrote fits when its metadata holds the model's entity version hashes. A store Core Data
/// wrote carries Apple's hashes, whose recipe is not public, so ObjectGraph cannot compute them from a model:
/// such a store fits when its tables are the model's, structurally (see `StoreStructure`).
public enum StoreCompatibility: Sendable, Hashable, CustomStringConvertible {
    /// The metadata's entity version hashes are the model's.
    case matchingVersionHashes
    /// The hashes are another framework's, and the schema is the model's: entities and their superentities in
    /// `Z_PRIMARYKEY`, tables, columns and their types, join tables, ordering columns.
    case matchingStructure
    /// The store does not fit the model; `reason` names the first entity, table or column that differs.
    case incompatible(reason: String)

    /// Whether the store can be used with the model as it is.
    public var isCompatible: Bool {
        if case .incompatible = self { return false }
        return true
    }

    /// One line for people: how compatibility was decided.
    public var description: String {
        switch self {
        case .matchingVersionHashes: "yes (the entity version hashes are the model's)"
        case .matchingStructure:
            "yes (by structure: the hashes are Core Data's, and the tables and columns are the model's)"
        case .incompatible(let reason): "no (\(reason))"
        }
    }
}

extension PersistentStoreCoordinator {
    /// Decides whether the SQLite store at `url` fits `model`, reading the file without changing it.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when the file is not a store, and
    ///   ``ObjectGraphError/sqlite(_:)`` when it cannot be read.
    public static func compatibility(ofStoreAt url: URL, with model: ManagedObjectModel) throws(ObjectGraphError)
        -> StoreCompatibility
    {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        } catch {
            throw error.code == SQLiteError.notADatabase
                ? .notAnObjectGraphStore(path: url.path, reason: "the file is not an SQLite database") : .sqlite(error)
        }
        defer { connection.close() }
        let metadata = try SQLiteStore.readMetadata(connection, path: url.path)
        do {
            return try SQLiteStore.compatibility(connection, metadata: metadata, model: model)
        } catch {
            throw .sqlite(error)
        }
    }
}

extension SQLiteStore {
    /// `model` with the entity numbers the file's `Z_PRIMARYKEY` gives its entities, when they differ from the
    /// model's own (a migrated store, or one another framework numbered).
    static func numberedAsStored(_ model: ManagedObjectModel, _ connection: SQLiteConnection) throws(SQLiteError)
        -> ManagedObjectModel
    {
        let stored = try storedEntityNumbers(connection)?.filter { model.entity(named: $0.key) != nil }
        return stored.flatMap { numbers in
            numbers.allSatisfy { model.entityNumbersByName[$0.key] == $0.value } ? nil
                : ManagedObjectModel(copying: model, bundleURL: model.bundleURL, entityNumbers: numbers)
        } ?? model
    }

    /// How the store open on `connection`, whose metadata is `metadata`, fits `model`: by version hashes, or —
    /// for a store ObjectGraph did not write — by structure.
    static func compatibility(_ connection: SQLiteConnection, metadata: StoreMetadata, model: ManagedObjectModel)
        throws(SQLiteError) -> StoreCompatibility
    {
        let hashes = model.entityVersionHashes
        let changed = Set(hashes.keys).union(metadata.entityVersionHashes.keys)
            .filter { hashes[$0] != metadata.entityVersionHashes[$0] }.sorted()
        if !metadata.entityVersionHashes.isEmpty && changed.isEmpty { return .matchingVersionHashes }
        if metadata.writer == .objectGraph && !metadata.entityVersionHashes.isEmpty {
            return .incompatible(reason: "the entity version hashes differ for \(changed.joined(separator: ", "))")
        }
        let numbered = try numberedAsStored(model, connection)
        let difference = try StoreStructure.firstDifference(connection, model: numbered,
            layouts: TableLayout.layouts(for: numbered), joinTables: JoinTable.tables(for: numbered))
        return difference.map { .incompatible(reason: $0) } ?? .matchingStructure
    }
}
