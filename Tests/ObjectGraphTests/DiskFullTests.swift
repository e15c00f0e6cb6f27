import Foundation
@testable import ObjectGraph
import SQLiteStorage
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Disk full (issue 7): a save that does not fit fails with `ObjectGraphError.sqlite` (SQLITE_FULL), leaves the
/// store exactly as it was, leaves the context with every insert, update and delete it had, and succeeds unchanged
/// once there is room. The limit is SQLite's `max_page_count` (set through the store's pragma option; runs
/// everywhere) and, where mounting is allowed (root), a real, small tmpfs filled to the last byte.
@Suite("Disk full")
struct DiskFullTests {
    @Test("max_page_count: the save fails with SQLITE_FULL, nothing is lost, and it succeeds once raised")
    func maxPageCount() throws {
        let directory = TemporaryDirectory(prefix: "objectgraph-diskfull")
        let storeURL = directory.file("records.sqlite")
        // The baseline, written without a limit; the limit is then a few pages above what the file needs.
        try PendingSaveFixture.createBaseline(at: storeURL, count: 40)
        let pageCount = try PendingSaveFixture.pageCount(of: storeURL.path)
        let limit = pageCount + 3
        let fixture = try PendingSaveFixture(storeURL: storeURL,
            options: PersistentStoreOptions(sqlitePragmas: ["max_page_count": "\(limit)"]))
        #expect(try fixture.writerPragma("max_page_count") == .integer(Int64(limit)), "the option reached the writer")

        fixture.makePendingChanges(inserts: 500, updates: 6, deletes: 6, payloadBytes: 300)
        let storeBefore = try fixture.storeContents()
        let contextBefore = fixture.contextSnapshot()

        // Twice: a failed save can be attempted again, and fails again the same way while there is no room.
        for attempt in 1...2 {
            let error = try #require(fixture.save(), "attempt \(attempt) should not fit in \(limit) pages")
            try fixture.expectFailedSaveLeftEverythingAlone(error, expectedCode: SQLiteError.full,
                storeBefore: storeBefore, contextBefore: contextBefore)
        }

        // Room is made: the same save, untouched, now succeeds.
        try fixture.setWriterPragma("max_page_count", to: "1073741823")
        #expect(fixture.save() == nil)
        try fixture.expectSavedEverything()
        try fixture.expectReopenedStoreHoldsEverything()
    }

    @Test("A full tmpfs: the save fails with SQLITE_FULL, nothing is lost, and it succeeds after space is freed",
        .enabled("needs root (mount -t tmpfs); skipped where mounting is refused") { TmpfsMount.isAvailable })
    func fullTmpfs() throws {
        let mount = try TmpfsMount(sizeBytes: 2 << 20)
        defer { mount.unmount() }
        // Everything that holds the store open is gone when this returns, so the tmpfs can be unmounted.
        try Self.fillAndRetry(on: mount.directory)
    }

    private static func fillAndRetry(on directory: URL) throws {
        let storeURL = directory.appendingPathComponent("records.sqlite")
        let fixture = try PendingSaveFixture(storeURL: storeURL, baseline: 40)
        fixture.makePendingChanges(inserts: 600, updates: 6, deletes: 6, payloadBytes: 300)
        let storeBefore = try fixture.storeContents()
        let contextBefore = fixture.contextSnapshot()

        let filler = directory.appendingPathComponent("filler")
        let filled = try fillFileSystem(with: filler)
        print("DiskFullTests: tmpfs filled with \(filled) bytes of filler")
        #expect(filled > 0)

        let error = try #require(fixture.save(), "the save should not fit on a full file system")
        try fixture.expectFailedSaveLeftEverythingAlone(error, expectedCode: SQLiteError.full,
            storeBefore: storeBefore, contextBefore: contextBefore)

        try FileManager.default.removeItem(at: filler)
        #expect(fixture.save() == nil)
        try fixture.expectSavedEverything()
        try fixture.expectReopenedStoreHoldsEverything()
        fixture.close()
    }

    /// Appends to `url` until the file system refuses (ENOSPC); returns the bytes written.
    private static func fillFileSystem(with url: URL) throws -> Int {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw PendingSaveFixture.Failure("cannot create \(url.path): errno \(errno)") }
        defer { close(descriptor) }
        var total = 0
        let chunk = [UInt8](repeating: 0x5A, count: 65_536)
        var size = chunk.count
        // Smaller and smaller pieces once a write is refused, until not one byte fits.
        while size >= 1 {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, size) }
            if written > 0 {
                total += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                size /= 2
            }
        }
        return total
    }
}

// MARK: - A small tmpfs

/// A tmpfs mounted on a fresh temporary folder (root only), unmounted by ``unmount()``.
final class TmpfsMount {
    /// Where the file system is mounted.
    let directory: URL
    private let folder: TemporaryDirectory
    private var mounted = true

    /// Whether this process may mount a tmpfs (tried once with a tiny one); logs the reason when not.
    static let isAvailable: Bool = {
        guard geteuid() == 0 else {
            print("DiskFullTests: not root, skipping the tmpfs test")
            return false
        }
        do {
            let probe = try TmpfsMount(sizeBytes: 64 << 10)
            probe.unmount()
            return true
        } catch {
            print("DiskFullTests: cannot mount a tmpfs (\(error)), skipping the tmpfs test")
            return false
        }
    }()

    /// Mounts a tmpfs of `sizeBytes` bytes.
    ///
    /// - Throws: ``PendingSaveFixture/Failure`` when `mount` is missing or fails.
    init(sizeBytes: Int) throws {
        folder = TemporaryDirectory(prefix: "objectgraph-tmpfs")
        directory = folder.url.appendingPathComponent("mnt")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let mountCommand = ChildProcess.executablePath(named: "mount") ?? ["/usr/bin/mount", "/bin/mount"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw PendingSaveFixture.Failure("no mount command") }
        let result = try ChildProcess.run(mountCommand, ["-t", "tmpfs", "-o", "size=\(sizeBytes)", "tmpfs", directory.path])
        guard result.status == 0 else {
            mounted = false
            throw PendingSaveFixture.Failure("mount failed (\(result.statusDescription)): \(result.standardError)")
        }
    }

    /// Unmounts (lazily if something still holds a file open there).
    func unmount() {
        guard mounted else { return }
        mounted = false
        let command = ChildProcess.executablePath(named: "umount") ?? "/bin/umount"
        if let result = try? ChildProcess.run(command, [directory.path]), result.status == 0 { return }
        _ = try? ChildProcess.run(command, ["-l", directory.path])
    }

    deinit { unmount() }
}

// MARK: - A context with a save to make, and the checks around a failed save

/// A store holding a baseline of `Record`s, and a private-queue context with unsaved inserts, updates and
/// deletes of them; shared by the disk-full and I/O-fault tests.
final class PendingSaveFixture: @unchecked Sendable {
    /// A setup step that failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Everything a context says about its unsaved changes, for before/after comparisons.
    struct ContextSnapshot: Equatable {
        /// Inserted objects by (temporary) ID, with all their values.
        var inserted: [ManagedObjectID: [String: AttributeValue]] = [:]
        /// Updated objects by ID, with their changed values.
        var updated: [ManagedObjectID: [String: AttributeValue]] = [:]
        var deleted: Set<ManagedObjectID> = []
        var hasChanges = false
        var insertedIDsAreTemporary = true
    }

    /// The `Record` rows and the key generator, as plain SQL sees them.
    struct StoreContents: Equatable {
        var rows: [[SQLiteValue]]
        var primaryKeys: [[SQLiteValue]]
        /// `name` → `value` of every row.
        var values: [String: Int64] {
            var result: [String: Int64] = [:]
            for row in rows where row.count >= 5 {
                if case .text(let name) = row[3], case .integer(let value) = row[4] { result[name] = value }
            }
            return result
        }
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Record", attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "value", type: .integer64, defaultValue: 0),
                AttributeDescription(name: "payload", type: .string),
            ])
        ])
    }

    let storeURL: URL
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext
    /// What the store must hold (`name` → `value`) once the pending changes are saved.
    private(set) var expectedAfterSave: [String: Int64] = [:]

    /// Opens (creating) the store at `storeURL` with `options`; with `baseline` > 0, first saves that many
    /// records (`base-0`… with value 0…).
    init(storeURL: URL, options: PersistentStoreOptions = PersistentStoreOptions(), baseline: Int = 0) throws {
        self.storeURL = storeURL
        coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: storeURL, options: options)
        context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.name = "pending-save"
        if baseline > 0 { try Self.insertBaseline(count: baseline, into: context) }
        expectedAfterSave = try storeContents().values
    }

    /// Creates the store at `url` with `count` baseline records and lets go of it.
    static func createBaseline(at url: URL, count: Int) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        let store = try coordinator.addPersistentStore(ofType: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try insertBaseline(count: count, into: context)
        try coordinator.remove(store)
    }

    private static func insertBaseline(count: Int, into context: ManagedObjectContext) throws {
        try context.performAndWait {
            for index in 0..<count {
                let record = try context.insertNewObject(forEntityName: "Record")
                record["name"] = "base-\(index)"
                record["value"] = Int64(index)
                record["payload"] = "baseline \(index)"
            }
            try context.save()
            context.reset()
        }
    }

    /// The number of pages in the database file at `path` (its WAL checkpointed first).
    static func pageCount(of path: String) throws -> Int {
        let connection = try SQLiteConnection(path: path)
        defer { connection.close() }
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        guard case .integer(let count) = try connection.pragma("page_count") else { throw Failure("no page_count") }
        return Int(count)
    }

    /// The SQLite store behind the coordinator.
    var backend: SQLiteStore {
        get throws {
            guard let store = coordinator.persistentStores.first?.backend as? SQLiteStore else {
                throw Failure("the coordinator has no SQLite store")
            }
            return store
        }
    }

    /// The value of pragma `name` on the store's writer connection.
    func writerPragma(_ name: String) throws -> SQLiteValue {
        try backend.withWriter { connection throws(ObjectGraphError) in
            do throws(SQLiteError) { return try connection.pragma(name) } catch { throw .sqlite(error) }
        }
    }

    /// Sets pragma `name` on the store's writer connection (how a test makes room under `max_page_count`).
    func setWriterPragma(_ name: String, to value: String) throws {
        try backend.withWriter { connection throws(ObjectGraphError) in
            do throws(SQLiteError) { _ = try connection.scalar("PRAGMA \(name) = \(value)") } catch { throw .sqlite(error) }
        }
    }

    /// Whether the writer connection has a transaction open (it never should between saves).
    func writerIsInTransaction() throws -> Bool {
        try backend.withWriter { connection throws(ObjectGraphError) in connection.isInTransaction }
    }

    /// Makes unsaved changes: `inserts` new records (`new-0`… with `payloadBytes`-long payloads), and updates
    /// and deletes of distinct baseline records.
    func makePendingChanges(inserts: Int, updates: Int, deletes: Int, payloadBytes: Int) {
        context.performAndWait {
            let existing = (try? context.fetch(FetchRequest<ManagedObject>(entityName: "Record",
                sortCriteria: [SortCriterion("value")]))) ?? []
            for (offset, record) in existing.prefix(updates).enumerated() {
                let value = Int64(10_000 + offset)
                record["value"] = value
                if let name: String = record["name"] { expectedAfterSave[name] = value }
            }
            for record in existing.dropFirst(updates).prefix(deletes) {
                if let name: String = record["name"] { expectedAfterSave[name] = nil }
                context.delete(record)
            }
            for index in 0..<inserts {
                guard let record = try? context.insertNewObject(forEntityName: "Record") else { continue }
                let name = "new-\(index)"
                record["name"] = name
                record["value"] = Int64(index)
                record["payload"] = String(repeating: String(UnicodeScalar(UInt8(97 + index % 26))), count: payloadBytes)
                expectedAfterSave[name] = Int64(index)
            }
        }
    }

    /// The context's unsaved changes, as values.
    func contextSnapshot() -> ContextSnapshot {
        context.performAndWait {
            var snapshot = ContextSnapshot()
            for object in context.insertedObjects {
                var values: [String: AttributeValue] = [:]
                for attribute in object.entity.attributes { values[attribute.name] = object.value(forKey: attribute.name) }
                snapshot.inserted[object.objectID] = values
                if !object.objectID.isTemporaryID { snapshot.insertedIDsAreTemporary = false }
            }
            for object in context.updatedObjects { snapshot.updated[object.objectID] = object.changedValues() }
            snapshot.deleted = Set(context.deletedObjects.map(\.objectID))
            snapshot.hasChanges = context.hasChanges
            return snapshot
        }
    }

    /// Saves; returns the error, or nil when the save succeeded.
    func save() -> ObjectGraphError? {
        context.performAndWait {
            do throws(ObjectGraphError) {
                try context.save()
                return nil
            } catch {
                return error
            }
        }
    }

    /// The store's rows and key generator, read with a connection of its own (outside the coordinator).
    func storeContents() throws -> StoreContents {
        let connection = try SQLiteConnection(path: storeURL.path, mode: .readOnly)
        defer { connection.close() }
        return try connection.transaction(.deferred) {
            StoreContents(
                rows: try connection.rows("SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZVALUE, ZPAYLOAD FROM ZRECORD ORDER BY Z_PK"),
                primaryKeys: try connection.rows("SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT"))
        }
    }

    /// `PRAGMA integrity_check`'s rows, read with a connection of its own.
    func integrityCheck() throws -> [[SQLiteValue]] {
        let connection = try SQLiteConnection(path: storeURL.path, mode: .readOnly)
        defer { connection.close() }
        return try connection.rows("PRAGMA integrity_check")
    }

    /// What a fresh context on the same coordinator fetches (`name` → `value`): the coordinator's row cache
    /// must not have taken anything from a failed save.
    func freshContextValues() throws -> [String: Int64] {
        let fresh = ManagedObjectContext(concurrencyType: .privateQueue)
        fresh.persistentStoreCoordinator = coordinator
        return try fresh.performAndWait {
            var result: [String: Int64] = [:]
            for record in try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Record")) {
                if let name: String = record["name"], let value: Int64 = record["value"] { result[name] = value }
            }
            return result
        }
    }

    /// The checks after a failed save: a typed SQLite error with `expectedCode` (primary code; nil accepts any
    /// SQLite error), the store's rows, key generator and integrity as before, no transaction left open, the
    /// coordinator serving the old values, and the context holding exactly the changes it had.
    func expectFailedSaveLeftEverythingAlone(
        _ error: ObjectGraphError, expectedCode: Int32?, storeBefore: StoreContents, contextBefore: ContextSnapshot,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard case .sqlite(let failure) = error else {
            Issue.record("the save failed with \(error), not an SQLite error", sourceLocation: sourceLocation)
            return
        }
        if let expectedCode {
            #expect(failure.code == expectedCode, "\(failure)", sourceLocation: sourceLocation)
        }
        #expect(try storeContents() == storeBefore, "the store changed", sourceLocation: sourceLocation)
        #expect(try integrityCheck() == [[.text("ok")]], sourceLocation: sourceLocation)
        #expect(try writerIsInTransaction() == false, "a transaction was left open", sourceLocation: sourceLocation)
        #expect(try freshContextValues() == storeBefore.values, "the coordinator serves values that were never saved",
            sourceLocation: sourceLocation)
        let after = contextSnapshot()
        #expect(after.inserted.count == contextBefore.inserted.count, sourceLocation: sourceLocation)
        #expect(after.updated.count == contextBefore.updated.count, sourceLocation: sourceLocation)
        #expect(after.deleted.count == contextBefore.deleted.count, sourceLocation: sourceLocation)
        #expect(after == contextBefore, "the context lost or changed unsaved changes", sourceLocation: sourceLocation)
    }

    /// The checks after a successful save: the store holds exactly what the changes say, intact, and the context
    /// has nothing left to save.
    func expectSavedEverything(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let contents = try storeContents()
        #expect(contents.values == expectedAfterSave, "the store does not hold the saved changes",
            sourceLocation: sourceLocation)
        #expect(contents.rows.count == expectedAfterSave.count, sourceLocation: sourceLocation)
        #expect(try integrityCheck() == [[.text("ok")]], sourceLocation: sourceLocation)
        #expect(try writerIsInTransaction() == false, sourceLocation: sourceLocation)
        let after = contextSnapshot()
        #expect(!after.hasChanges && after.inserted.isEmpty && after.updated.isEmpty && after.deleted.isEmpty,
            sourceLocation: sourceLocation)
        #expect(try freshContextValues() == expectedAfterSave, sourceLocation: sourceLocation)
    }

    /// Opens the file again with a new coordinator and checks it holds the saved changes.
    func expectReopenedStoreHoldsEverything(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reopened = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        let store = try reopened.addPersistentStore(ofType: .sqlite, at: storeURL)
        defer { try? reopened.remove(store) }
        let fresh = ManagedObjectContext(concurrencyType: .privateQueue)
        fresh.persistentStoreCoordinator = reopened
        let values = try fresh.performAndWait {
            var result: [String: Int64] = [:]
            for record in try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Record")) {
                if let name: String = record["name"], let value: Int64 = record["value"] { result[name] = value }
            }
            return result
        }
        #expect(values == expectedAfterSave, sourceLocation: sourceLocation)
    }

    /// Lets go of the store (its connections close once nothing else holds it).
    func close() {
        context.performAndWait { context.reset() }
        for store in coordinator.persistentStores { try? coordinator.remove(store) }
    }
}
