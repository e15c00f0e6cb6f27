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
func seedItems(_ stack: TestStack, count: Int) throws {
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

func itemRequest(batchSize: Int = 0) -> FetchRequest<ManagedObject> {
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
