import Foundation
import Testing
import TestSupport
@testable import ObjectGraph

/// Persistent history in atomic stores (issue 31): every save and batch request recorded in the file with its
/// rows, read back after reopening, purged, and sent with each commit event's token.
@Suite struct AtomicStoreHistoryTests {
    static func coordinator(_ url: URL, history: Bool = true) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PersistentHistoryTests.model())
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = history
        try coordinator.addPersistentStore(ofType: .atomic, configurationName: nil, at: url, options: options)
        return coordinator
    }

    @Test func savesAndBatchRequestsAreRecordedKeptInTheFileAndPurged() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("history.store")
        let ids: [ManagedObjectID]
        do {
            let coordinator = try Self.coordinator(url)
            let tokens = Locked<[HistoryToken?]>([])
            let observation = coordinator.addCommitObserver { event in tokens.withLock { $0.append(event.historyToken) } }
            defer { withExtendedLifetime(observation) {} }
            let context = PersistentHistoryTests.context(coordinator, author: "tester", name: "main")
            ids = try context.performAndWait {
                let people = try (0..<3).map { index in
                    let person = try context.insertNewObject(forEntityName: "Person")
                    person["lastName"] = "L\(index)"
                    person["email"] = "p\(index)@example.org"
                    return person
                }
                try context.save()
                people[0]["firstName"] = "Ada"
                try context.save()
                context.delete(people[1])
                try context.save()
                return people.map(\.objectID)
            }
            _ = try coordinator.execute(BatchUpdateRequest(entityName: "Person", predicate: nil, propertiesToUpdate: ["age": .integer(7)]))
            #expect(tokens.withLock { $0.map { $0?.transactionNumbers.values.first } } == [1, 2, 3, 4])
        }
        // Reopened: the history is the file's.
        let coordinator = try Self.coordinator(url)
        let history = try coordinator.fetchHistory(after: nil as HistoryToken?)
        #expect(history.map(\.transactionNumber) == [1, 2, 3, 4])
        #expect(history[0].author == "tester" && history[0].contextName == "main")
        #expect(Set(history[0].changes.map(\.changedObjectID)) == Set(ids))
        #expect(history[1].changes.map(\.updatedProperties) == [["firstName"]])
        #expect(history[2].changes.first?.changeType == .delete)
        #expect(history[2].changes.first?.tombstone == ["email": .string("p1@example.org")])
        #expect(history[3].changes.count == 2 && history[3].changes.allSatisfy { $0.updatedProperties == ["age"] })
        #expect(try coordinator.currentPersistentHistoryToken()?.transactionNumbers.values.first == 4)

        // Purging keeps the numbers: the next transaction is 5, and a token before the purge has expired.
        #expect(try coordinator.deleteHistory(before: history[1].token) == 2)
        #expect(throws: ObjectGraphError.self) { try coordinator.fetchHistory(after: history[0].token) }
        #expect(try coordinator.fetchHistory(after: history[1].token).map(\.transactionNumber) == [3, 4])
        let context = PersistentHistoryTests.context(coordinator)
        try context.performAndWait {
            let person = try context.insertNewObject(forEntityName: "Person")
            person["lastName"] = "New"
            try context.save()
        }
        #expect(try coordinator.fetchHistory(after: history[3].token).map(\.transactionNumber) == [5])
    }

    @Test func aFileWithoutHistoryRecordsNoneUnlessAsked() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("plain.store")
        do {
            let coordinator = try Self.coordinator(url, history: false)
            try StoreReplacementTests.insert(["A"], into: coordinator)
            #expect(try coordinator.fetchHistory(after: nil as HistoryToken?).isEmpty)
            #expect(try coordinator.currentPersistentHistoryToken() == nil)
        }
        let coordinator = try Self.coordinator(url, history: true)
        try StoreReplacementTests.insert(["B"], into: coordinator)
        #expect(try coordinator.fetchHistory(after: nil as HistoryToken?).map(\.transactionNumber) == [1])
        // The file now holds history, so it keeps recording even without the option.
        let again = try Self.coordinator(url, history: false)
        try StoreReplacementTests.insert(["C"], into: again)
        #expect(try again.fetchHistory(after: nil as HistoryToken?).map(\.transactionNumber) == [1, 2])
    }
}
