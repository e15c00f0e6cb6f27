import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// The property-based oracle of the fetched-results controller: seeded random batches of inserts,
/// deletes, sort-key, section-key and predicate-membership changes — made in the controller's context or
/// saved in background contexts and merged (including objects the controller's context never
/// registered) — and after every batch:
/// 1. the reported changes, applied with UIKit's batch semantics to the previous rows, give the
///    controller's new rows;
/// 2. those equal a fresh fetch;
/// 3. no object is reported twice (so never an update and a move), and no move starts and ends at the
///    same index path within one section.
@Suite struct FetchedResultsOracleTests {
    /// One way of setting up the controller.
    struct Setup: CustomTestStringConvertible, Sendable {
        let name: String
        var sections: SectionNamingChoice = .group
        var predicate: String? = nil
        var batchSize = 0
        var merged = true
        var backgroundContexts = 1
        var testDescription: String { name }
    }

    enum SectionNamingChoice: Sendable {
        case none, group, nameInitial
    }

    static let setups: [Setup] = [
        Setup(name: "sections by group, merged"),
        Setup(name: "sections by group, predicate, merged from two contexts", predicate: "flag == NO OR rank >= 3",
            backgroundContexts: 2),
        Setup(name: "derived sections, local edits", sections: .nameInitial, merged: false),
        Setup(name: "no sections, batched, predicate, merged", sections: .none, predicate: "rank != 2", batchSize: 3),
        Setup(name: "sections by group, batched, local edits", batchSize: 5, merged: false),
    ]

    @Test(arguments: setups)
    func everyBatchAppliesToAFreshFetch(setup: Setup) throws {
        var batches = 0
        for seed in UInt64(1)...UInt64(12) {
            batches += try run(setup, seed: seed, rounds: 60)
        }
        #expect(batches >= 400, "the oracle saw \(batches) non-empty batches")
    }

    private static let groups = ["A", "B", "C", "D", "E"]
    private static let names = ["ada", "Åsa", "bo", "émile", "Zoë", "zed", "ola", "ølaf", "Ada", "béa"]

    private func makeController(_ setup: Setup, _ context: ManagedObjectContext, _ delegate: ChangeRecorder?)
        throws -> FetchedResultsController<ManagedObject>
    {
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        if let predicate = setup.predicate { request.predicate = try FetchPredicate(format: predicate) }
        request.fetchBatchSize = setup.batchSize
        let naming: SectionNaming?
        switch setup.sections {
        case .none:
            request.sortCriteria = [SortCriterion("rank"), SortCriterion("name", comparison: .caseAndDiacriticInsensitive)]
            naming = nil
        case .group:
            request.sortCriteria = [SortCriterion("group"), SortCriterion("rank")]
            naming = .keyPath("group")
        case .nameInitial:
            request.sortCriteria = [SortCriterion("name", comparison: .caseAndDiacriticInsensitive), SortCriterion("rank")]
            naming = .derived(from: ["name"]) { StringFolding.initial($0[0].stringValue ?? "") }
        }
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
            sectionNaming: naming)
        controller.delegate = delegate
        try controller.performFetch()
        return controller
    }

    private func randomize(_ item: ManagedObject, _ rng: inout SeededRandom) {
        item["group"] = Self.groups[Int.random(in: 0..<Self.groups.count, using: &rng)]
        item["rank"] = Int64.random(in: 0..<4, using: &rng)
        item["name"] = Self.names[Int.random(in: 0..<Self.names.count, using: &rng)]
        item["flag"] = Bool.random(using: &rng)
    }

    private func randomEdits(in context: ManagedObjectContext, _ rng: inout SeededRandom) throws {
        let items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        let share = Int.random(in: 2...8, using: &rng)
        for item in items where Int.random(in: 0..<share, using: &rng) == 0 {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: context.delete(item)
            case 1: item["rank"] = Int64.random(in: 0..<4, using: &rng)
            case 2: item["group"] = Self.groups[Int.random(in: 0..<Self.groups.count, using: &rng)]
            case 3: item["flag"] = !(item["flag"] ?? false)
            case 4: item["name"] = Self.names[Int.random(in: 0..<Self.names.count, using: &rng)]
            default: item["rank"] = item["rank"] ?? Int64(0)  // a no-op write
            }
        }
        for _ in 0..<Int.random(in: 0..<5, using: &rng) {
            randomize(try context.insertNewObject(forEntityName: "Item"), &rng)
        }
    }

    /// Makes one change in the view context, then checks the controller against a fresh fetch and the
    /// recorded batch against the rows before it; true when the change produced a batch.
    private func check(
        _ setup: Setup, stack: TestStack, view: ManagedObjectContext, controller: AnyFetchedResultsController,
        recorder: ChangeRecorder, rows: inout [[ManagedObjectID]], names: inout [String], label: String,
        change: () throws -> Void
    ) throws -> Bool {
        let before = recorder.batches.count
        var previousRows = rows
        let previousNames = names
        let result = try view.performAndWait { () throws -> Bool in
            try change()
            let fresh: [[ManagedObjectID]]
            let freshNames: [String]
            let fetched: [ManagedObjectID]
            let request = controller.fetchRequest
            if setup.merged {
                // Checked in another context, so the view context keeps only what the controller and the
                // merges keep (merged objects nobody holds are forgotten, and must still be tracked).
                let other = stack.context(name: "oracle")
                (fresh, freshNames, fetched) = try other.performAndWait {
                    let oracle = try makeController(setup, other, nil)
                    return (oracle.sectionedIDs, oracle.sectionNames,
                        try other.fetch(request).map(\.objectID))
                }
            } else {
                let oracle = try makeController(setup, view, nil)
                (fresh, freshNames) = (oracle.sectionedIDs, oracle.sectionNames)
                fetched = try view.fetch(request).map(\.objectID)
            }
            // The controllers' own order is the store's: a plain fetch with the same request agrees.
            #expect(fetched == fresh.flatMap { $0 }, "\(label): the controller's order differs from a fetch's")
            defer {
                previousRows = fresh
            }
            #expect(controller.sectionedIDs == fresh, "\(label): the controller differs from a fresh fetch")
            #expect(controller.sectionNames == freshNames, "\(label): section names differ from a fresh fetch")
            let batchCount = recorder.batches.count - before
            #expect(batchCount <= 1, "\(label): \(batchCount) batches for one change")
            guard batchCount == 1, let batch = recorder.batches.last else {
                #expect(previousRows == fresh, "\(label): rows changed without a callback")
                return false
            }
            #expect(Set(batch.reportedObjects).count == batch.reportedObjects.count, "\(label): an object reported twice")
            for move in batch.changeset.movedRows where move.from == move.to {
                #expect(previousNames[move.from.section] != freshNames[move.to.section],
                    "\(label): a move to the same index path \(move.from)")
            }
            #expect(throws: Never.self, "\(label)") {
                try batch.changeset.validate(oldRowCounts: previousRows.map(\.count), newRowCounts: fresh.map(\.count))
            }
            let applied = batch.changeset.applied(to: previousRows) { batch.inserted[$0] }
            #expect(applied == fresh, "\(label): applying \(batch.changeset) does not give the new rows")
            return true
        }
        rows = previousRows
        names = view.performAndWait { controller.sectionNames }
        return result
    }

    /// Runs `rounds` random batches; returns how many produced callbacks.
    private func run(_ setup: Setup, seed: UInt64, rounds: Int) throws -> Int {
        var rng = SeededRandom(seed: seed)
        let stack = try TestStack(.inMemory)
        let view = stack.context(name: "view")
        let backgrounds = (0..<setup.backgroundContexts).map { stack.context(name: "import \($0)") }
        for background in backgrounds { background.mergePolicy = .mergeByPropertyObjectTrump }
        try backgrounds[0].performAndWait {
            for _ in 0..<Int.random(in: 0..<30, using: &rng) {
                randomize(try backgrounds[0].insertNewObject(forEntityName: "Item"), &rng)
            }
            try backgrounds[0].save()
        }
        let recorder = ChangeRecorder()
        let controller = try view.performAndWait { try makeController(setup, view, recorder) }
        var rows = view.performAndWait { controller.sectionedIDs }
        var names = view.performAndWait { controller.sectionNames }
        var reported = 0
        let label = "\(setup.name), seed \(seed)"

        for round in 0..<rounds {
            // Merged setups: each background context saves, and each save is merged as its own batch
            // (the second background's edits may overwrite objects the first just saved).
            let steps = setup.merged ? backgrounds.count : 1
            for step in 0..<steps {
                var save: ContextDidSave?
                if setup.merged {
                    let background = backgrounds[step]
                    save = try background.performAndWait { () throws -> ContextDidSave? in
                        try randomEdits(in: background, &rng)
                        return try background.saveCapturingDidSave()
                    }
                }
                let at = "\(label) round \(round) step \(step)"
                if try check(setup, stack: stack, view: view, controller: controller, recorder: recorder,
                    rows: &rows, names: &names, label: at, change: {
                        if setup.merged {
                            if let save { view.mergeChanges(fromContextDidSave: save) }
                        } else {
                            try randomEdits(in: view, &rng)
                            view.processPendingChanges()
                        }
                    })
                {
                    reported += 1
                }
            }
        }
        #expect(recorder.protocolErrors.isEmpty, "\(label): \(recorder.protocolErrors)")
        return reported
    }

}

extension AnyFetchedResultsController {
    /// The section names, in order.
    var sectionNames: [String] { (0..<numberOfSections).compactMap(sectionName(at:)) }
}
