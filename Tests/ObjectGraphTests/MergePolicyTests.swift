import Foundation
import Testing
@testable import ObjectGraph

/// Two contexts read the same person; the other one saves first, then `mine` saves with its policy.
private struct Conflict {
    let stack: TestStack
    let id: ManagedObjectID
    let mine: ManagedObjectContext
    let other: ManagedObjectContext

    init(_ kind: StoreKind) throws {
        stack = try TestStack(kind)
        let seeder = stack.context()
        id = try seeder.performAndWait {
            let person = try seeder.insertNewObject(forEntityName: "Person")
            person["firstName"] = "Ada"
            person["lastName"] = "Lovelace"
            person["city"] = "London"
            person["age"] = Int64(36)
            try seeder.save()
            return person.objectID
        }
        mine = stack.context(name: "mine")
        other = stack.context(name: "other")
        for context in [mine, other] {
            let id = id
            try context.performAndWait { _ = try context.existingObject(with: id) }
        }
    }

    /// The other context changes city and age and saves.
    func otherUpdates() throws {
        let id = id, other = other
        try other.performAndWait {
            let person = try other.existingObject(with: id)
            person["city"] = "Paris"
            person["age"] = Int64(37)
            try other.save()
        }
    }

    /// The other context deletes the person and saves.
    func otherDeletes() throws {
        let id = id, other = other
        try other.performAndWait {
            other.delete(try other.existingObject(with: id))
            try other.save()
        }
    }

    /// `mine` changes city and first name.
    /// Returns the edited person: a context lets go of saved objects that nothing else holds (as Core
    /// Data's does), so a test that looks at it after the save holds it.
    @discardableResult
    func myEdit() throws -> ManagedObject {
        let id = id, mine = mine
        return try mine.performAndWait {
            let person = try mine.existingObject(with: id)
            person["city"] = "Turin"
            person["firstName"] = "Augusta"
            return person
        }
    }

    /// The stored person as a fresh context reads it (nil when gone).
    func stored() throws -> (first: String?, city: String?, age: Int64?)? {
        let reader = stack.context()
        let id = id
        return try reader.performAndWait {
            guard let person = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person")).first(where: {
                $0.objectID == id
            }) else { return nil }
            return (person["firstName"], person["city"], person["age"])
        }
    }
}

@Suite struct MergePolicyTests {
    @Test(arguments: StoreKind.allCases) func theErrorPolicyListsEachConflictWithBothSnapshots(kind: StoreKind) throws {
        let conflict = try Conflict(kind)
        try conflict.otherUpdates()
        try conflict.myEdit()
        let mine = conflict.mine
        let error = mine.performAndWait { () -> ObjectGraphError? in
            do throws(ObjectGraphError) { try mine.save() } catch { return error }
            return nil
        }
        guard case .mergeConflicts(let conflicts)? = error else {
            Issue.record("expected merge conflicts, got \(String(describing: error))")
            return
        }
        let found = try #require(conflicts.first)
        #expect(conflicts.count == 1)
        #expect(found.objectID == conflict.id)
        #expect(found.expectedVersion == 1)
        #expect(found.storeVersion == 2)
        #expect(found.objectSnapshot["city"] == AttributeValue.string("Turin"))
        #expect(found.cachedSnapshot["city"] == AttributeValue.string("London"))
        #expect(found.persistedSnapshot?["city"] == AttributeValue.string("Paris"))
        #expect(found.keysChangedInStore == ["age", "city"])
        #expect(error?.description.contains("age, city") == true)
        mine.performAndWait { #expect(mine.hasChanges) }
        #expect(try conflict.stored()?.city == "Paris", "the store keeps the other save")
    }

    @Test(arguments: StoreKind.allCases, [
        (MergePolicy.mergeByPropertyStoreTrump, "Augusta", "Paris", 37),
        (.mergeByPropertyObjectTrump, "Augusta", "Turin", 37),
        (.overwrite, "Augusta", "Turin", 36),
        (.rollback, "Ada", "Paris", 37),
    ] as [(MergePolicy, String, String, Int64)])
    func eachPolicyResolvesAnUpdateConflict(kind: StoreKind, expected: (MergePolicy, String, String, Int64)) throws {
        let (policy, first, city, age) = expected
        let conflict = try Conflict(kind)
        try conflict.otherUpdates()
        let edited = try conflict.myEdit()
        let mine = conflict.mine
        mine.mergePolicy = policy
        try mine.performAndWait {
            try mine.save()
            #expect(!mine.hasChanges)
            let person = try #require(mine.registeredObject(for: conflict.id))
            #expect(person === edited)
            #expect(person["city"] as String? == city, "the context shows what it saved")
        }
        let stored = try #require(try conflict.stored())
        #expect(stored.first == first)
        #expect(stored.city == city)
        #expect(stored.age == age)
    }

    @Test(arguments: StoreKind.allCases) func aRowDeletedInTheStoreWinsUnlessOverwriting(kind: StoreKind) throws {
        for policy in [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .rollback, .overwrite] {
            let conflict = try Conflict(kind)
            try conflict.otherDeletes()
            let edited = try conflict.myEdit()
            conflict.mine.mergePolicy = policy
            let mine = conflict.mine
            try mine.performAndWait { try mine.save() }
            let stored = try conflict.stored()
            if policy == .overwrite {
                #expect(stored?.city == "Turin", "overwrite writes the object again, under its ID")
                #expect(stored?.first == "Augusta")
            } else {
                #expect(stored == nil, "\(policy): the deletion wins")
                // (Though held here, it is no longer registered.)
                mine.performAndWait { #expect(mine.registeredObject(for: conflict.id) == nil) }
            }
            withExtendedLifetime(edited) {}
        }
    }

    @Test(arguments: StoreKind.allCases) func aDeletionMeetingANewerRowGoesAheadOrRollsBack(kind: StoreKind) throws {
        for policy in [MergePolicy.mergeByPropertyObjectTrump, .rollback] {
            let conflict = try Conflict(kind)
            try conflict.otherUpdates()
            let mine = conflict.mine, id = conflict.id
            mine.mergePolicy = policy
            try mine.performAndWait {
                mine.delete(try mine.existingObject(with: id))
                try mine.save()
            }
            let stored = try conflict.stored()
            if policy == .rollback {
                #expect(stored?.city == "Paris")
                try mine.performAndWait {
                    let person = try #require(mine.registeredObject(for: id))
                    #expect(!person.isDeleted)
                    #expect(person["city"] as String? == "Paris")
                }
            } else {
                #expect(stored == nil)
            }
        }
    }

    @Test func childToParentSavesAreLastWriterWinsWhateverThePolicy() throws {
        let conflict = try Conflict(.inMemory)
        let parent = conflict.other, id = conflict.id
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait { _ = try child.existingObject(with: id) }
        try parent.performAndWait { try parent.existingObject(with: id)["city"] = "Paris" }
        try child.performAndWait {
            try child.existingObject(with: id)["city"] = "Rome"
            try child.save()
        }
        try parent.performAndWait { () throws in #expect(try parent.existingObject(with: id)["city"] as String? == "Rome") }
    }
}
