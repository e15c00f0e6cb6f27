import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// The conformance scenarios of the reference (§9), each on both stores and — where the change can come
/// from elsewhere — both made in the controller's context and saved in a background context and merged.
@Suite struct FetchedResultsScenarioTests {
    /// A controller over items sectioned by `group`, sorted by group then rank, and a way to change them.
    final class Harness {
        let stack: TestStack
        let view: ManagedObjectContext
        let background: ManagedObjectContext
        let route: ChangeRoute
        let recorder = ChangeRecorder()
        var controller: FetchedResultsController<ManagedObject>!

        init(_ kind: StoreKind, _ route: ChangeRoute, predicate: String? = nil,
            items: [(group: String, rank: Int64)] = []) throws
        {
            stack = try TestStack(kind)
            view = stack.context(name: "view")
            background = stack.context(name: "background")
            self.route = route
            try background.performAndWait {
                for item in items {
                    let object = try background.insertNewObject(forEntityName: "Item")
                    object["group"] = item.group
                    object["rank"] = item.rank
                }
                try background.save()
            }
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            if let predicate { request.predicate = try FetchPredicate(format: predicate) }
            request.sortCriteria = [SortCriterion("group"), SortCriterion("rank")]
            let recorder = recorder
            controller = try view.performAndWait {
                let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: view,
                    sectionNameKeyPath: "group")
                controller.delegate = recorder
                try controller.performFetch()
                return controller
            }
        }

        /// The ID of the item with `rank` (unique in these scenarios).
        func id(rank: Int64) throws -> ManagedObjectID {
            try background.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Item",
                    predicate: try FetchPredicate(format: "rank == %d", rank))
                return try #require(try background.fetch(request).first).objectID
            }
        }

        /// Makes a change in the view context (processed as one event) or in the background (saved, merged).
        func change(_ body: (ManagedObjectContext) throws -> Void) throws {
            switch route {
            case .local:
                try view.performAndWait {
                    try body(view)
                    view.processPendingChanges()
                }
            case .merge:
                let save = try background.performAndWait { () throws -> ContextDidSave? in
                    try body(background)
                    return try background.saveCapturingDidSave()
                }
                view.performAndWait { if let save { view.mergeChanges(fromContextDidSave: save) } }
            }
        }

        var last: SectionedChangeset? { recorder.batches.last?.changeset }
        var sectionNames: [String] { view.performAndWait { controller.sectionNames } }
    }

    static let everyWay: [(StoreKind, ChangeRoute)] = [(.sqlite, .local), (.sqlite, .merge), (.inMemory, .local), (.inMemory, .merge)]

    @Test(arguments: everyWay)
    func scenario1InsertIntoNoSections(kind: StoreKind, route: ChangeRoute) throws {
        let harness = try Harness(kind, route)
        try harness.change { context in
            let item = try context.insertNewObject(forEntityName: "Item")
            item["group"] = "A"
        }
        #expect(harness.last == SectionedChangeset(insertedSections: [0], insertedRows: [IndexPath(row: 0, section: 0)]))
    }

    @Test(arguments: everyWay)
    func scenario2DeleteTheLastObjectOfASection(kind: StoreKind, route: ChangeRoute) throws {
        let harness = try Harness(kind, route, items: [("A", 1), ("B", 2), ("B", 3)])
        let id = try harness.id(rank: 1)
        try harness.change { context in context.delete(try context.existingObject(with: id)) }
        #expect(harness.last == SectionedChangeset(deletedSections: [0], deletedRows: [IndexPath(row: 0, section: 0)]))
    }

    @Test(arguments: everyWay)
    func scenario3SectionKeyChangeIntoALaterSectionIsOneMove(kind: StoreKind, route: ChangeRoute) throws {
        let harness = try Harness(kind, route, items: [("A", 1), ("A", 2), ("C", 3)])
        let id = try harness.id(rank: 1)
        try harness.change { context in try context.existingObject(with: id)["group"] = "C" }
        #expect(harness.last == SectionedChangeset(
            movedRows: [RowMove(from: IndexPath(row: 0, section: 0), to: IndexPath(row: 0, section: 1))]))
    }

    @Test(arguments: everyWay)
    func scenario4SectionKeyChangeIntoANewSectionIsASectionInsertAndAMove(kind: StoreKind, route: ChangeRoute) throws {
        let harness = try Harness(kind, route, items: [("A", 1), ("A", 2)])
        let id = try harness.id(rank: 2)
        try harness.change { context in try context.existingObject(with: id)["group"] = "B" }
        #expect(harness.last == SectionedChangeset(insertedSections: [1],
            movedRows: [RowMove(from: IndexPath(row: 1, section: 0), to: IndexPath(row: 0, section: 1))]))
        #expect(harness.sectionNames == ["A", "B"])
    }

    @Test(arguments: everyWay)
    func scenario5NonSortChangeIsAnUpdate(kind: StoreKind, route: ChangeRoute) throws {
        let harness = try Harness(kind, route, items: [("A", 1), ("A", 2)])
        let id = try harness.id(rank: 2)
        try harness.change { context in try context.existingObject(with: id)["name"] = "renamed" }
        #expect(harness.last == SectionedChangeset(updatedRows: [RowUpdate(from: IndexPath(row: 1, section: 0))]))
    }

    @Test(arguments: everyWay)
    func scenario6SortKeyChangeKeepingTheOrderIsAnUpdateNotAZeroDistanceMove(kind: StoreKind, route: ChangeRoute)
        throws
    {
        let harness = try Harness(kind, route, items: [("A", 1), ("A", 5), ("A", 9)])
        let id = try harness.id(rank: 5)
        try harness.change { context in try context.existingObject(with: id)["rank"] = Int64(6) }
        #expect(harness.last == SectionedChangeset(updatedRows: [RowUpdate(from: IndexPath(row: 1, section: 0))]))
    }

    @Test(arguments: everyWay)
    func scenario7SwappingAdjacentSortKeysIsOneMove(kind: StoreKind, route: ChangeRoute) throws {
        let harness = try Harness(kind, route, items: [("A", 1), ("A", 2), ("A", 3)])
        let (first, second) = (try harness.id(rank: 1), try harness.id(rank: 2))
        try harness.change { context in
            try context.existingObject(with: first)["rank"] = Int64(2)
            try context.existingObject(with: second)["rank"] = Int64(1)
        }
        let changes = try #require(harness.last)
        #expect(changes.movedRows.count == 1, "\(changes)")
        #expect(changes.updatedRows.count == 1, "the other object kept its place: an update")
        #expect(Set(harness.recorder.batches.last?.reportedObjects ?? []).count == 2, "each object once")
    }

    @Test(arguments: StoreKind.allCases)
    func scenario8AnUnregisteredObjectThatStartsMatchingIsInserted(kind: StoreKind) throws {
        let harness = try Harness(kind, .merge, predicate: "flag == YES", items: [("A", 1), ("A", 2)])
        let id = try harness.id(rank: 2)
        harness.view.performAndWait { #expect(harness.view.registeredObject(for: id) == nil) }
        try harness.change { context in try context.existingObject(with: id)["flag"] = true }
        #expect(harness.last == SectionedChangeset(insertedSections: [0], insertedRows: [IndexPath(row: 0, section: 0)]))
    }

    @Test(arguments: everyWay)
    func scenario9AnObjectThatStopsMatchingIsDeleted(kind: StoreKind, route: ChangeRoute) throws {
        let harness = try Harness(kind, route, predicate: "rank < 10", items: [("A", 1), ("A", 2)])
        let id = try harness.id(rank: 1)
        try harness.change { context in try context.existingObject(with: id)["rank"] = Int64(50) }
        #expect(harness.last == SectionedChangeset(deletedRows: [IndexPath(row: 0, section: 0)]))
    }

    // Scenario 10 (a change to a related object read by a key path) is where ObjectGraph differs from Core
    // Data on purpose: FetchedResultsControllerFeatureTests.aChangeToARelatedObjectReevaluatesTheObjectsPointingToIt.

    @Test(arguments: everyWay)
    func scenario11ManyEditsInOneEventAreOneBatch(kind: StoreKind, route: ChangeRoute) throws {
        let harness = try Harness(kind, route, items: [("A", 1), ("B", 2), ("C", 3)])
        let ids = try [1, 2, 3].map { try harness.id(rank: Int64($0)) }
        try harness.change { context in
            for (offset, id) in ids.enumerated() { try context.existingObject(with: id)["rank"] = Int64(10 - offset) }
            let item = try context.insertNewObject(forEntityName: "Item")
            item["group"] = "B"
            context.delete(try context.existingObject(with: ids[0]))
        }
        #expect(harness.recorder.batches.count == 1)
        #expect(harness.recorder.protocolErrors.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func scenario12AResetReportsNoObjectsAndAsksForAFetch(kind: StoreKind) throws {
        let harness = try Harness(kind, .local, items: [("A", 1), ("B", 2)])
        harness.view.performAndWait { harness.view.reset() }
        #expect(harness.recorder.batches.isEmpty)
        try harness.view.performAndWait {
            #expect(harness.controller.numberOfFetchedObjects == 0)
            try harness.controller.performFetch()
            #expect(harness.controller.numberOfFetchedObjects == 2)
        }
    }

    @Test(arguments: everyWay)
    func scenario13AMixedBatchNamesOldAndNewIndexPaths(kind: StoreKind, route: ChangeRoute) throws {
        let harness = try Harness(kind, route, items: (1...6).map { ("A", Int64($0 * 10)) })
        let (first, fourth) = (try harness.id(rank: 10), try harness.id(rank: 40))
        try harness.change { context in
            context.delete(try context.existingObject(with: first))  // row 0
            let item = try context.insertNewObject(forEntityName: "Item")
            item["group"] = "A"
            item["rank"] = Int64(65)  // row 5 after the batch
            try context.existingObject(with: fourth)["name"] = "updated"  // row 3 before, row 2 after
        }
        let changes = try #require(harness.last)
        #expect(changes.deletedRows == [IndexPath(row: 0, section: 0)])
        #expect(changes.insertedRows == [IndexPath(row: 5, section: 0)])
        #expect(changes.updatedRows == [RowUpdate(from: IndexPath(row: 3, section: 0), to: IndexPath(row: 2, section: 0))])
        #expect(throws: Never.self) { try changes.validate(oldRowCounts: [6], newRowCounts: [6]) }
    }

    @Test(arguments: StoreKind.allCases)
    func scenario14SavingNewObjectsReportsNothingAndSnapshotsUseTheCurrentID(kind: StoreKind) throws {
        let harness = try Harness(kind, .local, items: [("A", 1)])
        try harness.view.performAndWait {
            let item = try harness.view.insertNewObject(forEntityName: "Item")
            item["group"] = "A"
            item["rank"] = Int64(2)
            harness.view.processPendingChanges()
            #expect(harness.controller.snapshot().itemIdentifiers.last?.isTemporaryID == true)
            let batches = harness.recorder.batches.count
            try harness.view.save()
            #expect(harness.recorder.batches.count == batches, "no delete and insert for the new ID")
            #expect(harness.controller.snapshot().itemIdentifiers.last == item.objectID)
            #expect(!item.objectID.isTemporaryID)
            #expect(harness.controller.indexPath(forObject: item) == IndexPath(row: 1, section: 0))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func scenario15SectionNamesOutOfOrderFailTheFetch(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let context = stack.context()
        try context.performAndWait {
            for (group, rank) in [("B", 1), ("A", 2), ("B", 3)] {
                let item = try context.insertNewObject(forEntityName: "Item")
                item["group"] = group
                item["rank"] = Int64(rank)
            }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.sortCriteria = [SortCriterion("rank")]
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                sectionNameKeyPath: "group")
            do throws(ObjectGraphError) {
                try controller.performFetch()
                Issue.record("the fetch should fail")
            } catch {
                guard case .sectionsOutOfOrder(let index, let name) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(index == 2 && name == "B")
                #expect("\(error)".contains("out of order section name"))
            }
            let unsorted = FetchedResultsController(fetchRequest: FetchRequest<ManagedObject>(entityName: "Item"),
                managedObjectContext: context)
            #expect(throws: ObjectGraphError.self, "a controller needs sort criteria") { try unsorted.performFetch() }
        }
    }
}
