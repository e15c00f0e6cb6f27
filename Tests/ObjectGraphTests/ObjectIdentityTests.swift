import Foundation
import Testing
@testable import ObjectGraph

/// Object IDs are a key plus one interned namespace, and a context frees what only it holds when it is
/// reset or goes away.
@Suite struct ObjectIdentityTests {
    @Test func idsMadeApartForTheSameRowAreEqualAndHashAlike() throws {
        let stack = try TestStack()
        let context = stack.context()
        let saved: ManagedObjectID = try context.performAndWait {
            let person = ManagedObject(entity: try context.entity(named: "Person"), insertInto: context)
            person.setValue(.string("Ada"), forKey: "lastName")
            try context.save()
            return person.objectID
        }
        // Built from its parts, read back from a fetch, and parsed from its URI: one ID.
        let rebuilt = ManagedObjectID(entityName: saved.entityName, storeIdentifier: saved.storeIdentifier,
            primaryKey: try #require(saved.primaryKey))
        let reader = stack.context()
        let fetched = try reader.performAndWait {
            try reader.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Person"))
        }
        let parsed = try #require(stack.coordinator.managedObjectID(forURIRepresentation: saved.uriRepresentation))
        for other in [rebuilt, try #require(fetched.first), parsed] {
            #expect(other == saved)
            #expect(other.hashValue == saved.hashValue)
            #expect(Set([saved, other]).count == 1)
            for seed in [0, 1, -7, Int.max] { #expect(other._rawHashValue(seed: seed) == saved._rawHashValue(seed: seed)) }
        }
    }

    /// Tables place IDs by a cheap mix of key and seed (``HashMixing``): consecutive keys — what a store hands
    /// out — spread over a table's buckets, and another seed orders them otherwise.
    @Test func consecutiveKeysSpreadOverTheBucketsOfEverySeed() {
        let namespace = ObjectIDNamespace.permanent(entityName: "Person", storeIdentifier: "spread")
        let ids = (1...4096).map { ManagedObjectID(namespace: namespace, key: Int64($0)) }
        for seed in [0, 42, Int.min] {
            let buckets = Set(ids.map { $0._rawHashValue(seed: seed) & 4095 })
            // Random placement fills 1 - 1/e (about 63 %) of 4096 buckets with 4096 keys.
            #expect(buckets.count > 2400, "seed \(seed): \(buckets.count) buckets")
        }
        let first = ids.map { $0._rawHashValue(seed: 1) & 4095 }
        let second = ids.map { $0._rawHashValue(seed: 2) & 4095 }
        #expect(zip(first, second).filter { $0 == $1 }.count < 100)
    }

    @Test func idsOfOtherEntitiesStoresOrKindsDiffer() {
        let base = ManagedObjectID(entityName: "Person", storeIdentifier: "S1", primaryKey: 7)
        let others = [
            ManagedObjectID(entityName: "Item", storeIdentifier: "S1", primaryKey: 7),
            ManagedObjectID(entityName: "Person", storeIdentifier: "S2", primaryKey: 7),
            ManagedObjectID(entityName: "Person", storeIdentifier: "S1", primaryKey: 8),
            ManagedObjectID(entityName: "Person", storeIdentifier: "", key: 7, isTemporaryID: true),
        ]
        for other in others {
            #expect(other != base)
            #expect(base.precedes(other) != other.precedes(base))
        }
        #expect(others[3].isTemporaryID && others[3].storeIdentifier.isEmpty && others[3].primaryKey == nil)
        #expect(Set(others + [base]).count == 5)
    }

    /// Object URIs in predicate text take the interned namespace when their entity and store are known, and
    /// otherwise one of their own that is not kept: typed text must not grow the table for good.
    @Test func idsReadFromPredicateTextEqualRealIDsAndKeepNothing() throws {
        let stack = try TestStack()
        let context = stack.context()
        let saved: ManagedObjectID = try context.performAndWait {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue(.string("Ada"), forKey: "lastName")
            try context.save()
            return person.objectID
        }
        let parsed = try #require(ManagedObjectID.predicateID(uri: saved.uriRepresentation.absoluteString))
        #expect(parsed == saved && parsed.hashValue == saved.hashValue)
        #expect(parsed.namespace === saved.namespace)
        let matches = try context.performAndWait {
            try context.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Person",
                predicate: try FetchPredicate(
                    format: "self == CAST('\(saved.uriRepresentation.absoluteString)', 'NSManagedObjectID')")))
        }
        #expect(matches == [saved])

        let unknown = "x-coredata://NOT-A-STORE-\(UUID().uuidString)/Person/p1"
        let first = try #require(ManagedObjectID.predicateID(uri: unknown))
        let second = try #require(ManagedObjectID.predicateID(uri: unknown))
        #expect(first == second && first != saved)
        #expect(first.namespace !== second.namespace, "not interned")
    }

    @Test func anIDIsAKeyAndOneReference() {
        // What every registry entry, row snapshot and change record copies.
        #expect(MemoryLayout<ManagedObjectID>.size == 16)
        #expect(MemoryLayout<ManagedObjectID?>.size == 16)
    }

    @Test func aContextThatGoesAwayFreesTheObjectsOnlyItHeld() throws {
        let stack = try TestStack()
        try Self.seed(stack, count: 300)
        let (weakObjects, kept) = try Self.fetchAndDrop(stack)
        #expect(weakObjects.allSatisfy { $0.object == nil || $0.object === kept })
        #expect(kept.managedObjectContext == nil)
        #expect(kept.value(forKey: "lastName") == .string("L0"))
    }

    @Test func aResetFreesTheObjectsOnlyItsRegistryHeld() throws {
        let stack = try TestStack()
        try Self.seed(stack, count: 300)
        let context = stack.context()
        let (weakObjects, kept): ([WeakObject], ManagedObject) = try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortCriteria = [SortCriterion("lastName")]
            request.returnsObjectsAsFaults = false
            let objects = try context.fetch(request)
            let kept = try #require(objects.first)
            return (objects.map(WeakObject.init), kept)
        }
        context.performAndWait { context.reset() }
        #expect(weakObjects.allSatisfy { $0.object == nil || $0.object === kept })
        #expect(kept.managedObjectContext == nil)
        // The context still works, and gives a new object for the same row.
        let again = try context.performAndWait { try context.existingObject(with: kept.objectID) }
        #expect(again !== kept && again.objectID == kept.objectID)
    }

    struct WeakObject {
        weak var object: ManagedObject?
        init(_ object: ManagedObject) { self.object = object }
    }

    static func seed(_ stack: TestStack, count: Int) throws {
        let context = stack.context()
        try context.performAndWait {
            let entity = try context.entity(named: "Person")
            for index in 0..<count {
                let person = ManagedObject(entity: entity, insertInto: context)
                person.setValue(.string("L\(index)"), forKey: "lastName")
                person.setValue(.string("someone.with.a.long.address\(index)@example.com"), forKey: "email")
            }
            try context.save()
        }
    }

    /// Fetches every person in a context that then goes away, keeping the first.
    static func fetchAndDrop(_ stack: TestStack) throws -> ([WeakObject], ManagedObject) {
        let context = stack.context()
        return try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortCriteria = [SortCriterion("lastName")]
            request.returnsObjectsAsFaults = false
            let objects = try context.fetch(request)
            return (objects.map(WeakObject.init), try #require(objects.first))
        }
    }
}
