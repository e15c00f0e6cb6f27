import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// The controller's oracle with ties: sort keys drawn from a few values (the request sorts by group alone, or
/// by group and a two-valued rank), so that most results tie and their IDs order them. Seeded random steps in
/// the controller's own context — inserts, edits, deletes, saves, `obtainPermanentIDs(for:)` on some unsaved
/// objects (alone or with edits) — and merges of a background context's inserts; after every step, each of a
/// classic, a snapshot and a difference controller (batched or not) must equal a fresh fetch, and what it
/// reported, applied to what it showed before (UIKit's rules, object by object across ID changes), must give
/// that fetch.
@Suite struct TiedResultsOracleTests {
    struct Setup: CustomTestStringConvertible, Sendable {
        let store: StoreKind
        let batchSize: Int
        let byRank: Bool
        /// The controllers' context is a child of a root context: its saves push into the parent, whose saves
        /// give the pushed objects the permanent IDs that reach the child.
        var child = false
        var testDescription: String {
            "\(store.rawValue), batch size \(batchSize), \(byRank ? "group and rank" : "group alone")"
                + (child ? ", in a child context" : "")
        }
    }

    static let setups: [Setup] = [StoreKind.sqlite, .inMemory].flatMap { store in
        [0, 3].flatMap { batchSize in [false, true].map { Setup(store: store, batchSize: batchSize, byRank: $0) } }
            + [0, 3].map { Setup(store: store, batchSize: $0, byRank: false, child: true) }
    }

    @Test(arguments: setups)
    func everyStepWithTiesMatchesAFreshFetch(setup: Setup) throws {
        var heard = 0
        for seed in UInt64(1)...UInt64(6) {
            heard += try run(setup, seed: seed, rounds: 40)
        }
        #expect(heard >= 150, "the probes heard of \(heard) changes")
    }

    private static let groups = ["A", "B", "C"]

    private func randomize(_ item: ManagedObject, _ rng: inout SeededRandom) {
        item["group"] = Self.groups[Int.random(in: 0..<Self.groups.count, using: &rng)]
        item["rank"] = Int64.random(in: 0..<2, using: &rng)
        item["flag"] = Int.random(in: 0..<4, using: &rng) != 0
    }

    /// Runs `rounds` random steps; returns how many times a probe heard of a change.
    private func run(_ setup: Setup, seed: UInt64, rounds: Int) throws -> Int {
        var rng = SeededRandom(seed: seed)
        let stack = try TestStack(setup.store)
        let parent = stack.context(name: "parent")
        let view = setup.child ? child(of: parent, name: "view") : stack.context(name: "view")
        let background = stack.context(name: "background")
        let ledger = IdentityLedger()
        try background.performAndWait {
            for _ in 0..<Int.random(in: 0..<12, using: &rng) {
                randomize(try background.insertNewObject(forEntityName: "Item"), &rng)
            }
            try background.save()
        }
        let label = "\(setup.testDescription), seed \(seed)"
        let probes = try view.performAndWait {
            try DelegateKind.allCases.map {
                try TiedResultsProbe($0, context: view, ledger: ledger, byRank: setup.byRank,
                    batchSize: setup.batchSize, label: label)
            }
        }
        var heard = 0
        func check(_ step: String) throws {
            for probe in probes where try probe.check(step) { heard += 1 }
        }
        for round in 0..<rounds {
            let choice = Int.random(in: 0..<7, using: &rng)
            let step = "round \(round), step \(choice)"
            if choice == 6, setup.child {
                // The parent saves what the child pushed: permanent IDs reach the child.
                try parent.performAndWait { try parent.save() }
                try view.performAndWait {
                    view.processPendingChanges()
                    try check(step + " (the parent saved)")
                }
                continue
            }
            if choice == 6 {
                // A background context saves tied objects; the view merges them.
                let save = try background.performAndWait { () throws -> ContextDidSave? in
                    for _ in 0..<Int.random(in: 1...3, using: &rng) {
                        randomize(try background.insertNewObject(forEntityName: "Item"), &rng)
                    }
                    return try background.saveCapturingDidSave()
                }
                try view.performAndWait {
                    if let save { view.mergeChanges(fromContextDidSave: save) }
                    try check(step + " (merge)")
                }
                continue
            }
            try view.performAndWait {
                let items = try view.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
                for item in items { ledger.hold(item) }
                let unsaved = items.filter { $0.isInserted && $0.objectID.isTemporaryID }
                switch choice {
                case 0, 1:
                    for _ in 0..<Int.random(in: 1...4, using: &rng) {
                        let item = try view.insertNewObject(forEntityName: "Item")
                        randomize(item, &rng)
                        ledger.hold(item)
                    }
                    view.processPendingChanges()
                case 2:
                    for item in items where Int.random(in: 0..<5, using: &rng) == 0 {
                        switch Int.random(in: 0..<4, using: &rng) {
                        case 0: view.delete(item)
                        case 1: item["flag"] = !(item["flag"] ?? false)
                        case 2: item["group"] = Self.groups[Int.random(in: 0..<Self.groups.count, using: &rng)]
                        default: item["rank"] = Int64.random(in: 0..<2, using: &rng)
                        }
                    }
                    view.processPendingChanges()
                case 3:
                    try view.save()
                case 4, 5:
                    let some = unsaved.filter { _ in Bool.random(using: &rng) }
                    try view.obtainPermanentIDs(for: some)
                    if choice == 5, let item = items.randomElement(using: &rng), !item.isDeleted {
                        item["flag"] = !(item["flag"] ?? false)
                    }
                    view.processPendingChanges()
                default:
                    break
                }
                try check(step)
            }
        }
        return heard
    }
}
