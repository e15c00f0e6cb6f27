import Foundation
import Testing
import TestSupport
@testable import ObjectGraph

/// Changes from anywhere (issue 31): another coordinator's or another process's commits reach this coordinator
/// as commit events read from the persistent history, and contexts that merge automatically — and the
/// fetched-results controllers on them — follow them in whole transactions.
@Suite struct RemoteChangeTests {
    /// A watching coordinator's auto-merging context, a controller on it, and a way to wait for its changes.
    final class Watcher: @unchecked Sendable {
        let context: ManagedObjectContext
        let controller: FetchedResultsController<ManagedObject>
        let recorder = ChangeRecorder()
        let changed = DispatchSemaphore(value: 0)
        let events = Locked<[StoreCommitEvent]>([])
        private var tokens: [ObservationToken] = []

        init(_ coordinator: PersistentStoreCoordinator, entity: String, sortKey: String) throws {
            // (Observers hear of an event in the order they registered: this one before the context's merge, so
            // an event is always recorded before the controller can show it.)
            let events = self.events
            tokens.append(coordinator.addCommitObserver { event in events.withLock { $0.append(event) } })
            context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            context.automaticallyMergesChangesFromParent = true
            controller = FetchedResultsController(
                fetchRequest: FetchRequest<ManagedObject>(entityName: entity, sortCriteria: [SortCriterion(sortKey)]),
                managedObjectContext: context)
            try context.performAndWait {
                recorder.refetchesOnInvalidation = true
                controller.delegate = recorder
                try controller.performFetch()
                tokens.append(context.addObjectsDidChangeObserver { [changed] _ in changed.signal() })
            }
        }

        /// Waits (10 s at most) until `condition`, read on the context's queue, holds.
        func wait(until condition: @escaping (FetchedResultsController<ManagedObject>) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while true {
                if context.performAndWait({ condition(controller) }) { return true }
                let left = deadline.timeIntervalSinceNow
                if left <= 0 { return false }
                _ = changed.wait(timeout: .now() + left)
            }
        }

        var objectCount: Int { context.performAndWait { controller.fetchedObjects?.count ?? 0 } }
    }

    @Test func anotherCoordinatorsSavesAndBatchRequestsShowInTheControllerInWholeTransactions() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("shared.sqlite")
        let writer = try PersistentHistoryTests.coordinator(url)
        let reader = try PersistentHistoryTests.coordinator(url, watching: true)
        let watcher = try Watcher(reader, entity: "Person", sortKey: "lastName")
        let remoteNotices = Locked(0)
        let observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: reader,
            queue: nil) { notification in
            if notification.userInfo?[StoreCommitEvent.historyTokenKey] is HistoryToken { remoteNotices.withLock { $0 += 1 } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let context = PersistentHistoryTests.context(writer, author: "writer")
        let ids: [ManagedObjectID] = try context.performAndWait {
            let people = try (0..<5).map { index in
                let person = try context.insertNewObject(forEntityName: "Person")
                person["lastName"] = "N\(index)"
                return person
            }
            try context.save()
            return people.map(\.objectID)
        }
        #expect(watcher.wait { $0.fetchedObjects?.count == 5 })
        try context.performAndWait {
            try context.existingObject(with: ids[0])["lastName"] = "Z0"
            try context.save()
        }
        #expect(watcher.wait { ($0.fetchedObjects?.last?["lastName"] as String?) == "Z0" })
        _ = try writer.execute(BatchDeleteRequest(entityName: "Person", predicate: try FetchPredicate(format: "lastName == 'N1'")))
        #expect(watcher.wait { $0.fetchedObjects?.count == 4 })

        let events = watcher.events.withLock { $0 }
        #expect(events.count == 3, "\(events)")
        #expect(events.allSatisfy { $0.origin == .otherCoordinator && $0.kind == .history })
        #expect(events.first?.insertedObjectIDs == Set(ids))
        #expect(events.dropFirst().first?.updatedObjectIDs == [ids[0]: ["lastName"]])
        #expect(events.first?.author == "writer")
        // Each transaction arrived whole: the insert of five people is one delegate batch.
        let batches = watcher.context.performAndWait { watcher.recorder.batches }
        #expect(batches.first?.changeset.insertedRows.count == 5)
        #expect(watcher.context.performAndWait { watcher.recorder.protocolErrors }.isEmpty)
        #expect(remoteNotices.withLock { $0 } >= 1)
        // The reader's own contexts read the new values, not a stale row cache.
        let fresh = PersistentHistoryTests.context(reader)
        #expect(try fresh.performAndWait { try fresh.existingObject(with: ids[0])["lastName"] as String? } == "Z0")
    }

    @Test func ownSavesAreNotReportedAsRemote() throws {
        let directory = TemporaryDirectory()
        let coordinator = try PersistentHistoryTests.coordinator(directory.file("own.sqlite"), watching: true)
        let watcher = try Watcher(coordinator, entity: "Person", sortKey: "lastName")
        let context = PersistentHistoryTests.context(coordinator)
        try context.performAndWait {
            for index in 0..<3 {
                try context.insertNewObject(forEntityName: "Person")["lastName"] = "O\(index)"
                try context.save()
            }
        }
        #expect(watcher.wait { $0.fetchedObjects?.count == 3 })
        // A second coordinator's save is the marker that the watcher has looked at everything before it.
        let other = try PersistentHistoryTests.coordinator(directory.file("own.sqlite"))
        let otherContext = PersistentHistoryTests.context(other)
        try otherContext.performAndWait {
            try otherContext.insertNewObject(forEntityName: "Person")["lastName"] = "marker"
            try otherContext.save()
        }
        #expect(watcher.wait { $0.fetchedObjects?.count == 4 })
        let events = watcher.events.withLock { $0 }
        #expect(events.filter { $0.origin.isRemote }.count == 1)
        #expect(events.filter { $0.origin == .thisCoordinator }.count == 3)
    }

    /// The test-only importer, run as a real second process, imports batches while this process watches.
    @Test func anotherProcesssImportShowsBatchByBatch() throws {
        let importer = try CrashImporter.require()
        let directory = TemporaryDirectory()
        let url = directory.file("import.sqlite")
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "ImportedItem", attributes: [
                AttributeDescription(name: "batch", type: .integer64, isOptional: false, defaultValue: 0),
                AttributeDescription(name: "seq", type: .integer64, isOptional: false, defaultValue: 0),
                AttributeDescription(name: "payload", type: .string),
            ])
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = true
        options.remoteChangeNotifications = true
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        let watcher = try Watcher(coordinator, entity: "ImportedItem", sortKey: "seq")

        let run = try CrashImporter.run(importer, [url.path, "--history", "--batch-size", "40", "--until", "8"],
            errorLog: directory.file("importer.log"))
        #expect(run.status == 0, "\(run.lines)")
        #expect(watcher.wait { $0.fetchedObjects?.count == 320 })
        let batches = watcher.context.performAndWait { watcher.recorder.batches }
        #expect(!batches.isEmpty)
        #expect(batches.allSatisfy { $0.changeset.insertedRows.count % 40 == 0 }, "\(batches.map(\.changeset.insertedRows.count))")
        let events = watcher.events.withLock { $0 }
        #expect(events.count == 8)
        #expect(events.allSatisfy { $0.author == "importer" && $0.origin != .thisCoordinator && $0.origin != .otherCoordinator })
        let seqs = watcher.context.performAndWait { watcher.controller.fetchedObjects?.compactMap { $0["seq"] as Int64? } }
        #expect(seqs == (0..<320).map(Int64.init))
    }
}
