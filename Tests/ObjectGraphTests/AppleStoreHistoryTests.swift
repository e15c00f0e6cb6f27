import Foundation
import SQLiteStorage
import Testing
@testable import ObjectGraph

/// Persistent history on a store Core Data wrote with history on (issues 31 and 33): its history tables stay
/// as Apple made them — no tombstone column is added even when the model marks an attribute to be preserved —
/// and our transactions are recorded in them.
struct AppleStoreHistoryTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-apple-history")
    var url: URL { folder.file("Apple.sqlite") }

    @Test func historyTablesCoreDataMadeStayAsTheyAre() throws {
        try AppleLayoutStore.write(to: url)
        // Core Data's history tables, as a store it wrote with history on has them (no tombstone column).
        do {
            let connection = try SQLiteConnection(path: url.path)
            defer { connection.close() }
            try connection.transaction(.immediate) { try SQLiteHistoryTables.create(connection, tombstoneColumns: 0) }
        }
        func changeColumns() throws -> [String] {
            let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
            defer { connection.close() }
            return try connection.columnNames(ofTable: "ACHANGE")
        }
        let before = try changeColumns()
        // The same model, with the author's last name marked to be kept in tombstones (not a structural change).
        let xml = AppleLayoutStore.modelXML().replacingOccurrences(
            of: #"<attribute name="lastName" optional="YES" attributeType="String"/>"#,
            with: #"<attribute name="lastName" optional="YES" attributeType="String" preserveAfterDeletion="YES"/>"#)
        #expect(xml != AppleLayoutStore.modelXML(), "the fixture's model changed; update the marker")
        let model = try ManagedObjectModel.load(xml: Data(xml.utf8), source: "AppleLayout.xcdatamodel")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = true
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        #expect(try changeColumns() == before, "opening added columns to Core Data's ACHANGE")

        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "tester"
        try context.performAndWait {
            let author = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Author")).first)
            context.delete(author)
            try context.save()
        }
        #expect(try changeColumns() == before)
        let history = try coordinator.fetchHistory(after: nil)
        #expect(history.count == 1 && history.first?.author == "tester")
        #expect(history.first?.changes.contains { $0.changeType == .delete && $0.changedObjectID.entityName == "Author" } == true)
    }

    @Test func anotherCoordinatorsCommitIsSeenOnARollbackJournalStore() throws {
        try AppleLayoutStore.write(to: url)
        do {
            let connection = try SQLiteConnection(path: url.path)
            defer { connection.close() }
            try connection.transaction(.immediate) { try SQLiteHistoryTables.create(connection, tombstoneColumns: 0) }
        }
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = true
        options.remoteChangeNotifications = true
        let watching = PersistentStoreCoordinator(managedObjectModel: try AppleLayoutStore.model())
        try watching.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        let seen = DispatchSemaphore(value: 0)
        let events = Locked<[StoreCommitEvent]>([])
        let token = watching.addCommitObserver { event in
            guard event.origin.isRemote else { return }
            events.withLock { $0.append(event) }
            seen.signal()
        }
        defer { token.cancel() }
        let writer = PersistentStoreCoordinator(managedObjectModel: try AppleLayoutStore.model())
        try writer.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = writer
        let id = try context.performAndWait {
            let author = try context.insertNewObject(forEntityName: "Author")
            author["lastName"] = "Knuth"
            try context.save()
            return author.objectID
        }
        #expect(seen.wait(timeout: .now() + 10) == .success, "no event for the other coordinator's commit")
        #expect(events.withLock { $0 }.first?.insertedObjectIDs == [id])
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { connection.close() }
        #expect(try connection.scalar("PRAGMA journal_mode") == .text("delete"), "the journal mode was changed")
    }
}
