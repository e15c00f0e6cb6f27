import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// Objects with equal sort keys are ordered by their IDs, permanent before temporary (the documented tie
/// rule). When their IDs change — a save, `obtainPermanentIDs(for:)`, a parent's save reaching a child — a
/// controller must end up exactly where a fresh fetch is, hear of a real reordering, and hear nothing else.
@Suite struct TiedPermanentIDTests {
    /// Defect 1 of issue 32: six tied objects saved from the controller's own context all take their
    /// permanent IDs (in place: their order is unchanged), and nothing is reported afterwards for them.
    @Test(arguments: DelegateKind.allCases, [StoreKind.sqlite, .inMemory])
    func tiedObjectsSavedInTheControllersContextTakeTheirPermanentIDs(kind: DelegateKind, store: StoreKind) throws {
        // (The old failure depended on hash order: several rounds make it all but certain.)
        for round in 0..<4 {
            let stack = try TestStack(store)
            let context = stack.context()
            try context.performAndWait {
                let ledger = IdentityLedger()
                let probe = try TiedResultsProbe(kind, context: context, ledger: ledger, label: "round \(round)")
                for _ in 0..<6 { try insertItem(context, ledger: ledger) }
                context.processPendingChanges()
                try probe.check("six tied inserts")
                let callbacks = probe.callbackCount
                try context.save()
                try probe.check("save")
                let ids = probe.controller.fetchedObjectIDs ?? []
                #expect(ids.count == 6 && ids.allSatisfy { !$0.isTemporaryID }, "permanent IDs after the save: \(ids)")
                for id in ids { #expect(context.registeredObject(for: id) != nil) }
                for row in 0..<6 {
                    let id = probe.controller.objectID(at: IndexPath(row: row, section: 0))
                    #expect(id.map { !$0.isTemporaryID } == true)
                }
                if kind == .classic || kind == .changeset {
                    #expect(probe.callbackCount == callbacks, "the save reported nothing")
                }
                let heardSave = probe.callbackCount
                try insertItem(context, visible: false, ledger: ledger)
                context.processPendingChanges()
                #expect(try !probe.check("a hidden insert"), "nothing visible changed")
                #expect(probe.callbackCount == heardSave)
            }
        }
    }

    /// Defect 2 of issue 32: `obtainPermanentIDs(for:)` on one of four tied objects puts it first (permanent
    /// before temporary), and the controller reports that move with the next processing.
    @Test(arguments: DelegateKind.allCases, [StoreKind.sqlite, .inMemory])
    func obtainingAPermanentIDMovesATiedObjectFirst(kind: DelegateKind, store: StoreKind) throws {
        let stack = try TestStack(store)
        let context = stack.context()
        try context.performAndWait {
            let ledger = IdentityLedger()
            let probe = try TiedResultsProbe(kind, context: context, ledger: ledger)
            let items = try (0..<4).map { _ in try insertItem(context, ledger: ledger) }
            context.processPendingChanges()
            try probe.check("four tied inserts")
            try context.obtainPermanentIDs(for: [items[2]])
            context.processPendingChanges()
            #expect(try probe.check("obtainPermanentIDs"), "the reordering was reported")
            #expect(probe.controller.fetchedObjectIDs == [2, 0, 1, 3].map { items[$0].objectID })
            if kind == .classic || kind == .changeset {
                let moves = probe.lastChangeset?.movedRows ?? []
                #expect(moves == [RowMove(from: IndexPath(row: 2, section: 0), to: IndexPath(row: 0, section: 0))])
                #expect(probe.lastChangeset?.updatedRows.isEmpty == true)
            }
            try context.save()
            try probe.check("save")
            #expect(probe.controller.fetchedObjectIDs == [2, 0, 1, 3].map { items[$0].objectID })
            items[0]["name"] = "renamed"
            context.processPendingChanges()
            try probe.check("an edit")
        }
    }

    /// Several of a tied run take permanent IDs at once, in an order that is not the run's: the run is
    /// re-placed as a whole.
    @Test(arguments: DelegateKind.allCases)
    func obtainingPermanentIDsForPartOfATiedRunReplacesIt(kind: DelegateKind) throws {
        let stack = try TestStack(.sqlite)
        let context = stack.context()
        try context.performAndWait {
            let ledger = IdentityLedger()
            let probe = try TiedResultsProbe(kind, context: context, ledger: ledger)
            let items = try (0..<6).map { _ in try insertItem(context, ledger: ledger) }
            try insertItem(context, group: "B", ledger: ledger)
            context.processPendingChanges()
            try probe.check("inserts")
            try context.obtainPermanentIDs(for: [items[4], items[1]])
            context.processPendingChanges()
            try probe.check("obtainPermanentIDs for two")
            try context.obtainPermanentIDs(for: [items[5]])
            items[3]["rank"] = Int64(7)  // a change in the same batch that moves nothing (rank does not sort)
            context.processPendingChanges()
            try probe.check("obtainPermanentIDs for one more, with an edit")
            try context.save()
            try probe.check("save")
        }
    }

    /// A controller on a child context: the parent's save (or `obtainPermanentIDs`) gives the pushed tied
    /// objects permanent IDs, which reach the child; its controller follows.
    @Test(arguments: DelegateKind.allCases, [false, true])
    func aChildsControllerFollowsTheParentsPermanentIDs(kind: DelegateKind, obtainFirst: Bool) throws {
        let stack = try TestStack(.sqlite)
        let parent = stack.context(name: "parent")
        let view = child(of: parent, name: "view")
        let ledger = IdentityLedger()
        let probe = try view.performAndWait { try TiedResultsProbe(kind, context: view, ledger: ledger) }
        let ids = try view.performAndWait {
            let items = try (0..<6).map { _ in try insertItem(view, ledger: ledger) }
            view.processPendingChanges()
            try probe.check("six tied inserts")
            try view.save()
            try probe.check("pushed to the parent")
            return items.map(\.objectID)
        }
        try parent.performAndWait {
            if obtainFirst {
                let objects = [ids[3], ids[1]].compactMap { parent.registeredObject(for: $0) }
                #expect(objects.count == 2)
                try parent.obtainPermanentIDs(for: objects)
            } else {
                try parent.save()
            }
        }
        try view.performAndWait {
            view.processPendingChanges()
            try probe.check("the parent's permanent IDs reached the child")
            let hidden = try insertItem(view, visible: false, ledger: ledger)
            view.processPendingChanges()
            let heard = try probe.check("a hidden insert")
            if !obtainFirst { #expect(!heard, "nothing visible changed") }
            view.delete(hidden)
            try view.save()
            try probe.check("the child saves again")
        }
        try parent.performAndWait { try parent.save() }
        try view.performAndWait {
            view.processPendingChanges()
            try probe.check("the parent saved")
            #expect(probe.controller.fetchedObjectIDs?.allSatisfy { !$0.isTemporaryID } == true)
        }
    }

    /// Saved objects merged in from a background context tie with the controller's unsaved ones (and sort
    /// first); then the unsaved ones take permanent IDs in turn.
    @Test(arguments: DelegateKind.allCases, [StoreKind.sqlite, .inMemory])
    func backgroundMergesTieWithUnsavedObjects(kind: DelegateKind, store: StoreKind) throws {
        let stack = try TestStack(store)
        let view = stack.context(name: "view")
        let background = stack.context(name: "background")
        let ledger = IdentityLedger()
        let probe = try view.performAndWait { try TiedResultsProbe(kind, context: view, ledger: ledger) }
        let items = try view.performAndWait {
            let items = try (0..<4).map { _ in try insertItem(view, ledger: ledger) }
            view.processPendingChanges()
            try probe.check("four tied inserts")
            return items
        }
        func backgroundSave(_ count: Int) throws -> ContextDidSave? {
            try background.performAndWait {
                for _ in 0..<count {
                    let item = try background.insertNewObject(forEntityName: "Item")
                    item["group"] = "A"
                    item["flag"] = true
                }
                return try background.saveCapturingDidSave()
            }
        }
        let first = try backgroundSave(3)
        try view.performAndWait {
            if let first { view.mergeChanges(fromContextDidSave: first) }
            try probe.check("a merge of three tied saved objects")
            try view.obtainPermanentIDs(for: [items[3]])
            view.processPendingChanges()
            try probe.check("obtainPermanentIDs for the last unsaved one")
        }
        let second = try backgroundSave(2)
        try view.performAndWait {
            if let second { view.mergeChanges(fromContextDidSave: second) }
            try probe.check("a second merge")
            try view.save()
            try probe.check("the view saves")
        }
    }
}
