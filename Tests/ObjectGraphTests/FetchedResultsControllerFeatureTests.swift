import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// Employees of companies: the subject of the related-key-path tests.
private func companyModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(entities: [
        EntityDescription(name: "Company", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [RelationshipDescription(name: "employees", destination: "Employee", inverse: "company",
                isToMany: true)]),
        EntityDescription(name: "Employee", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [RelationshipDescription(name: "company", destination: "Company", inverse: "employees")]),
    ])
}

/// Inserts `count` items named item-000…, in groups A–D, and saves.
private func seedItems(_ stack: TestStack, count: Int) throws {
    let context = stack.context()
    try context.performAndWait {
        for number in 0..<count {
            let item = try context.insertNewObject(forEntityName: "Item")
            item["name"] = String(format: "item-%03d", number)
            item["group"] = ["A", "B", "C", "D"][number % 4]
            item["rank"] = Int64(number)
        }
        try context.save()
    }
}

private func itemRequest(batchSize: Int = 0) -> FetchRequest<ManagedObject> {
    var request = FetchRequest<ManagedObject>(entityName: "Item")
    request.sortCriteria = [SortCriterion("group"), SortCriterion("rank")]
    request.fetchBatchSize = batchSize
    return request
}

/// Records snapshots, differences and whether any per-change method was called.
private final class SnapshotRecorder: FetchedResultsControllerSnapshotDelegate {
    var snapshots: [FetchedResultsSnapshot] = []
    var legacyCalls = 0
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith snapshot: FetchedResultsSnapshot) {
        snapshots.append(snapshot)
    }
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) { legacyCalls += 1 }
}

private final class DifferenceRecorder: FetchedResultsControllerDifferenceDelegate {
    var differences: [CollectionDifference<ManagedObjectID>] = []
    var legacyCalls = 0
    func controller(
        _ controller: AnyFetchedResultsController, didChangeContentWith difference: CollectionDifference<ManagedObjectID>
    ) { differences.append(difference) }
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) { legacyCalls += 1 }
}

private final class TitleOnlyDelegate: FetchedResultsControllerDelegate {
    var tracksChanges: Bool { false }
    var calls = 0
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) { calls += 1 }
    func controller(_ controller: AnyFetchedResultsController, sectionIndexTitleForSectionName sectionName: String)
        -> String? { "§" + sectionName }
}

private final class InvalidationRecorder: FetchedResultsControllerDelegate {
    var invalidations = 0
    func controllerDidInvalidateContent(_ controller: AnyFetchedResultsController) { invalidations += 1 }
}

@Suite struct FetchedResultsControllerFeatureTests {
    /// Unlike Core Data's controller, renaming a company re-sorts (and re-sections) its employees.
    @Test(arguments: StoreKind.allCases)
    func aChangeToARelatedObjectReevaluatesTheObjectsPointingToIt(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try companyModel())
        try coordinator.addPersistentStore(ofType: kind.storeType, at: directory.file("s.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let acme = try context.insertNewObject(forEntityName: "Company")
            acme["name"] = "Acme"
            let zeta = try context.insertNewObject(forEntityName: "Company")
            zeta["name"] = "Zeta"
            for (name, company) in [("ann", acme), ("bob", zeta), ("cy", acme)] {
                let employee = try context.insertNewObject(forEntityName: "Employee")
                employee["name"] = name
                employee.setRelatedObject(company, forKey: "company")
            }
            try context.save()

            var request = FetchRequest<ManagedObject>(entityName: "Employee",
                predicate: try FetchPredicate(format: "company.name != 'Closed'"))
            request.sortCriteria = [SortCriterion("company.name"), SortCriterion("name")]
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                sectionNameKeyPath: "company.name")
            let recorder = ChangeRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.sectionNames == ["Acme", "Zeta"])

            acme["name"] = "Zulu"  // Acme's employees now sort after Zeta's, in a new section
            context.processPendingChanges()
            #expect(controller.sectionNames == ["Zeta", "Zulu"])
            #expect(controller.fetchedObjectsUntyped?.map { $0["name"] as String? } == ["bob", "ann", "cy"])
            #expect(recorder.batches.count == 1)
            #expect(recorder.batches.last?.changeset.deletedSections == [0])
            #expect(recorder.batches.last?.changeset.insertedSections == [1])

            zeta["name"] = "Closed"  // bob stops matching the predicate through his company
            context.processPendingChanges()
            #expect(controller.fetchedObjectsUntyped?.map { $0["name"] as String? } == ["ann", "cy"])
            #expect(recorder.batches.last?.changeset.deletedRows == [IndexPath(row: 0, section: 0)])
        }
    }

    /// A batched controller keeps IDs and keys; objects come a batch at a time and old batches go.
    @Test(arguments: StoreKind.allCases)
    func aBatchedControllerLoadsAndReleasesObjectsByBatch(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try seedItems(stack, count: 400)
        let context = stack.context()
        try context.performAndWait {
            let controller = FetchedResultsController(fetchRequest: itemRequest(batchSize: 10),
                managedObjectContext: context, sectionNameKeyPath: "group")
            controller.delegate = ChangeRecorderHolder.shared
            try controller.performFetch()
            #expect(context.registeredObjectsCount == 0, "the fetch made no objects")
            #expect(controller.numberOfObjects(inSection: 0) == 100)
            let first = controller.object(at: IndexPath(row: 0, section: 0))
            #expect(first["name"] as String? == "item-000")
            #expect(context.registeredObjectsCount == 10, "one batch")
            var peak = 0
            for section in 0..<controller.numberOfSections {
                for row in 0..<controller.numberOfObjects(inSection: section) {
                    _ = controller.object(at: IndexPath(row: row, section: section))["name"] as String?
                    peak = max(peak, context.registeredObjectsCount)
                }
            }
            #expect(peak <= (AnyFetchedResultsController.retainedBatchCount + 2) * 10,
                "walking 400 rows kept at most a few batches (peak \(peak))")
            #expect(first["name"] as String? == "item-000", "an object the caller holds stays usable")
            let expected = (0..<400).sorted { ($0 % 4, $0) < ($1 % 4, $1) }.map { String(format: "item-%03d", $0) }
            #expect(controller.fetchedObjectsUntyped?.map { $0["name"] as String? } == expected)
        }
    }

    /// Sections named in Swift from stored values, read straight from rows by a batched controller.
    @Test func derivedSectionNamesWorkWithAndWithoutObjects() throws {
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 40)
        let context = stack.context()
        try context.performAndWait {
            for batchSize in [0, 8] {
                var request = itemRequest(batchSize: batchSize)
                request.sortCriteria = [SortCriterion("rank")]
                let naming = SectionNaming.derived(from: ["rank"]) { values in
                    (values[0].int64Value ?? 0) < 20 ? "low" : "high"
                }
                let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                    sectionNaming: naming)
                try controller.performFetch()
                #expect(controller.sectionNames == ["low", "high"])
                #expect(controller.numberOfObjects(inSection: 1) == 20)
                #expect(controller.sectionNameKeyPath == nil)
            }
        }
    }

    @Test func aSnapshotDelegateGetsSnapshotsOnly() throws {
        let stack = try TestStack(.inMemory)
        try seedItems(stack, count: 8)
        let context = stack.context()
        try context.performAndWait {
            let recorder = SnapshotRecorder()
            let controller = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
                sectionNameKeyPath: "group")
            controller.delegate = recorder
            try controller.performFetch()
            #expect(recorder.snapshots.count == 1, "performFetch delivers the first snapshot")
            #expect(recorder.snapshots.last?.sectionIdentifiers == ["A", "B", "C", "D"])
            let first = controller.object(at: IndexPath(row: 0, section: 0))
            first["flag"] = true
            context.processPendingChanges()
            #expect(recorder.snapshots.count == 2)
            #expect(recorder.snapshots.last?.reloadedItemIdentifiers == [first.objectID])
            first["group"] = "E"
            context.processPendingChanges()
            #expect(recorder.snapshots.last?.sectionIdentifiers == ["A", "B", "C", "D", "E"])
            #expect(recorder.snapshots.last?.itemIdentifiers(inSection: "E") == [first.objectID])
            #expect(recorder.snapshots.last == controller.snapshot())
            #expect(recorder.legacyCalls == 0, "no per-change calls")
        }
    }

    @Test func aDifferenceDelegateGetsIDDifferencesThatApply() throws {
        let stack = try TestStack(.inMemory)
        try seedItems(stack, count: 10)
        let context = stack.context()
        try context.performAndWait {
            let recorder = DifferenceRecorder()
            var request = itemRequest()
            request.sortCriteria = [SortCriterion("rank")]
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
            controller.delegate = recorder
            try controller.performFetch()
            var ids = controller.fetchedObjectIDs ?? []
            let objects = controller.fetchedObjectsUntyped ?? []
            objects[0]["rank"] = Int64(99)
            context.delete(objects[3])
            let inserted = try context.insertNewObject(forEntityName: "Item")
            inserted["rank"] = Int64(5)
            context.processPendingChanges()
            try context.save()  // temporary → permanent: a removal and insertion of the new ID
            objects[1]["name"] = "renamed"
            context.processPendingChanges()
            for difference in recorder.differences { ids = ids.applying(difference) ?? [] }
            #expect(ids == controller.fetchedObjectIDs)
            #expect(ids.allSatisfy { !$0.isTemporaryID })
            #expect(recorder.legacyCalls == 0)
        }
    }

    @Test func aChangeStreamDeliversEachBatch() async throws {
        let stack = try TestStack(.inMemory)
        try seedItems(stack, count: 4)
        let context = stack.context()
        let controller = try context.performAndWait { () throws -> FetchedResultsController<ManagedObject> in
            let controller = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
                sectionNameKeyPath: "group")
            try controller.performFetch()
            return controller
        }
        let stream = context.performAndWait { controller.changes() }
        try context.performAndWait {
            let item = try context.insertNewObject(forEntityName: "Item")
            item["group"] = "Z"
            context.processPendingChanges()
        }
        var iterator = stream.makeAsyncIterator()
        let changeSet = await iterator.next()
        #expect(changeSet?.sectionChanges == [.init(name: "Z", index: 4, type: .insert)])
        #expect(changeSet?.objectChanges.map(\.type) == [.insert])
        #expect(changeSet?.objectChanges.first?.newIndexPath == IndexPath(row: 0, section: 4))
        context.performAndWait { context.reset() }
        #expect(await iterator.next()?.invalidatesAll == true)
    }

    @Test func aDelegateThatDoesNotTrackChangesLeavesTheResultsAsFetched() throws {
        let stack = try TestStack(.inMemory)
        try seedItems(stack, count: 4)
        let context = stack.context()
        try context.performAndWait {
            let delegate = TitleOnlyDelegate()
            let controller = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
                sectionNameKeyPath: "group")
            controller.delegate = delegate
            try controller.performFetch()
            #expect(controller.sectionIndexTitles == ["§A", "§B", "§C", "§D"])
            context.delete(controller.object(at: IndexPath(row: 0, section: 0)))
            context.processPendingChanges()
            #expect(controller.numberOfFetchedObjects == 4)
            #expect(delegate.calls == 0)
        }
    }

    @Test func aResetTellsTheDelegateToFetchAgain() throws {
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 6)
        let context = stack.context()
        try context.performAndWait {
            let recorder = InvalidationRecorder()
            let controller = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
                sectionNameKeyPath: "group")
            controller.delegate = recorder
            try controller.performFetch()
            context.reset()
            #expect(recorder.invalidations == 1)
            #expect(controller.numberOfFetchedObjects == 0)
            try controller.performFetch()
            #expect(controller.numberOfFetchedObjects == 6)
        }
    }
}

/// A delegate that tracks changes and ignores them, kept alive for the controller's weak reference.
/// A move that would start and end at the same index path, deep inside a long list: the controller
/// re-chooses moves only around it, and still reports a valid batch with no same-path move.
@Suite struct SamePathMoveTests {
    @Test(arguments: [0, 50]) func aSamePathMoveInALongListBecomesAnUpdate(batchSize: Int) throws {
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 2000)  // section "A" holds ranks 0, 4, 8, … at rows 0, 1, 2, …
        let context = stack.context()
        let recorder = ChangeRecorder()
        try context.performAndWait {
            let controller = FetchedResultsController(fetchRequest: itemRequest(batchSize: batchSize),
                managedObjectContext: context, sectionNameKeyPath: "group")
            controller.delegate = recorder
            try controller.performFetch()
            let before = controller.sectionedIDs
            let (doomed, mover, neighbour) = (before[0][100], before[0][250], before[0][251])
            context.delete(try context.existingObject(with: doomed))
            // Past its neighbour (rank 1004) and before the next row (1008): with the deletion above it,
            // the mover lands on its own index path (0, 250) although its order among the rows changed.
            try context.existingObject(with: mover)["rank"] = Int64(1005)
            context.processPendingChanges()
            let after = controller.sectionedIDs
            #expect(after[0][250] == mover && after[0][249] == neighbour)
            let batch = try #require(recorder.batches.last)
            #expect(batch.changeset.applied(to: before) { batch.inserted[$0] } == after)
            #expect(!batch.changeset.movedRows.contains { $0.from == $0.to }, "\(batch.changeset.movedRows)")
            #expect(batch.changeset.updatedRows.map(\.from) == [IndexPath(row: 250, section: 0)])
            #expect(batch.changeset.movedRows.map(\.from) == [IndexPath(row: 251, section: 0)])
            #expect(batch.changeset.deletedRows == [IndexPath(row: 100, section: 0)])
        }
    }
}

private final class ChangeRecorderHolder: FetchedResultsControllerDelegate {
    nonisolated(unsafe) static let shared = ChangeRecorderHolder()
}

/// A fresh cache directory (set as the process-wide one), an SQLite stack of `count` seeded items, and the
/// section cache named `prefix-<UUID>` written for them by a first controller, whose sections are returned.
private func stackWithWrittenCache(_ prefix: String, items count: Int) throws
    -> (directory: TemporaryDirectory, cacheName: String, stack: TestStack, sections: [[ManagedObjectID]])
{
    let cacheDirectory = TemporaryDirectory()
    AnyFetchedResultsController.cacheDirectory = cacheDirectory.url
    let cacheName = prefix + "-" + UUID().uuidString
    let stack = try TestStack(.sqlite)
    try seedItems(stack, count: count)
    let context = stack.context()
    let sections = try context.performAndWait {
        let writer = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
            sectionNameKeyPath: "group", cacheName: cacheName)
        try writer.performFetch()
        return writer.sectionedIDs
    }
    return (cacheDirectory, cacheName, stack, sections)
}

/// The section cache. Serialized: the cache directory is one process-wide setting.
@Suite(.serialized) struct FetchedResultsCacheTests {
    @Test func theSectionCacheIsUsedOnlyWhileEverythingItWasComputedFromIsUnchanged() throws {
        let cacheDirectory = TemporaryDirectory()
        AnyFetchedResultsController.cacheDirectory = cacheDirectory.url
        let cacheName = "items-" + UUID().uuidString
        let stack = try TestStack(.sqlite)
        try seedItems(stack, count: 50)
        func fetch(_ request: FetchRequest<ManagedObject> = itemRequest()) throws -> (fromCache: Bool, ids: [[ManagedObjectID]]) {
            let context = stack.context()
            return try context.performAndWait {
                let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                    sectionNameKeyPath: "group", cacheName: cacheName)
                try controller.performFetch()
                return (controller.resultsCameFromCache, controller.sectionedIDs)
            }
        }
        let first = try fetch()
        #expect(!first.fromCache)
        let second = try fetch()
        #expect(second.fromCache, "an unchanged store and request use the cache")
        #expect(second.ids == first.ids)

        var filtered = itemRequest()
        filtered.predicate = try FetchPredicate(format: "rank < 10")
        #expect(try !fetch(filtered).fromCache, "another request recomputes")
        #expect(try fetch(filtered).fromCache)

        let context = stack.context()
        try context.performAndWait {
            let item = try context.insertNewObject(forEntityName: "Item")
            item["group"] = "A"
            try context.save()
        }
        let afterSave = try fetch(filtered)
        #expect(!afterSave.fromCache, "a store change invalidates the cache")
        #expect(afterSave.ids.joined().count == 11)

        AnyFetchedResultsController.deleteCache(withName: cacheName)
        #expect(try !fetch(filtered).fromCache, "a deleted cache is recomputed")
        AnyFetchedResultsController.deleteCache(withName: nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.url.path).isEmpty)
    }

    /// The next launch: the store closed and opened again by a new coordinator still matches the cache.
    @Test func theSectionCacheSurvivesClosingAndReopeningTheStore() throws {
        let cacheDirectory = TemporaryDirectory()
        AnyFetchedResultsController.cacheDirectory = cacheDirectory.url
        let cacheName = "reopen-" + UUID().uuidString
        let directory = TemporaryDirectory()
        let url = directory.file("people.sqlite")
        func launch(_ body: (ManagedObjectContext) throws -> Void) throws -> (Bool, [[ManagedObjectID]]) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
            let store = try coordinator.addPersistentStore(ofType: .sqlite, at: url)
            defer { try? coordinator.remove(store) }
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            return try context.performAndWait {
                try body(context)
                let controller = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
                    sectionNameKeyPath: "group", cacheName: cacheName)
                try controller.performFetch()
                return (controller.resultsCameFromCache, controller.sectionedIDs)
            }
        }
        let first = try launch { context in
            for number in 0..<30 {
                let item = try context.insertNewObject(forEntityName: "Item")
                item["group"] = ["A", "B"][number % 2]
                item["rank"] = Int64(number)
            }
            try context.save()
        }
        #expect(!first.0)
        let second = try launch { _ in }
        #expect(second.0, "the cache written by the last launch is used")
        #expect(second.1 == first.1)
    }

    /// Results from the cache skip building the controller's ID lookup; index-path lookups and the first
    /// change batch build it, and every change after that is placed as in a fetched controller.
    @Test(arguments: [true, false]) func resultsFromTheCacheTrackChangesLikeFetchedOnes(asksForAnIndexPathFirst: Bool)
        throws
    {
        let (cacheDirectory, cacheName, stack, _) = try stackWithWrittenCache("tracking", items: 40)
        defer { withExtendedLifetime(cacheDirectory) {} }
        let view = stack.context(name: "view")
        let recorder = ChangeRecorder()
        let (controller, before) = try view.performAndWait {
            let controller = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: view,
                sectionNameKeyPath: "group", cacheName: cacheName)
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.resultsCameFromCache)
            let before = controller.sectionedIDs
            if asksForAnIndexPathFirst {
                let third = try view.existingObject(with: before[1][2])
                #expect(controller.indexPath(forObject: third) == IndexPath(row: 2, section: 1))
            }
            return (controller, before)
        }
        let importer = stack.context(name: "importer")
        let save = try #require(try importer.performAndWait { () throws -> ContextDidSave? in
            importer.delete(try importer.existingObject(with: before[0][0]))
            try importer.existingObject(with: before[2][3])["rank"] = Int64(-1)
            let item = try importer.insertNewObject(forEntityName: "Item")
            item["group"] = "D"
            item["rank"] = Int64(5)
            return try importer.saveCapturingDidSave()
        })
        try view.performAndWait {
            view.mergeChanges(fromContextDidSave: save)
            let oracle = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: view,
                sectionNameKeyPath: "group")
            try oracle.performFetch()
            let fresh = oracle.sectionedIDs
            #expect(controller.sectionedIDs == fresh)
            let batch = try #require(recorder.batches.last)
            #expect(batch.changeset.applied(to: before) { batch.inserted[$0] } == fresh)
        }
    }

    @Test func aDamagedCacheIsRecomputedNotAnError() throws {
        let (cacheDirectory, cacheName, stack, first) = try stackWithWrittenCache("damaged", items: 20)
        defer { withExtendedLifetime(cacheDirectory) {} }
        let context = stack.context()
        try context.performAndWait {
            let url = FetchedResultsCache.fileURL(forName: cacheName)
            var data = try Data(contentsOf: url)
            data = data.prefix(data.count - 7)
            try data.write(to: url)
            let again = FetchedResultsController(fetchRequest: itemRequest(), managedObjectContext: context,
                sectionNameKeyPath: "group", cacheName: cacheName)
            try again.performFetch()
            #expect(!again.resultsCameFromCache)
            #expect(again.sectionedIDs == first)
        }
    }
}
