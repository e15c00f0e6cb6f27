import CFaultVFS
import Foundation
@testable import ObjectGraph
import SQLiteStorage
import Testing

/// Reads that fail (issue 31): with other processes holding locks, a failed read must be an error, never "the
/// row is gone". Part of the serialized I/O-fault suite, since the fault VFS is armed for the whole process.
extension IOFaultTests {
    /// A store of three people opened by a fresh coordinator (cold page caches, so reads reach the file), and
    /// the IDs of the people.
    private static func coldStore(_ folder: String) throws
        -> (reader: PersistentStoreCoordinator, ids: [ManagedObjectID], writeElsewhere: () throws -> Void)
    {
        let url = URL(fileURLWithPath: folder).appendingPathComponent("r.sqlite")
        let writer = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        try writer.addPersistentStore(ofType: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = writer
        let ids = try context.performAndWait {
            let people = try (0..<3).map { index in try insertPerson("P\(index)", into: context) }
            try context.save()
            return people.map(\.objectID)
        }
        let reader = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        try reader.addPersistentStore(ofType: .sqlite, at: url)
        // Another connection's commit makes the reader's connections drop their page caches.
        let writeElsewhere = {
            try context.performAndWait {
                try insertPerson("other", into: context)
                try context.save()
            }
        }
        return (reader, ids, writeElsewhere)
    }

    @Test("A failed read leaves faults as faults and merged objects in place, never deleted")
    func failedReadsAreNeverDeletions() throws {
        try #require(Self.vfsInstalled, "the fault VFS could not be registered")
        let directory = TemporaryDirectory(prefix: "objectgraph-readfault")
        let folder = directory.url.resolvingSymlinksInPath().path
        let (coordinator, ids, writeElsewhere) = try Self.coldStore(folder)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        // A registered object with values, for the merge below.
        let merged = try context.performAndWait { try context.existingObject(with: ids[1]) }
        try writeElsewhere()
        cfaultvfs_arm(folder, CFAULTVFS_READ, 0, 1, SQLiteError.ioError | (1 << 8))
        defer { cfaultvfs_disarm() }
        try context.performAndWait {
            let fault = try context.object(with: ids[0])
            let name: String? = fault["lastName"]
            #expect(name == nil, "no values could be read")
            #expect(!fault.isDeleted, "a failed read is not a deletion")
            #expect(fault.isFault, "it stays a fault, to be read again")
            #expect(context.lastFaultError != nil)
        }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: RemoteContextSave(updated: [ids[1]]), into: [context])
        context.performAndWait {
            #expect(!merged.isDeleted && context.registeredObject(for: ids[1]) === merged)
            #expect((merged["lastName"] as String?) == "P1")
        }
        #expect(cfaultvfs_faults_fired() > 0, "the reads reached the file")
        cfaultvfs_disarm()
        try context.performAndWait {
            let fault = try context.object(with: ids[0])
            #expect((fault["lastName"] as String?) == "P0", "read again once the file answers")
            #expect(!fault.isDeleted && !fault.isFault)
        }
    }

    @Test("A read that meets SQLITE_BUSY is tried again")
    func busyReadsAreRetried() throws {
        try #require(Self.vfsInstalled, "the fault VFS could not be registered")
        let directory = TemporaryDirectory(prefix: "objectgraph-readbusy")
        let folder = directory.url.resolvingSymlinksInPath().path
        let (coordinator, ids, _) = try Self.coldStore(folder)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        cfaultvfs_arm(folder, CFAULTVFS_READ, 0, 0, SQLiteError.busy)
        defer { cfaultvfs_disarm() }
        try context.performAndWait {
            let fault = try context.object(with: ids[2])
            #expect((fault["lastName"] as String?) == "P2")
            #expect(context.lastFaultError == nil)
        }
        #expect(cfaultvfs_faults_fired() == 1)
    }
}
