import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// The fetched-results controller over items held by three stores (SQLite, atomic, in-memory, each holding
/// every entity): the reported changes, applied with UIKit's batch rules, give exactly a fresh fetch's rows;
/// with ``FetchRequest/affectedStores`` the controller shows and tracks only those stores' items. Items tie
/// on their sort keys often, so the store tie-break is exercised in the controller's index.
@Suite struct MultiStoreFetchedResultsTests {
    private static let groups = ["A", "B", "C", "D"]
    private static let names = ["ada", "Åsa", "bo", "Zoë", "zed"]

    private struct Stack {
        let directory = TemporaryDirectory(prefix: "multi-store-frc")
        let coordinator: PersistentStoreCoordinator
        let stores: [PersistentStore]

        init() throws {
            coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
            stores = [
                try coordinator.addPersistentStore(ofType: .sqlite, at: directory.file("items.sqlite")),
                try coordinator.addPersistentStore(ofType: .atomic, at: directory.file("items.store")),
                try coordinator.addPersistentStore(ofType: .inMemory),
            ]
        }

        func context(_ name: String) -> ManagedObjectContext {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            context.name = name
            return context
        }
    }

    private static func controller(
        _ context: ManagedObjectContext, recorder: ChangeRecorder, stores: [PersistentStore]?
    ) throws -> FetchedResultsController<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortCriteria = [SortCriterion("group"), SortCriterion("rank"),
            SortCriterion("name", comparison: .caseAndDiacriticInsensitive)]
        request.affectedStores = stores
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
            sectionNameKeyPath: "group")
        controller.delegate = recorder
        try controller.performFetch()
        return controller
    }

    /// Inserts a random item into a random store, and edits, deletes or leaves each existing one.
    private static func randomEdits(_ context: ManagedObjectContext, stores: [PersistentStore], _ rng: inout SeededRandom)
        throws
    {
        for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: context.delete(item)
            case 1: item["rank"] = Int64.random(in: 0..<3, using: &rng)
            case 2: item["group"] = groups.randomElement(using: &rng)
            case 3: item["name"] = names.randomElement(using: &rng)
            default: break
            }
        }
        for _ in 0..<Int.random(in: 0..<6, using: &rng) {
            let item = try context.insertNewObject(forEntityName: "Item")
            item["group"] = groups.randomElement(using: &rng)
            item["rank"] = Int64.random(in: 0..<3, using: &rng)
            item["name"] = names.randomElement(using: &rng)
            if let store = stores.randomElement(using: &rng) { try context.assign(item, to: store) }
        }
    }

    @Test(arguments: ChangeRoute.allCases, [false, true])
    func reportedChangesApplyToExactlyAFreshFetch(route: ChangeRoute, limited: Bool) throws {
        for seed in UInt64(1)...UInt64(5) {
            var rng = SeededRandom(seed: seed)
            let stack = try Stack()
            let scope = limited ? [stack.stores[1], stack.stores[2]] : nil
            let background = stack.context("import")
            let view = stack.context("view")
            try background.performAndWait {
                for _ in 0..<3 { try Self.randomEdits(background, stores: stack.stores, &rng) }
                try background.save()
            }
            let recorder = ChangeRecorder()
            let controller = try view.performAndWait { try Self.controller(view, recorder: recorder, stores: scope) }
            var rows = view.performAndWait { controller.sectionedIDs }
            let label = "\(route) limited \(limited) seed \(seed)"
            for round in 0..<20 {
                var save: ContextDidSave?
                if route == .merge {
                    save = try background.performAndWait {
                        try Self.randomEdits(background, stores: stack.stores, &rng)
                        return try background.saveCapturingDidSave()
                    }
                }
                let before = recorder.batches.count
                try view.performAndWait {
                    switch route {
                    case .merge: if let save { view.mergeChanges(fromContextDidSave: save) }
                    case .local:
                        try Self.randomEdits(view, stores: stack.stores, &rng)
                        view.processPendingChanges()
                    }
                    let fresh = try Self.controller(view, recorder: ChangeRecorder(), stores: scope).sectionedIDs
                    #expect(controller.sectionedIDs == fresh, "\(label) round \(round)")
                    if let scope {
                        let identifiers = Set(scope.map(\.identifier))
                        #expect(fresh.joined().allSatisfy {
                            identifiers.contains(stack.coordinator.storeIdentifier(intendedFor: $0) ?? "")
                        })
                    }
                    guard recorder.batches.count > before, let batch = recorder.batches.last else {
                        #expect(rows == fresh, "\(label) round \(round): rows changed without a callback")
                        return
                    }
                    #expect(recorder.batches.count == before + 1)
                    let applied = batch.changeset.applied(to: rows) { batch.inserted[$0] }
                    #expect(applied == fresh, "\(label) round \(round): \(batch.changeset)")
                    rows = fresh
                }
            }
            #expect(recorder.protocolErrors.isEmpty, "\(recorder.protocolErrors)")
            let storesSeen = Set(rows.joined().compactMap { stack.coordinator.storeIdentifier(intendedFor: $0) })
            #expect(storesSeen.count == (limited ? 2 : 3), "\(label): the rows came from \(storesSeen.count) stores")
        }
    }

    @Test func aBatchedControllerAndItsCacheWorkOverSeveralStores() throws {
        let stack = try Stack()
        let writer = stack.context("writer")
        var rng = SeededRandom(seed: 42)
        try writer.performAndWait {
            for _ in 0..<5 { try Self.randomEdits(writer, stores: stack.stores, &rng) }
            try writer.save()
        }
        let view = stack.context("view")
        try view.performAndWait {
            let plain = try Self.controller(view, recorder: ChangeRecorder(), stores: nil).sectionedIDs
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.sortCriteria = [SortCriterion("group"), SortCriterion("rank"),
                SortCriterion("name", comparison: .caseAndDiacriticInsensitive)]
            request.fetchBatchSize = 4
            let batched = FetchedResultsController(fetchRequest: request, managedObjectContext: view,
                sectionNameKeyPath: "group")
            try batched.performFetch()
            #expect(batched.sectionedIDs == plain)
            #expect(!plain.isEmpty)
        }
    }
}
