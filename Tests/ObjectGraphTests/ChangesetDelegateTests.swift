import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// A changeset delegate gets each batch as the one ``SectionedChangeset`` that a classic delegate's calls
/// describe: two controllers over the same request, one of each kind, hear the same batches.
@Suite struct ChangesetDelegateTests {
    @Test(arguments: [0, 4], [StoreKind.sqlite, .inMemory])
    func aChangesetDelegateHearsWhatTheCallsSay(batchSize: Int, store: StoreKind) throws {
        for seed in UInt64(1)...UInt64(8) {
            var rng = SeededRandom(seed: seed)
            let stack = try TestStack(store)
            let view = stack.context(name: "view")
            let worker = stack.context(name: "worker")
            view.mergePolicy = .mergeByPropertyObjectTrump
            worker.mergePolicy = .mergeByPropertyObjectTrump
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.sortCriteria = [SortCriterion("group"), SortCriterion("rank")]
            request.predicate = try FetchPredicate(format: "flag == NO OR rank >= 2")
            request.fetchBatchSize = batchSize
            let classic = ChangeRecorder()
            let changesets = ChangesetCollector()
            let controllers = try view.performAndWait {
                try [classic as FetchedResultsControllerDelegate, changesets].map { delegate in
                    let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: view,
                        sectionNameKeyPath: "group")
                    controller.delegate = delegate
                    try controller.performFetch()
                    return controller
                }
            }
            for round in 0..<30 {
                if round.isMultiple(of: 3) {
                    let save = try worker.performAndWait { () throws -> ContextDidSave? in
                        try RandomItems.edit(in: worker, &rng)
                        return try worker.saveCapturingDidSave()
                    }
                    view.performAndWait { if let save { view.mergeChanges(fromContextDidSave: save) } }
                } else {
                    try view.performAndWait {
                        try RandomItems.edit(in: view, &rng)
                        view.processPendingChanges()
                        if round.isMultiple(of: 4) { try view.save() }
                    }
                }
                view.performAndWait {
                    #expect(controllers[0].sectionedIDs == controllers[1].sectionedIDs, "seed \(seed) round \(round)")
                }
            }
            #expect(classic.batches.count >= 10, "seed \(seed): \(classic.batches.count) batches")
            #expect(classic.batches.map(\.changeset) == changesets.changesets, "seed \(seed)")
            #expect(changesets.perChangeCalls == 0)
            #expect(classic.protocolErrors.isEmpty)
        }
    }
}
