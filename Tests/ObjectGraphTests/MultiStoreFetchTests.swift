import Foundation
import Testing
@testable import ObjectGraph

/// Fetches over an entity held by several stores (SQLite, atomic and in-memory stores side by side): results
/// merged in order with offsets and limits applied after merging, counts summed, IDs-only and dictionary
/// fetches merged, ``FetchRequest/affectedStores``, and new objects routed to the first store or the one
/// ``ManagedObjectContext/assign(_:to:)`` chose. The oracle of the differential tests is the same objects in
/// one store.
@Suite struct MultiStoreFetchTests {
    /// Fills a stack of one store and a stack of several with the same records (in random stores of the
    /// second), and makes the same unsaved changes in one context of each when `pending` is set.
    private static func twinStacks(seed: UInt64, records: Int, pending: Bool) throws
        -> (single: MultiStoreStack, multi: MultiStoreStack, singleContext: ManagedObjectContext,
            multiContext: ManagedObjectContext)
    {
        let single = try MultiStoreStack([.sqlite])
        let multi = try MultiStoreStack([.sqlite, .atomic, .inMemory])
        var rng = SeededRandom(seed: seed)
        let values = (0..<records).map { RecordValues.random(serial: Int64($0), &rng) }
        let placement = (0..<records).map { _ in Int.random(in: 0..<3, using: &rng) }
        let edits = (0..<(pending ? 40 : 0)).map { _ in (Int.random(in: 0..<(records + 10), using: &rng),
            Int.random(in: 0..<4, using: &rng), Int.random(in: 0..<3, using: &rng),
            RecordValues.random(serial: 0, &rng)) }
        for (stack, isMulti) in [(single, false), (multi, true)] {
            let context = stack.context()
            try context.performAndWait {
                let groups = MultiStoreStack.Groups()
                for (index, record) in values.enumerated() {
                    try stack.insertRecord(record, storeIndex: isMulti ? placement[index] : 0, in: context, groups: groups)
                }
                try context.save()
            }
        }
        for store in multi.stores {
            let entity = try #require(multi.coordinator.managedObjectModel.entity(named: "Record"))
            #expect(try store.backend.count(entity: entity, predicate: nil, includesSubentities: true, limit: 0) > records / 6)
        }
        let contexts = [single.context(), multi.context()]
        for (stack, context) in zip([single, multi], contexts) where pending {
            try context.performAndWait {
                let groups = MultiStoreStack.Groups()
                var next = Int64(records)
                for (target, kind, store, newValues) in edits {
                    let found = try context.fetch(FetchRequest<ManagedObject>(entityName: "Record",
                        predicate: try FetchPredicate(format: "serial == %d", target)))
                    switch (kind, found.first) {
                    case (0, let record?): context.delete(record)
                    case (1, let record?): record["name"] = newValues.name
                    case (2, let record?): record["level"] = newValues.level
                    default:
                        var inserted = newValues
                        inserted.serial = next
                        inserted.group = nil
                        next += 1
                        try stack.insertRecord(inserted, storeIndex: stack.stores.count > 1 ? store : 0, in: context,
                            groups: groups)
                    }
                }
            }
        }
        return (single, multi, contexts[0], contexts[1])
    }

    @Test(arguments: [false, true])
    func fetchesOverThreeStoresGiveWhatOneStoreGives(pending: Bool) throws {
        for seed in UInt64(1)...UInt64(3) {
            let (single, multi, singleContext, multiContext) = try Self.twinStacks(seed: seed, records: 60, pending: pending)
            defer { withExtendedLifetime(single) {} }
            var rng = SeededRandom(seed: seed * 7919)
            var nonEmpty = 0
            defer { #expect(nonEmpty > 20, "only \(nonEmpty) of 60 requests found anything") }
            for round in 0..<60 {
                var request = try RandomRecordRequests.request(&rng)
                let label = "seed \(seed) round \(round) pending \(pending): \(request)"
                let expected = try singleContext.performAndWait { try singleContext.fetch(request).serials }
                let got = try multiContext.performAndWait { try multiContext.fetch(request).serials }
                #expect(got == expected, "\(label)")
                if !expected.isEmpty { nonEmpty += 1 }
                let expectedCount = try singleContext.performAndWait { try singleContext.count(for: request) }
                #expect(try multiContext.performAndWait { try multiContext.count(for: request) } == expectedCount, "\(label)")
                #expect(expectedCount == expected.count)
                let ids = try multiContext.performAndWait {
                    try multiContext.fetchObjectIDs(request).map { try multiContext.existingObject(with: $0)["serial"] ?? Int64(-1) }
                }
                #expect(ids == expected, "IDs: \(label)")

                // Limited to some stores: as one store limited to those stores' serials.
                let chosen = multi.stores.filter { _ in rng.chance(0.6) }
                request.affectedStores = chosen
                let limited = try multiContext.performAndWait { try multiContext.fetch(request) }
                #expect(limited.allSatisfy { object in
                    chosen.contains { $0.identifier == multi.coordinator.storeIdentifier(intendedFor: object.objectID) }
                }, "\(label) stores \(chosen.map(\.identifier))")
                let serials = try multiContext.performAndWait { () throws -> [Int64] in
                    var all = FetchRequest<ManagedObject>(entityName: "Record")
                    all.affectedStores = chosen
                    return try multiContext.fetch(all).serials
                }
                var oracle = request
                oracle.affectedStores = nil
                oracle.predicate = FetchPredicate.and((request.predicate.map { [$0] } ?? [])
                    + [try FetchPredicate(format: "serial IN %@", serials.map { AttributeValue.integer($0) })])
                let expectedLimited = try singleContext.performAndWait { try singleContext.fetch(oracle).serials }
                #expect(limited.serials == expectedLimited, "affected stores: \(label)")
            }
        }
    }

    @Test func dictionaryFetchesMergeGroupsAcrossStores() throws {
        let (single, multi, singleContext, multiContext) = try Self.twinStacks(seed: 11, records: 80, pending: false)
        defer { withExtendedLifetime((single, multi)) {} }
        var requests: [FetchRequest<ManagedObject>] = []
        var grouped = FetchRequest<ManagedObject>(entityName: "Record")
        grouped.propertiesToFetch = ["level", .count(as: "records"), .sum("score", as: "total"),
            .average("score", as: "mean"), .minimum("name", as: "first"), .maximum("when", as: "last")]
        grouped.propertiesToGroupBy = ["level"]
        grouped.sortCriteria = [SortCriterion("level")]
        requests.append(grouped)
        var byGroup = FetchRequest<ManagedObject>(entityName: "Record")
        byGroup.propertiesToFetch = ["group.name", .count(as: "records")]
        byGroup.propertiesToGroupBy = ["group.name"]
        byGroup.havingPredicate = try FetchPredicate(format: "records > 3")
        byGroup.sortCriteria = [SortCriterion("records", ascending: false), SortCriterion("group.name")]
        requests.append(byGroup)
        var whole = FetchRequest<ManagedObject>(entityName: "Record", predicate: try FetchPredicate(format: "flag == YES"))
        whole.propertiesToFetch = [.count(as: "records"), .sum("level", as: "levels")]
        requests.append(whole)
        var distinct = FetchRequest<ManagedObject>(entityName: "Record", sortCriteria: [SortCriterion("name")])
        distinct.propertiesToFetch = ["name"]
        distinct.returnsDistinctResults = true
        distinct.fetchLimit = 6
        distinct.fetchOffset = 2
        requests.append(distinct)
        var rows = FetchRequest<ManagedObject>(entityName: "Record", sortCriteria: [SortCriterion("score"), SortCriterion("serial")])
        rows.propertiesToFetch = ["serial", "score", "group.name"]
        rows.fetchLimit = 10
        requests.append(rows)
        for request in requests {
            let expected = try singleContext.performAndWait { try singleContext.fetchDictionaries(request) }
            let got = try multiContext.performAndWait { try multiContext.fetchDictionaries(request) }
            #expect(!expected.isEmpty)
            #expect(got.count == expected.count, "\(request)")
            for (left, right) in zip(got, expected) {
                #expect(left.keys.sorted() == right.keys.sorted(), "\(request)")
                for (key, value) in right {
                    // Sums and means of doubles may differ in the last bit when added in another order.
                    if let a = left[key]?.doubleValue, let b = value.doubleValue, case .double = value {
                        #expect(abs(a - b) <= 1e-9 * max(1, abs(b)), "\(request) \(key)")
                    } else {
                        #expect(left[key] == value, "\(request) \(key)")
                    }
                }
            }
        }
    }

    @Test func offsetAndLimitApplyAfterMergingAndTiesFollowKeyEntityThenStore() throws {
        let stack = try MultiStoreStack([.inMemory, .sqlite, .atomic])
        let context = stack.context()
        try context.performAndWait {
            let groups = MultiStoreStack.Groups()
            // Every store gets the same three names: keys 1, 2, 3 in each store, so every sort key ties thrice.
            for storeIndex in [2, 0, 1] {
                for (serial, name) in ["b", "a", "c"].enumerated() {
                    try stack.insertRecord(RecordValues(serial: Int64(storeIndex * 10 + serial), name: name, score: nil,
                        level: 1, flag: false, when: nil, group: nil), storeIndex: storeIndex, in: context, groups: groups)
                }
            }
            try context.save()
        }
        let byStore = stack.stores.map(\.identifier).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let reader = stack.context()
        try reader.performAndWait {
            let all = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Record", sortCriteria: [SortCriterion("name")]))
            #expect(all.compactMap { $0["name"] as String? } == ["a", "a", "a", "b", "b", "b", "c", "c", "c"])
            // Within a tie: the same key in every store, so the store identifiers decide, byte by byte.
            for run in 0..<3 {
                let ids = all[(run * 3)..<(run * 3 + 3)].map(\.objectID)
                #expect(ids.map(\.storeIdentifier) == byStore)
            }
            // Without sort criteria: by key, then store.
            let unsorted = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Record"))
            #expect(unsorted.map { $0.objectID.primaryKey ?? 0 } == [1, 1, 1, 2, 2, 2, 3, 3, 3])
            let window = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Record",
                sortCriteria: [SortCriterion("name", ascending: false)], fetchLimit: 4, fetchOffset: 2))
            #expect(window.compactMap { $0["name"] as String? } == ["c", "b", "b", "b"])
            #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Record", fetchLimit: 4, fetchOffset: 7)) == 2)
            #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Record")) == 9)
        }
    }

    @Test func newObjectsGoToTheFirstHoldingStoreOrTheAssignedOneAndStayThere() throws {
        let stack = try MultiStoreStack([.sqlite, .atomic, .inMemory])
        let context = stack.context()
        let (first, assigned) = try context.performAndWait { () throws -> (ManagedObjectID, ManagedObjectID) in
            let plain = try context.insertNewObject(forEntityName: "Record")
            plain["serial"] = Int64(1)
            let chosen = try context.insertNewObject(forEntityName: "Record")
            chosen["serial"] = Int64(2)
            try context.assign(chosen, to: stack.stores[1])
            try context.save()
            // Fixed once saved.
            let error = try #require(throws: ObjectGraphError.self) { try context.assign(chosen, to: stack.stores[2]) }
            guard case .cannotAssignStore = error else {
                Issue.record("\(error)")
                return (plain.objectID, chosen.objectID)
            }
            // And once given a permanent ID ahead of its save.
            let early = try context.insertNewObject(forEntityName: "Record")
            try context.assign(early, to: stack.stores[2])
            try context.obtainPermanentIDs(for: [early])
            #expect(early.objectID.storeIdentifier == stack.stores[2].identifier)
            #expect(throws: ObjectGraphError.self) { try context.assign(early, to: stack.stores[0]) }
            context.delete(early)
            try context.save()
            return (plain.objectID, chosen.objectID)
        }
        #expect(first.storeIdentifier == stack.stores[0].identifier)
        #expect(assigned.storeIdentifier == stack.stores[1].identifier)
        // Stores not added to this coordinator are refused.
        let other = try MultiStoreStack([.inMemory])
        try context.performAndWait {
            let record = try context.insertNewObject(forEntityName: "Record")
            #expect(throws: ObjectGraphError.self) { try context.assign(record, to: other.stores[0]) }
            context.delete(record)
        }
        // A child context's assignment holds when the parent saves.
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = context
        let childID = try child.performAndWait {
            let record = try child.insertNewObject(forEntityName: "Record")
            record["serial"] = Int64(3)
            try child.assign(record, to: stack.stores[2])
            try child.save()
            return record.objectID
        }
        try context.performAndWait {
            let pushed = try #require(context.registeredObjects.first { $0["serial"] == Int64(3) })
            try context.save()
            let saved = try context.existingObject(with: pushed.objectID)
            #expect(saved.objectID.storeIdentifier == stack.stores[2].identifier, "\(childID)")
        }
        // Reopened: every object is in its store, and the fetch still merges.
        let reopened = PersistentStoreCoordinator(managedObjectModel: stack.coordinator.managedObjectModel)
        try reopened.addPersistentStore(ofType: .sqlite, at: stack.stores[0].url)
        let atomic = try reopened.addPersistentStore(ofType: .atomic, at: stack.stores[1].url)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = reopened
        try reader.performAndWait {
            let records = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Record", sortCriteria: [SortCriterion("serial")]))
            #expect(records.serials == [1, 2])
            #expect(records.map(\.objectID) == [first, assigned])
            #expect(records[1].objectID.storeIdentifier == atomic.identifier)
        }
    }

    @Test func unsavedObjectsCountInTheStoreTheyWillBeSavedTo() throws {
        let stack = try MultiStoreStack([.sqlite, .atomic])
        let context = stack.context()
        try context.performAndWait {
            let groups = MultiStoreStack.Groups()
            for (serial, store) in [(1, 0), (2, 1)] {
                try stack.insertRecord(RecordValues(serial: Int64(serial), name: "saved", score: nil, level: 0, flag: false,
                    when: nil, group: "G0"), storeIndex: store, in: context, groups: groups)
            }
            try context.save()
            let unsaved = try context.insertNewObject(forEntityName: "Record")
            unsaved["serial"] = Int64(3)
            try context.assign(unsaved, to: stack.stores[1])
            let plain = try context.insertNewObject(forEntityName: "Record")
            plain["serial"] = Int64(4)
            for (stores, expected) in [([stack.stores[0]], [1, 4]), ([stack.stores[1]], [2, 3]),
                (stack.stores, [1, 2, 3, 4]), ([], [])] as [([PersistentStore], [Int64])]
            {
                var request = FetchRequest<ManagedObject>(entityName: "Record", sortCriteria: [SortCriterion("serial")])
                request.affectedStores = stores
                #expect(try context.fetch(request).serials == expected)
                #expect(try context.count(for: request) == expected.count)
                #expect(try context.fetchObjectIDs(request).count == expected.count)
            }
            // A store this coordinator does not have is an error, not an empty result.
            var stranger = FetchRequest<ManagedObject>(entityName: "Record")
            stranger.affectedStores = [try MultiStoreStack([.inMemory]).stores[0]]
            #expect(throws: ObjectGraphError.self) { try context.fetch(stranger) }
        }
    }

    @Test func batchUpdatesAndDeletesReachEveryStore() throws {
        let (single, multi, _, multiContext) = try Self.twinStacks(seed: 5, records: 30, pending: false)
        defer { withExtendedLifetime(single) {} }
        let coordinator = multi.coordinator
        let total = try multiContext.performAndWait { try multiContext.count(for: FetchRequest<ManagedObject>(entityName: "Record")) }
        var update = BatchUpdateRequest(entityName: "Record", propertiesToUpdate: ["level": 9])
        update.resultType = .objectIDs
        let updated = try coordinator.execute(update)
        #expect(updated.count == total)
        #expect(Set(updated.objectIDs?.map(\.storeIdentifier) ?? []).count == 3)
        let levels = try multiContext.performAndWait { () throws -> [Int64] in
            multiContext.reset()
            return try multiContext.fetch(FetchRequest<ManagedObject>(entityName: "Record")).map { $0["level"] ?? 0 }
        }
        #expect(levels == Array(repeating: 9, count: total))
        // Deleting by IDs of several stores deletes in each.
        let someIDs = try multiContext.performAndWait {
            try multiContext.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Record", sortCriteria: [SortCriterion("serial")],
                fetchLimit: 9))
        }
        #expect(Set(someIDs.map(\.storeIdentifier)).count > 1)
        #expect(try coordinator.execute(BatchDeleteRequest(objectIDs: someIDs)).count == 9)
        let deleted = try coordinator.execute(BatchDeleteRequest(entityName: "Record", predicate: try FetchPredicate(format: "serial >= 20")))
        #expect(deleted.count == 10)
        #expect(try multiContext.performAndWait { try multiContext.count(for: FetchRequest<ManagedObject>(entityName: "Record")) }
            == total - 19)
    }
}
