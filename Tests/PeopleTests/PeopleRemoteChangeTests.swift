import Foundation
import ObjectGraph
import Testing
import TerminalTableView
@testable import People

/// `people` follows every writer (issue 31): what another program commits to the store shows in the open list
/// without a key press, and the bottom line says what changed and who changed it.
@MainActor
@Suite struct PeopleRemoteChangeTests {
    @Test(arguments: PeopleStack.Kind.allCases)
    func anotherProgramsImportAndEditsShowInTheList(kind: PeopleStack.Kind) async throws {
        let fixture = try AppFixture(stack: kind)
        let before = fixture.app.list.numberOfPeople
        // "Another program": a second stack (its own coordinator) on the same store file, as `objectgraph` or a
        // second `people` would open it.
        let other = try PeopleStack(storeURL: fixture.store.url, kind: .siblings)
        let writer = other.newStoreContext(name: "other")
        writer.transactionAuthor = "sync-job"
        try writer.performAndWait {
            for index in 0..<25 {
                let person = Person(context: writer)
                person.firstName = "Remote"
                person.lastName = "Zimmer \(index)"
                person.email = "remote\(index)@example.org"
                person.city = "Bern"
            }
            try writer.save()
        }
        await waitUntil("the list shows the other program's 25 people") { fixture.app.list.numberOfPeople == before + 25 }
        fixture.app.tick()
        #expect(fixture.lines.last?.contains("25 added by sync-job") == true, "\(fixture.lines.last ?? "")")
        #expect(fixture.lines.first?.contains((before + 25).formatted()) == true, "\(fixture.lines.first ?? "")")

        _ = try other.coordinator.execute(BatchDeleteRequest(entityName: "Person",
            predicate: try FetchPredicate(format: "firstName == 'Remote'")))
        await waitUntil("the list loses them again") { fixture.app.list.numberOfPeople == before }
        fixture.app.tick()
        #expect(fixture.lines.last?.contains("25 removed") == true, "\(fixture.lines.last ?? "")")
    }

    @Test func aPersonDeletedElsewhereWhileEditedIsSavedAsNew() async throws {
        let fixture = try AppFixture()
        let person = try #require(fixture.app.list.selectedPerson)
        let id = person.objectID
        fixture.type("e")
        guard case .form = fixture.app.mode else {
            Issue.record("e did not open the form: \(fixture.app.mode)")
            return
        }
        let other = try PeopleStack(storeURL: fixture.store.url, kind: .siblings)
        _ = try other.coordinator.execute(BatchDeleteRequest(objectIDs: [id]))
        await waitUntil("the view context merged the deletion") { person.isDeleted || person.managedObjectContext == nil }
        fixture.app.tick()
        #expect(fixture.lines.joined().contains("Another program deleted this person"), "\(fixture.lines)")
        fixture.press(.enter)
        #expect(fixture.lines.last?.contains("saved as") == true, "\(fixture.lines.last ?? "")")
        #expect(fixture.app.list.selectedPerson?.lastName == person.lastName)
    }

    @Test func aBackupRestoredByAnotherProgramReplacesTheList() async throws {
        let fixture = try AppFixture()
        let before = fixture.app.list.numberOfPeople
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("people-restore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let backup = directory.appendingPathComponent("backup.sqlite")
        let other = try PeopleStack(storeURL: fixture.store.url, kind: .siblings)
        let store = try #require(other.coordinator.persistentStores.first)
        try other.coordinator.backupPersistentStore(store, to: backup)
        let writer = other.newStoreContext(name: "other")
        try writer.performAndWait {
            for index in 0..<10 {
                let person = Person(context: writer)
                person.firstName = "Later"
                person.lastName = "Zimmer \(index)"
            }
            try writer.save()
        }
        await waitUntil("the list shows the 10 new people") { fixture.app.list.numberOfPeople == before + 10 }

        // A third program restores the backup over the open store, as `objectgraph backup --force` does.
        let restorer = PersistentStoreCoordinator(managedObjectModel: other.coordinator.managedObjectModel)
        try restorer.replacePersistentStore(at: fixture.store.url, withPersistentStoreFrom: backup)
        await waitUntil("the list is read again") { fixture.app.list.numberOfPeople == before }
        fixture.app.tick()
        #expect(fixture.lines.last?.contains("replaced the store") == true, "\(fixture.lines.last ?? "")")
        #expect(fixture.lines.first?.contains(before.formatted()) == true, "\(fixture.lines.first ?? "")")
        #expect(fixture.app.list.lastReloadError == nil)
    }

    @Test func theTallySaysWhoChangedWhat() {
        var tally = RemoteChangeTally()
        #expect(tally.isEmpty)
        tally.added = 20_000
        tally.authors = [nil]
        #expect(tally.summary == "20,000 added by another program")
        tally.changed = 3
        tally.removed = 1
        tally.authors = ["objectgraph"]
        #expect(tally.summary == "20,000 added, 3 changed, 1 removed by objectgraph")
        tally.authors = ["objectgraph", "people"]
        #expect(tally.summary.hasSuffix("by another program"))
    }
}
