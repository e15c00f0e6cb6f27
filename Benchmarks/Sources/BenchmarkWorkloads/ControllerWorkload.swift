import Foundation
import ObjectGraph

/// Workload 3: one saved change batch — 500 inserts, 250 deletes, 250 sort- or section-key updates, 1000
/// non-key updates — merged into the main context of a controller over `count` people in 26 sections, timed
/// from `mergeChanges(fromContextDidSave:)` until the delegate's `controllerDidChangeContent` returns.
public enum ControllerWorkload {
    /// The batch's shape.
    public static let inserts = 500, deletes = 250, keyUpdates = 250, plainUpdates = 1000

    /// The non-key updates of a batch into `count` objects: 1000, or as many as a small list has left (a 1k
    /// controller gets 500 inserts, 250 deletes, 250 key updates and the remaining 500 objects updated).
    public static func plainUpdates(among count: Int) -> Int { min(plainUpdates, count - deletes - keyUpdates) }

    /// Per-round timings in seconds.
    public struct Result: Sendable {
        /// Merge call until the delegate's did-change returned.
        public var mergeToDidChange: [Double] = []
        /// The controller's first `performFetch()`.
        public var initialFetch = 0.0
        /// Object changes the delegate heard in the last round.
        public var lastObjectChanges = 0
    }

    /// Runs `rounds` batches against a copy of a store of `count` people. Call off the main thread with the
    /// main queue running.
    public static func objectGraph(count: Int, rounds: Int, batchSize: Int = 0) throws -> Result {
        let file = try StoreFile.filled("people-\(count)", index: .name, count: count).copy(as: "controller-\(count)")
        defer { file.remove() }
        let coordinator = try file.coordinator()
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        view.persistentStoreCoordinator = coordinator
        let worker = ManagedObjectContext(concurrencyType: .privateQueue)
        worker.persistentStoreCoordinator = coordinator
        let delegate = ListDelegate()
        var result = Result()
        let controller = try MainQueue.sync {
            let controller = makeListController(view, batchSize: batchSize)
            controller.delegate = delegate
            result.initialFetch = try Measure.seconds { try controller.performFetch() }
            return controller
        }
        var ids = try worker.performAndWait { try worker.fetchObjectIDs(PersonModel.listRequest()) }
        var generator = PersonGenerator(seed: 7)
        let saved = Saved()
        let token = worker.addDidSaveObserver { save in saved.value = save }
        defer { _ = token }
        for _ in 0..<rounds {
            try worker.performAndWait {
                try makeBatch(in: worker, ids: &ids, generator: &generator)
                try worker.save()
                worker.reset()
            }
            guard let save = saved.value else { throw RawSQLiteError(description: "no did-save from the worker") }
            ids.append(contentsOf: save.insertedObjectIDs)
            let (elapsed, changes) = MainQueue.sync {
                var end: UInt64 = 0
                delegate.objectChanges = 0
                delegate.onDidChange = { end = Measure.now() }
                let start = Measure.now()
                view.mergeChanges(fromContextDidSave: save)
                delegate.onDidChange = nil
                return (Double(end - start) / 1e9, delegate.objectChanges)
            }
            result.mergeToDidChange.append(elapsed)
            result.lastObjectChanges = changes
        }
        let held = MainQueue.sync { controller.numberOfFetchedObjects }
        let expected = count + rounds * (inserts - deletes)
        guard held == expected else {
            throw RawSQLiteError(description: "controller holds \(held) people, expected \(expected)")
        }
        return result
    }

    final class Saved: @unchecked Sendable { var value: ContextDidSave? }

    /// Makes one batch in `worker` (on its queue): distinct random victims from `ids`.
    static func makeBatch(
        in worker: ManagedObjectContext, ids: inout [ManagedObjectID], generator: inout PersonGenerator
    ) throws {
        for row in generator.people(inserts) {
            PersonModel.fill(try worker.insertNewObject(forEntityName: PersonModel.entityName), from: row)
        }
        var victims: [ManagedObjectID] = []
        for _ in 0..<(deletes + keyUpdates + plainUpdates(among: ids.count)) {
            let index = generator.below(ids.count)
            victims.append(ids[index])
            ids.swapAt(index, ids.count - 1)
            ids.removeLast()
        }
        for id in victims[0..<deletes] { worker.delete(try worker.object(with: id)) }
        for (offset, id) in victims[deletes..<(deletes + keyUpdates)].enumerated() {
            let object = try worker.object(with: id)
            let section = object.value(forKey: "section").stringValue ?? "A"
            if offset.isMultiple(of: 2) {
                // Sort key within the section.
                object.setValue(.string(generator.lastName(initial: section.first)), forKey: "lastName")
            } else {
                // Into another section.
                let name = generator.lastName()
                object.setValue(.string(name), forKey: "lastName")
                object.setValue(.string(String(name.prefix(1))), forKey: "section")
            }
        }
        for id in victims[(deletes + keyUpdates)...] {
            let object = try worker.object(with: id)
            object.setValue(.integer((object.value(forKey: "age").int64Value ?? 0) + 1), forKey: "age")
        }
        // Deleted objects go; the updated ones stay candidates for later rounds.
        ids.append(contentsOf: victims[deletes...])
    }

    /// The naive alternative, same sizes and batch: keep the sorted rows as structs, apply the batch, re-sort
    /// the whole array with the standard library and diff old against new identifiers with
    /// `difference(from:)`. Seconds per round.
    public static func naive(count: Int, rounds: Int) -> [Double] {
        struct Row: Comparable {
            var lastName: String, firstName: String, section: String, key: Int64
            static func < (a: Row, b: Row) -> Bool {
                (a.lastName, a.firstName, a.key) < (b.lastName, b.firstName, b.key)
            }
        }
        var generator = PersonGenerator(seed: 1)
        var rows = generator.people(count).enumerated().map {
            Row(lastName: $1.lastName, firstName: $1.firstName, section: $1.section, key: Int64($0 + 1))
        }
        rows.sort()
        var nextKey = Int64(count + 1)
        var times: [Double] = []
        for _ in 0..<rounds {
            // The change set, as a merge would receive it.
            var changed: [Int64: Row?] = [:]
            var picked = Set<Int>()
            while picked.count < deletes + keyUpdates + plainUpdates(among: rows.count) { picked.insert(generator.below(rows.count)) }
            for (offset, index) in picked.enumerated() {
                var row = rows[index]
                if offset < deletes {
                    changed[row.key] = .some(nil)
                } else if offset < deletes + keyUpdates {
                    row.lastName = generator.lastName()
                    row.section = String(row.lastName.prefix(1))
                    changed[row.key] = row
                } else {
                    changed[row.key] = row  // a non-key update: same keys
                }
            }
            let inserted = generator.people(inserts).map { person -> Row in
                nextKey += 1
                return Row(lastName: person.lastName, firstName: person.firstName, section: person.section, key: nextKey)
            }
            let old = rows
            let start = Measure.now()
            var next: [Row] = []
            next.reserveCapacity(old.count + inserted.count)
            for row in old {
                if let change = changed[row.key] {
                    if let updated = change { next.append(updated) }
                } else {
                    next.append(row)
                }
            }
            next.append(contentsOf: inserted)
            next.sort()
            let difference = next.map(\.key).difference(from: old.map(\.key)).inferringMoves()
            times.append(Double(Measure.now() - start) / 1e9)
            precondition(difference.count >= inserts + deletes, "the diff lost changes: \(difference.count)")
            rows = next
        }
        return times
    }
}
