import Foundation
import Testing
@testable import ObjectGraph

/// A child context reads what its parent has not changed straight from the parent's source: the answers
/// must be exactly the parent's own, whatever the parent holds, and a read leaves no objects in the parent.
@Suite struct ChildReadThroughTests {
    private static let sorted = [SortCriterion("lastName"), SortCriterion("city", ascending: false)]
    private static let cities = ["London", "Paris", "Rome", nil]

    /// A person's state as a fetch shows it.
    private struct Seen: Equatable, CustomStringConvertible {
        let id: ManagedObjectID
        let lastName: String?
        let city: String?
        var description: String { "\(lastName ?? "nil")/\(city ?? "nil")" }
        init(_ object: ManagedObject) {
            id = object.objectID
            lastName = object["lastName"] as String?
            city = object["city"] as String?
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aChildOfAnUnchangedParentReadsTheStoreAndLeavesNoObjectsInTheParent(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = stack.context(name: "parent")
        try parent.performAndWait {
            for index in 0..<60 { try insertPerson("P\(index % 17)", city: Self.cities[index % 4], into: parent) }
            try parent.save()
            parent.reset()
        }
        let request = FetchRequest<ManagedObject>(entityName: "Person",
            predicate: try FetchPredicate(format: "city != %@", "Rome"), sortCriteria: Self.sorted)
        let expected = try parent.performAndWait { try parent.fetch(request).map(Seen.init) }
        parent.performAndWait { parent.reset() }

        let reader = child(of: parent)
        try reader.performAndWait {
            #expect(try reader.fetch(request).map(Seen.init) == expected)
            #expect(try reader.fetchObjectIDs(request) == expected.map(\.id))
            #expect(try reader.count(for: request) == expected.count)
            var limited = request
            (limited.fetchOffset, limited.fetchLimit) = (5, 10)
            #expect(try reader.fetchObjectIDs(limited) == Array(expected.map(\.id)[5..<15]))
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: reader)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(Seen.init) == expected)
        }
        #expect(parent.performAndWait { parent.registeredObjectsCount } == 0)

        // Faults made in the child fire through the parent, in batches and one by one.
        let faulting = child(of: parent)
        try faulting.performAndWait {
            var batched = request
            batched.fetchBatchSize = 7
            let objects = try faulting.fetch(batched)
            #expect(objects.map(Seen.init) == expected)
            let one = try #require(expected.last)
            faulting.reset()
            #expect(try faulting.existingObject(with: one.id)["city"] as String? == one.city)
        }
        #expect(parent.performAndWait { parent.registeredObjectsCount } == 0)
    }

    /// Seeded random parents — unchanged, changed elsewhere, changed in the fetched entity; a root context, or
    /// a child of a root with unsaved changes of its own — each read by a child every way a child reads,
    /// against the parent's own fetch.
    @Test(arguments: [StoreKind.sqlite, .inMemory])
    func aChildSeesExactlyWhatItsParentWouldFetch(kind: StoreKind) throws {
        for seed in UInt64(1)...12 {
            var rng = SeededRandom(seed: seed)
            let stack = try TestStack(kind)
            let root = stack.context(name: "root")
            let chained = (seed / 3) % 2 == 1
            let parent = chained ? child(of: root, name: "parent") : root
            let request = FetchRequest<ManagedObject>(entityName: "Person",
                predicate: rng.pick([nil, try FetchPredicate(format: "city IN %@", ["London", "Paris"])]),
                sortCriteria: Self.sorted)
            let expected = try parent.performAndWait { () throws -> [Seen] in
                for index in 0..<40 {
                    try insertPerson("P\(Int.random(in: 0..<9, using: &rng))", city: rng.pick(Self.cities),
                        into: parent)
                    guard index % 10 == 9 else { continue }
                    try parent.save()
                    // In a chain the root keeps the last ten unsaved, and changes some saved people's cities.
                    if chained, index < 30 { try root.performAndWait { try root.save() } }
                }
                if chained {
                    var rootRandom = SeededRandom(seed: seed &* 31)
                    try root.performAndWait {
                        let people = try root.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
                        for person in people.shuffled(using: &rootRandom).prefix(5) where !person.isInserted {
                            person["city"] = rootRandom.pick(Self.cities)
                        }
                    }
                }
                parent.reset()
                let saved = try parent.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
                switch seed % 3 {
                case 0: parent.reset()  // nothing changed, nothing registered
                case 1:  // changes to another entity only; some people registered, unchanged
                    _ = try parent.insertNewObject(forEntityName: "Item")
                default:
                    for person in saved.shuffled(using: &rng).prefix(6) { person["city"] = rng.pick(Self.cities) }
                    for person in saved.shuffled(using: &rng).prefix(3) where !person.hasChanges { parent.delete(person) }
                    for _ in 0..<4 { try insertPerson("N\(Int.random(in: 0..<9, using: &rng))", into: parent) }
                }
                return try parent.fetch(request).map(Seen.init)
            }
            let reader = child(of: parent)
            try reader.performAndWait {
                #expect(try reader.fetch(request).map(Seen.init) == expected, "seed \(seed)")
                #expect(try reader.fetchObjectIDs(request) == expected.map(\.id), "seed \(seed)")
                #expect(try reader.count(for: request) == expected.count, "seed \(seed)")
                var limited = request
                (limited.fetchOffset, limited.fetchLimit) = (2, 3)
                #expect(try reader.count(for: limited) == min(3, max(0, expected.count - 2)), "seed \(seed)")
                let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: reader)
                try controller.performFetch()
                #expect(controller.fetchedObjects?.map(Seen.init) == expected, "seed \(seed)")
            }
        }
    }

    /// A clean middle context between a child and a grandparent with unsaved objects: the child's faults
    /// for objects the middle context never registered still fire (through to the grandparent).
    @Test func aGrandchildFiresFaultsForObjectsOnlyItsGrandparentHolds() throws {
        let stack = try TestStack(.sqlite)
        let root = stack.context(name: "root")
        let expected = try root.performAndWait { () throws -> [Seen] in
            try insertPerson("Saved", city: "Rome", into: root)
            try root.save()
            try insertPerson("Unsaved", city: "Oslo", into: root)
            return try root.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortCriteria: Self.sorted))
                .map(Seen.init)
        }
        #expect(expected.contains { $0.id.isTemporaryID })
        let middle = child(of: root, name: "middle")
        let leaf = child(of: middle, name: "leaf")
        try leaf.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person", sortCriteria: Self.sorted)
            let ids = try leaf.fetchObjectIDs(request)
            #expect(ids == expected.map(\.id))
            // Faults made from the IDs alone: each fires through the middle context, which holds none of them.
            #expect(try ids.map { try leaf.existingObject(with: $0) }.map(Seen.init) == expected)
        }
        #expect(middle.performAndWait { middle.registeredObjectsCount } == 0)
    }

    /// To-many relationships a child reads through its parent: from the store while the parent has no
    /// unsaved changes, from the parent's objects (deleted members left out) once it has.
    @Test(arguments: [StoreKind.sqlite, .inMemory])
    func aChildReadsToManyRelationshipsAsItsParentSeesThem(kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [
            EntityDescription(name: "Team", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "members", destination: "Member", inverse: "team",
                    isToMany: true)]),
            EntityDescription(name: "Member", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "team", destination: "Team", inverse: "members")]),
        ]))
        let directory = TemporaryDirectory()
        try coordinator.addPersistentStore(ofType: kind.storeType, at: directory.file("teams.sqlite"))
        let parent = ManagedObjectContext(concurrencyType: .privateQueue)
        parent.persistentStoreCoordinator = coordinator
        let teamID = try parent.performAndWait { () throws -> ManagedObjectID in
            let team = try parent.insertNewObject(forEntityName: "Team")
            for name in ["Ann", "Bob", "Cy"] {
                let member = try parent.insertNewObject(forEntityName: "Member")
                member["name"] = name
                member.setRelatedObject(team, forKey: "team")
            }
            try parent.save()
            parent.reset()
            return team.objectID
        }
        func membersSeenByAChild() throws -> [String] {
            let reader = child(of: parent)
            return try reader.performAndWait {
                try reader.existingObject(with: teamID).relatedObjects(forKey: "members")
                    .compactMap { $0["name"] as String? }.sorted()
            }
        }
        #expect(try membersSeenByAChild() == ["Ann", "Bob", "Cy"])
        #expect(parent.performAndWait { parent.registeredObjectsCount } == 0)

        // The parent deletes Bob without saving: a child no longer sees him on the team.
        try parent.performAndWait {
            let members = try parent.fetch(FetchRequest<ManagedObject>(entityName: "Member",
                predicate: try FetchPredicate(format: "name == %@", "Bob")))
            for member in members { parent.delete(member) }
        }
        #expect(try membersSeenByAChild() == ["Ann", "Cy"])
    }
}
