import Foundation
import Testing
@testable import ObjectGraph

/// What one ``ObjectsDidChange`` tells observers: each changed object under exactly one kind.
@Suite struct ObjectsDidChangeTests {
    /// The kinds each object was reported under, by object, for every change the context posts.
    final class Reports {
        var kinds: [[ObjectIdentifier: [String]]] = []

        func record(_ change: ObjectsDidChange) {
            var kinds: [ObjectIdentifier: [String]] = [:]
            for (kind, objects) in [("inserted", change.insertedObjects), ("updated", change.updatedObjects),
                ("deleted", change.deletedObjects), ("refreshed", change.refreshedObjects)]
            {
                for object in objects { kinds[ObjectIdentifier(object), default: []].append(kind) }
            }
            self.kinds.append(kinds)
        }
    }

    @Test func anObjectRefreshedAndThenChangedIsReportedOnlyAsUpdated() throws {
        let stack = try TestStack()
        let context = stack.context()
        let reports = Reports()
        let token = context.addObjectsDidChangeObserver { reports.record($0) }
        let (saved, other) = try context.performAndWait {
            let saved = try context.insertNewObject(forEntityName: "Person")
            saved.setValue(.string("Ada"), forKey: "firstName")
            saved.setValue(.string("King"), forKey: "lastName")
            let other = try context.insertNewObject(forEntityName: "Person")
            other.setValue(.string("Hopper"), forKey: "lastName")
            try context.save()
            reports.kinds.removeAll()

            context.refresh(saved, mergeChanges: true)  // refreshed …
            saved.setValue(.string("Lovelace"), forKey: "lastName")  // … then changed here: an update
            context.refresh(other, mergeChanges: true)  // only refreshed
            context.processPendingChanges()
            return (saved, other)
        }
        withExtendedLifetime(token) {}
        #expect(reports.kinds.count == 1)
        #expect(reports.kinds.first?[ObjectIdentifier(saved)] == ["updated"])
        #expect(reports.kinds.first?[ObjectIdentifier(other)] == ["refreshed"])
    }
}

/// ``PendingChanges`` folds the changes noted for an object by marks on the object, not by hashing: checked
/// against the rules as four identity-keyed dictionaries state them, over every sequence of notes.
@Suite struct PendingChangesFoldingTests {
    typealias Kind = PendingChanges.Kind

    /// The folding rules as they were first written: one dictionary per kind.
    struct DictionaryOracle {
        var inserted: Set<Int> = [], updated: Set<Int> = [], deleted: Set<Int> = [], refreshed: Set<Int> = []

        mutating func note(_ object: Int, _ kind: Kind) {
            switch kind {
            case .inserted:
                deleted.remove(object)
                updated.remove(object)
                refreshed.remove(object)
                inserted.insert(object)
            case .updated:
                guard !inserted.contains(object), !deleted.contains(object) else { return }
                updated.insert(object)
                refreshed.remove(object)
            case .refreshed:
                if !inserted.contains(object), !deleted.contains(object), !updated.contains(object) {
                    refreshed.insert(object)
                }
            case .deleted:
                updated.remove(object)
                refreshed.remove(object)
                if inserted.remove(object) == nil { deleted.insert(object) }
            }
        }

        func objects(_ kind: Kind) -> Set<Int> {
            switch kind {
            case .inserted: inserted
            case .updated: updated
            case .deleted: deleted
            case .refreshed: refreshed
            }
        }
    }

    /// Every sequence of up to four notes spread over two objects (of every kind), and the same notes
    /// again in a second record: each object ends under the kind the oracle gives, in the order first noted.
    @Test func foldsEveryShortSequenceAsTheDictionaryRulesDo() throws {
        let stack = try TestStack()
        let context = stack.context()
        let kinds: [Kind] = [.inserted, .updated, .deleted, .refreshed]
        try context.performAndWait {
            let people = try (0..<2).map { _ in try context.insertNewObject(forEntityName: "Person") }
            var steps: [[(object: Int, kind: Kind)]] = [[]]
            for _ in 0..<4 {
                steps += steps.filter { $0.count == steps.last?.count }.flatMap { prefix in
                    (0..<2).flatMap { object in kinds.map { prefix + [(object, $0)] } }
                }
            }
            #expect(steps.count == 1 + 8 + 64 + 512 + 4096)
            for sequence in steps {
                for _ in 0..<2 {  // a second record starts from nothing, whatever marks the objects carry
                    var record = PendingChanges()
                    var oracle = DictionaryOracle()
                    for (object, kind) in sequence {
                        record.note(people[object], kind)
                        oracle.note(object, kind)
                    }
                    for kind in kinds {
                        let recorded = record.objects(kind).map { object in people.firstIndex { $0 === object } ?? -1 }
                        #expect(Set(recorded) == oracle.objects(kind), "\(sequence) → \(kind)")
                        #expect(recorded.count == record.count(of: kind))
                        let firstNoted = sequence.map(\.object).reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
                        #expect(recorded == firstNoted.filter(oracle.objects(kind).contains), "order: \(sequence)")
                    }
                    #expect(record.isEmpty == kinds.allSatisfy { oracle.objects($0).isEmpty })
                }
            }
        }
    }
}

/// The attributes an event records for each changed object: what lets a fetched-results controller leave an
/// object whose sort and section keys did not change where it is, unread.
@Suite struct EventAttributesTests {
    /// The attributes recorded for `object` by the next ObjectsDidChange of `context`, as indexes.
    final class Catcher {
        var recorded: [ObjectIdentifier: AttributeBits] = [:]
        func record(_ change: ObjectsDidChange) {
            let changes = change.recorded.changes
            for (slot, object) in changes.objects.enumerated() { recorded[ObjectIdentifier(object)] = changes.attributes[slot] }
        }
    }

    @Test func aMergeRecordsTheAttributesWhoseSavedValuesChangedAndASetRecordsItsAttribute() throws {
        let stack = try TestStack()
        let view = stack.context(.privateQueue, name: "view")
        let worker = stack.context(.privateQueue, name: "worker")
        let person = TestModels.person()
        func bits(_ names: String...) -> AttributeBits {
            AttributeBits(indexes: names.compactMap { person.attributeIndex(named: $0) })
        }
        let id = try worker.performAndWait {
            let object = try worker.insertNewObject(forEntityName: "Person")
            object.setValue(.string("Ada"), forKey: "firstName")
            object.setValue(.string("Lovelace"), forKey: "lastName")
            try worker.save()
            return object.objectID
        }
        let catcher = Catcher()
        let token = view.addObjectsDidChangeObserver { catcher.record($0) }
        let viewObject = try view.performAndWait {
            let object = try view.existingObject(with: id)
            _ = object.value(forKey: "lastName")  // loaded, not a fault
            return object
        }
        // Another context changes the age and the city: the merge records those two.
        let save = try worker.performAndWait {
            let saved = Unchecked<ContextDidSave?>(nil)
            let observer = worker.addDidSaveObserver { saved.value = $0 }
            let object = try worker.existingObject(with: id)
            object.setValue(.integer(36), forKey: "age")
            object.setValue(.string("London"), forKey: "city")
            object.setValue(.string("Ada"), forKey: "firstName")  // the same value: not a change
            try worker.save()
            withExtendedLifetime(observer) {}
            return try #require(saved.value)
        }
        view.performAndWait { view.mergeChanges(fromContextDidSave: save) }
        #expect(catcher.recorded[ObjectIdentifier(viewObject)] == bits("age", "city"))

        // A change made here records its attribute, and two changes in one event add up.
        view.performAndWait {
            viewObject.setValue(.string("King"), forKey: "lastName")
            viewObject.setValue(.string("ada@example.org"), forKey: "email")
            view.processPendingChanges()
        }
        #expect(catcher.recorded[ObjectIdentifier(viewObject)] == bits("lastName", "email"))

        // A fault's values were never read: everything may have changed.
        let fault = view.performAndWait {
            view.refresh(viewObject, mergeChanges: false)
            view.processPendingChanges()
            return viewObject
        }
        #expect(catcher.recorded[ObjectIdentifier(fault)] == .all)
        withExtendedLifetime(token) {}
    }
    /// A save's inserted row that this context already read (fetched after the save committed, before the
    /// merge) is still reported as inserted by the merge: a fetch is not a change, so a fetched-results
    /// controller has not heard of it yet. (Seen in the background-fetch tests, where such inserts went
    /// missing from a tracked list.)
    @Test func aMergedInsertAlreadyFetchedHereIsReportedAsInserted() throws {
        let stack = try TestStack()
        let view = stack.context(name: "view")
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortCriteria = [SortCriterion("group"), SortCriterion("rank")]
        request.fetchBatchSize = 4
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: view,
            sectionNameKeyPath: "group")
        let recorder = ChangeRecorder()
        try view.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
        }
        let writer = stack.context(name: "writer")
        let save = try writer.performAndWait {
            let item = try writer.insertNewObject(forEntityName: "Item")
            item["group"] = "A"
            return try writer.saveCapturingDidSave()
        }
        let reports = ObjectsDidChangeTests.Reports()
        let token = view.addObjectsDidChangeObserver { reports.record($0) }
        defer { token.cancel() }
        try view.performAndWait {
            // Read before the merge, values and all: registered, its saved state already the row's.
            let fetched = try view.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
            #expect(fetched.count == 1)
            #expect(fetched.first?["group"] == "A")
            if let save { view.mergeChanges(fromContextDidSave: save) }
            #expect(reports.kinds.last?[ObjectIdentifier(fetched[0])] == ["inserted"])
            #expect(controller.sectionedIDs == [[fetched[0].objectID]])
        }
        #expect(recorder.batches.count == 1)
        #expect(recorder.batches.first?.changeset.insertedRows == [IndexPath(row: 0, section: 0)])
    }
}
