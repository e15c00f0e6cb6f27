import Foundation
import SQLiteStorage

/// Lightweight migration of an SQLite store, in place: Core Data's automatic migration with an inferred
/// mapping model, for the changes it can infer.
///
/// The store's metadata holds the entity version hashes of the model that wrote it. The migrator looks for
/// that model among the versions of an `.xcdatamodeld` bundle (the last version whose hashes are the
/// store's), then walks the versions after it up to the destination model, one step per version, inferring
/// each step's mapping (`MigrationMapping`) and carrying it out in SQL (`MigrationExecutor`). Every step
/// runs in ONE SQLite transaction, with the new metadata: a crash or kill in the middle leaves the old store
/// as it was, and a change that cannot be inferred is found before anything is written, so a refused
/// migration leaves the file byte for byte as it was.
///
/// ```swift
/// let migrator = try LightweightMigrator(bundleURL: modelURL)
/// print(try migrator.plan(storeAt: storeURL))       // what would change
/// try migrator.migrate(storeAt: storeURL)            // change it
/// ```
///
/// Adding a store to a coordinator does this by itself (see ``PersistentStoreOptions/migratesAutomatically``).
public struct LightweightMigrator: Sendable {
    /// The model versions.
    public let bundle: ModelBundle
    /// The model the store is migrated to (usually the bundle's current version).
    public let destination: ManagedObjectModel

    /// A migrator to `destination` through the versions of `bundle`.
    /// The author recorded with the migration's history transaction, in a store that records history
    /// (`objectgraph migrate` records `objectgraph`).
    public var transactionAuthor: String?

    public init(bundle: ModelBundle, destination: ManagedObjectModel) {
        self.bundle = bundle
        self.destination = destination
    }

    /// A migrator to the current version of the bundle at `bundleURL`.
    ///
    /// - Throws: ``ModelLoadError`` when the bundle or its current version cannot be read.
    public init(bundleURL: URL) throws(ModelLoadError) {
        let bundle = try ModelBundle(contentsOf: bundleURL)
        self.init(bundle: bundle, destination: try bundle.currentModel())
    }

    /// The steps migrating the store at `url` would take, without writing anything.
    ///
    /// - Throws: ``ObjectGraphError/incompatibleModel(path:entities:reason:)`` when no version of the bundle
    ///   wrote the store, ``ObjectGraphError/migrationNotInferable(path:from:to:change:reason:)`` for a change
    ///   that cannot be inferred, and errors reading the file.
    public func plan(storeAt url: URL) throws(ObjectGraphError) -> MigrationPlan {
        let connection = try open(url, readOnly: true)
        defer { connection.close() }
        return try steps(connection, path: url.path).plan
    }

    /// Migrates the store at `url` in place, in one transaction, and returns what it did.
    ///
    /// - Throws: the errors of ``plan(storeAt:)`` (the file is then untouched), or an SQLite error (the
    ///   transaction is rolled back, so the store is as it was).
    @discardableResult
    public func migrate(storeAt url: URL) throws(ObjectGraphError) -> MigrationPlan {
        // Infer everything on a read-only connection first: a refusal never opens the file for writing.
        let plan = try self.plan(storeAt: url)
        guard !plan.isEmpty else { return plan }
        let connection = try open(url, readOnly: false)
        defer { connection.close() }
        do {
            return try connection.transaction(.immediate) { () throws -> MigrationPlan in
                // Read again under the write lock: another process may have migrated the store meanwhile.
                let (plan, mappings, metadata) = try steps(connection, path: url.path)
                guard let last = mappings.last else { return plan }
                // Text search indexes go first (their triggers would follow renamed tables) and are built
                // again from the migrated rows, in this transaction; another framework's store gets none.
                try TextSearchIndex.dropAll(connection)
                if metadata.writer == .objectGraph { try DerivedAttributeTriggers.dropAll(connection) }
                // (Each step an equal part of the progress someone follows, if anyone does.)
                // (The text indexes are built again over every row after the steps: the longest part of a
                // migration of a store that has them, weighed so.)
                let textIndexes = metadata.writer == .objectGraph
                    ? TextSearchIndex.expected(model: last.destination, layouts: TableLayout.layouts(for: last.destination))
                    : []
                let parts = StoreOpeningProgress.split(mappings.map { _ in 1 } + [1, textIndexes.isEmpty ? 0 : 4])
                for (mapping, step) in zip(mappings, parts) {
                    var executor = MigrationExecutor(mapping: mapping, connection: connection)
                    try StoreOpeningProgress.run(step) { () throws(SQLiteError) in try executor.run() }
                }
                try StoreOpeningProgress.run(parts[mappings.count]) { () throws in
                    try reconcileIndexes(connection, model: last.destination, plan: plan)
                }
                if metadata.writer == .objectGraph {
                    try StoreOpeningProgress.run(parts[mappings.count + 1]) { () throws(SQLiteError) in
                        _ = try TextSearchIndex.reconcile(connection, expected: textIndexes)
                    }
                }
                var updated = metadata
                updated.entityVersionHashes = destination.entityVersionHashes
                updated.versionIdentifiers = destination.versionIdentifiers.sorted()
                updated.modelVersionName = destination.versionName
                try connection.prepare("UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1")
                    .run([.blob([UInt8](try updated.propertyList()))])
                // A store that records history records the migration as a transaction of its own (no object
                // changes: other processes notice it by the new metadata), with the migrating program's author.
                if try SQLiteHistoryTables.exist(connection) {
                    _ = try SQLiteHistoryTables.recordTransaction(author: transactionAuthor, contextName: "migration",
                        connection)
                }
                return plan
            }
        } catch let error as ObjectGraphError {
            throw error
        } catch let error as SQLiteError {
            throw .sqlite(error)
        } catch {
            throw .sqlite(SQLiteError(code: SQLiteError.genericError, message: "\(error)", path: url.path))
        }
    }

    /// Creates the destination's indexes (and drops the old ones); a uniqueness constraint that existing rows
    /// break is reported as a change that cannot be made.
    private func reconcileIndexes(_ connection: SQLiteConnection, model: ManagedObjectModel, plan: MigrationPlan) throws {
        let expected = StoreIndexes.expected(model: model, layouts: TableLayout.layouts(for: model),
            joinTables: JoinTable.tables(for: model))
        let (drop, create) = try StoreIndexes.differences(connection, expected: expected)
        for name in drop { try connection.execute("DROP INDEX \(SQLiteConnection.quoteIdentifier(name))") }
        for index in create {
            do throws(SQLiteError) {
                try connection.execute(index.sql)
            } catch {
                guard error.code & 0xFF == SQLiteError.constraint else { throw error }
                throw ObjectGraphError.migrationNotInferable(path: plan.storePath, from: plan.sourceVersion,
                    to: plan.destinationVersion, change: "unique index \(index.name) added",
                    reason: "existing rows repeat its values")
            }
        }
    }

    /// Opens the store file (which must exist).
    private func open(_ url: URL, readOnly: Bool) throws(ObjectGraphError) -> SQLiteConnection {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw .notAnObjectGraphStore(path: url.path, reason: "it does not exist")
        }
        do {
            let connection = try SQLiteConnection(path: url.path, mode: readOnly ? .readOnly : .readWrite)
            connection.setBusyTimeout(milliseconds: 10_000)
            if !readOnly {
                try connection.execute("PRAGMA synchronous = FULL")
                // The text search indexes' triggers fold text with the store's own function.
                try PredicateSQLFunctions.register(on: connection)
            }
            return connection
        } catch {
            throw error.code == SQLiteError.notADatabase
                ? .notAnObjectGraphStore(path: url.path, reason: "the file is not an SQLite database") : .sqlite(error)
        }
    }

    /// Finds the store's version and infers every step to the destination.
    private func steps(_ connection: SQLiteConnection, path: String) throws(ObjectGraphError)
        -> (plan: MigrationPlan, mappings: [MigrationMapping], metadata: StoreMetadata)
    {
        let metadata = try SQLiteStore.readMetadata(connection, path: path)
        let numbers: [String: Int]
        do {
            numbers = try SQLiteStore.storedEntityNumbers(connection) ?? [:]
        } catch {
            throw .sqlite(error)
        }
        let (plan, mappings) = try inferredChain(storeHashes: metadata.entityVersionHashes, entityNumbers: numbers,
            path: path, schemaDescribed: metadata.writer != .objectGraph
        ) { versions in
            var found = versions.lastIndex(where: { $0.entityVersionHashes == metadata.entityVersionHashes })
            if found == nil, metadata.writer != .objectGraph {
                // A store Core Data wrote, with hashes no source version reproduces: its version is the last one
                // whose schema it has.
                found = versions.lastIndex { version in
                    guard let compatibility = try? SQLiteStore.compatibility(connection, metadata: metadata, model: version)
                    else { return false }
                    if case .incompatible = compatibility { return false }
                    return true
                }
            }
            return found
        }
        return (plan, mappings, metadata)
    }

    /// Finds the store's version (`findSource` picks it among the bundle's versions) and infers every step from it
    /// to the destination, numbering entities as the store does (`entityNumbers`). Shared by every store type
    /// that migrates in place.
    func inferredChain(
        storeHashes: [String: Data], entityNumbers numbers: [String: Int], path: String, schemaDescribed: Bool,
        findSource: ([ManagedObjectModel]) -> Int?
    ) throws(ObjectGraphError) -> (plan: MigrationPlan, mappings: [MigrationMapping]) {
        let destinationName = destination.versionName ?? bundle.currentVersionName
        guard storeHashes != destination.entityVersionHashes else {
            let plan = MigrationPlan(storePath: path, sourceVersion: destinationName,
                destinationVersion: destinationName, steps: [])
            return (plan, [])
        }
        var versions: [ManagedObjectModel] = []
        for name in bundle.versionNames {
            do throws(ModelLoadError) {
                versions.append(try bundle.model(named: name))
            } catch {
                throw .incompatibleModel(path: path, entities: Self.differing(storeHashes, destination),
                    reason: "version \(name) of \(bundle.url.lastPathComponent) cannot be loaded (\(error))")
            }
        }
        guard let sourceIndex = findSource(versions) else {
            throw .incompatibleModel(path: path, entities: Self.differing(storeHashes, destination),
                reason: "no version of \(bundle.url.lastPathComponent) (\(bundle.versionNames.joined(separator: ", "))) "
                    + (schemaDescribed ? "has the store's entity version hashes or its schema"
                        : "has the store's entity version hashes") + ", so the store's model is unknown")
        }
        let sourceName = versions[sourceIndex].versionName ?? bundle.versionNames[sourceIndex]
        var chain: [ManagedObjectModel]
        if let targetIndex = versions.lastIndex(where: { $0.entityVersionHashes == destination.entityVersionHashes }) {
            guard targetIndex > sourceIndex else {
                throw .migrationNotInferable(path: path, from: sourceName, to: destinationName,
                    change: "the store is at a later model version than the destination",
                    reason: "migrating to an earlier version is not supported")
            }
            chain = Array(versions[sourceIndex..<targetIndex]) + [destination]
        } else {
            chain = [versions[sourceIndex], destination]
        }
        let known = numbers.filter { chain[0].entity(named: $0.key) != nil }
        var current = ManagedObjectModel(copying: chain[0], bundleURL: chain[0].bundleURL, entityNumbers: known)
        var mappings: [MigrationMapping] = []
        var steps: [MigrationStep] = []
        for next in chain.dropFirst() {
            let from = current.versionName ?? sourceName
            let to = next.versionName ?? destinationName
            let mapping = try MigrationMapping(from: current, to: next, path: path, sourceName: from, destinationName: to)
            mappings.append(mapping)
            steps.append(MigrationStep(sourceVersion: from, destinationVersion: to, changes: mapping.changes))
            current = mapping.destination
        }
        let plan = MigrationPlan(storePath: path, sourceVersion: sourceName, destinationVersion: destinationName,
            steps: steps)
        return (plan, mappings)
    }

    /// The entities whose hashes differ between a store and a model, sorted.
    @_spi(StoreImplementation)
    public static func differing(_ hashes: [String: Data], _ model: ManagedObjectModel) -> [String] {
        let expected = model.entityVersionHashes
        return Set(expected.keys).union(hashes.keys).filter { expected[$0] != hashes[$0] }.sorted()
    }
}
