import Foundation
import Testing
import TestSupport

@testable import ObjectGraph

/// A typed class registered with its model, as an app declares it.
final class TypedMember: ManagedObject {
    @Attribute("name") var name: String?
    @Attribute("age") var age: Int64
    @Attribute("city") var city: String?
    @ToMany("teams") var teams: Set<TypedTeam>
    override class var entityName: String { "Member" }
}

final class TypedTeam: ManagedObject {
    @Attribute("title") var title: String?
    @ToMany("members") var members: Set<TypedMember>
    override class var entityName: String { "Team" }
}

/// Typed requests on every store kind: fetches, counts, object-ID fetches, pending changes, a
/// fetched-results controller (sectioned by a typed key path, tracking local changes) and batch requests
/// select exactly what their format-string twins select.
@Suite struct TypedQueryIntegrationTests {
    static func stack(_ kind: PersistentStoreType, in directory: TemporaryDirectory) throws -> PersistentStoreCoordinator {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Member",
                attributes: [
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "age", type: .integer64),
                    AttributeDescription(name: "city", type: .string),
                ],
                relationships: [
                    RelationshipDescription(name: "teams", destination: "Team", inverse: "members", isToMany: true),
                ],
                managedObjectClassName: "TypedMember"),
            EntityDescription(
                name: "Team", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [
                    RelationshipDescription(name: "members", destination: "Member", inverse: "teams", isToMany: true),
                ],
                managedObjectClassName: "TypedTeam"),
        ], classes: [TypedMember.self, TypedTeam.self])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: kind, at: directory.file("typed-\(kind).sqlite"))
        return coordinator
    }

    static let cities: [String?] = ["Oslo", "Zürich", "Zu\u{308}rich", "zürich", "東京", nil, "x' OR 1=1 --"]
    static let names: [String?] = ["Zoë", "zoe", "Émile", "emile", "Åsa", nil, "Ørsted", "ola"]

    static func populate(_ context: ManagedObjectContext) throws {
        var random = SeededRandom(seed: 34)
        var teams: [TypedTeam] = []
        for title in ["swift", "Swift", "sqlite", "Ærø"] {
            let team = TypedTeam(context: context)
            team.title = title
            teams.append(team)
        }
        for index in 0..<60 {
            let member = TypedMember(context: context)
            member.name = random.pick(names)
            member.city = random.pick(cities)
            member.age = Int64(index % 7 * 10)
            for _ in 0..<Int.random(in: 0...2, using: &random) { member.addRelatedObject(random.pick(teams), forKey: "teams") }
        }
        try context.save()
    }

    static let kinds: [PersistentStoreType] = [.sqlite, .inMemory, .atomic]

    @Test(arguments: kinds)
    func fetchesCountsAndIDsMatchTheTwins(kind: PersistentStoreType) throws {
        let directory = TemporaryDirectory()
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = try Self.stack(kind, in: directory)
        try context.performAndWait {
            try Self.populate(context)
            // An unsaved insert and an unsaved change must be seen by both.
            let pending = TypedMember(context: context)
            pending.name = "Zoë"
            pending.age = 45
            pending.city = "Zürich"
            let city = "Zürich"
            let pairs: [(Predicate<TypedMember>, String)] = [
                (#Predicate { $0.age >= 30 && $0.city == city }, "age >= 30 AND city == 'Zürich'"),
                (#Predicate { $0.name?.localizedStandardContains("zo") ?? false }, "name CONTAINS[cd] 'zo'"),
                (#Predicate { $0.teams.contains { $0.title == "swift" } }, "ANY teams.title == 'swift'"),
                (#Predicate { $0.teams.count >= 2 || $0.city == nil }, "teams.@count >= 2 OR city == nil"),
                (#Predicate { !($0.name?.starts(with: "Z") ?? false) }, "NOT (name != nil AND name BEGINSWITH 'Z')"),
            ]
            for (typed, format) in pairs {
                let request = try FetchRequest<TypedMember>(
                    predicate: typed, sortBy: [SortDescriptor(\.age, order: .reverse), SortDescriptor(\.name)])
                var twin = FetchRequest<TypedMember>(entityName: "Member", predicate: try FetchPredicate(format: format))
                twin.sortCriteria = [SortCriterion("age", ascending: false), SortCriterion("name")]
                let objects = try context.fetch(request)
                #expect(objects.map(\.objectID) == (try context.fetch(twin)).map(\.objectID), "\(format)")
                #expect(try context.count(for: request) == objects.count, "\(format)")
                #expect(try context.fetchObjectIDs(request) == objects.map(\.objectID), "\(format)")
                #expect(!objects.isEmpty && objects.count < 61, "\(format) selects \(objects.count)")
            }
            let team = try #require(try context.fetch(FetchRequest<TypedTeam>(entityName: "Team")).first)
            let teamID = team.objectID
            let withTeam = try context.fetch(try FetchRequest<TypedMember>(
                predicate: #Predicate { $0.teams.contains { $0.objectID == teamID } }))
            #expect(Set(withTeam) == team.members && !withTeam.isEmpty)
            let someIDs = Array(withTeam.prefix(2).map(\.objectID))
            let chosen = try context.fetch(try FetchRequest<TypedMember>(predicate: #Predicate { someIDs.contains($0.objectID) }))
            #expect(Set(chosen.map(\.objectID)) == Set(someIDs))
            let one = try context.fetch(try FetchRequest<TypedMember>(predicate: #Predicate { $0.objectID == teamID }))
            #expect(one.isEmpty, "a team's ID is no member's")
            let young = try context.fetch(try FetchRequest<TypedMember>(predicate: #Predicate { (10..<30).contains($0.age) }))
            #expect(young.count == (try context.count(for: FetchRequest<TypedMember>(entityName: "Member",
                predicate: try FetchPredicate(format: "age >= 10 AND age < 30")))) && !young.isEmpty)
            let zoe = try context.fetch(try FetchRequest<TypedMember>(predicate: #Predicate { $0.name == "Zoë" && $0.age == 45 }))
            #expect(zoe.count == 1 && zoe.first === pending, "the unsaved insert is matched in memory")
        }
    }

    @Test(arguments: kinds)
    func fetchedResultsControllerTracksChangesWithATypedRequest(kind: PersistentStoreType) throws {
        let directory = TemporaryDirectory()
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = try Self.stack(kind, in: directory)
        try context.performAndWait {
            try Self.populate(context)
            let request = try FetchRequest<TypedMember>(
                predicate: #Predicate { $0.age >= 20 }, sortBy: [SortDescriptor(\.city), SortDescriptor(\.age)])
            let controller = try FetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: \TypedMember.city)
            let recorder = ChangeRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            // Local changes: one member leaves the results, one joins, one moves to another section.
            let members = try context.fetch(FetchRequest<TypedMember>(entityName: "Member"))
            members.first { $0.age >= 20 }?.age = 0
            members.first { $0.age < 20 }?.age = 50
            members.last { $0.age >= 20 }?.city = "Oslo"
            let inserted = TypedMember(context: context)
            inserted.age = 99
            inserted.city = "東京"
            context.processPendingChanges()
            let fresh = try FetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: \TypedMember.city)
            try fresh.performFetch()
            #expect(controller.sectionedIDs == fresh.sectionedIDs)
            #expect(!recorder.batches.isEmpty && recorder.protocolErrors.isEmpty)
            #expect(controller.sections?.map(\.name) == fresh.sections?.map(\.name))
        }
    }

    @Test(arguments: kinds)
    func batchRequestsTakeTypedPredicates(kind: PersistentStoreType) throws {
        let directory = TemporaryDirectory()
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = try Self.stack(kind, in: directory)
        try context.performAndWait {
            try Self.populate(context)
            let old = try context.count(for: FetchRequest<TypedMember>(entityName: "Member",
                predicate: try FetchPredicate(format: "age >= 50")))
            let updated = try context.execute(try BatchUpdateRequest(
                predicate: #Predicate<TypedMember> { $0.age >= 50 }, propertiesToUpdate: ["city": "Bergen"]))
            #expect(updated.count == old && old > 0)
            let bergen = try context.count(for: FetchRequest<TypedMember>(entityName: "Member",
                predicate: try FetchPredicate(format: "city == 'Bergen'")))
            #expect(bergen == old)
            let deleted = try context.execute(try BatchDeleteRequest(predicate: #Predicate<TypedMember> { $0.city == "Bergen" }))
            #expect(deleted.count == old)
            #expect(try context.count(for: try FetchRequest<TypedMember>(predicate: #Predicate { $0.age >= 50 })) == 0)
        }
    }

    @Test func dictionaryFetchesTakeTypedKeyPaths() throws {
        let directory = TemporaryDirectory()
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = try Self.stack(.sqlite, in: directory)
        try context.performAndWait {
            try Self.populate(context)
            #expect(try ModelKeyPaths.name(of: \TypedMember.teams) == "teams")
            #expect(throws: TypedPredicateError.self) { try ModelKeyPaths.name(of: \TypedMember.objectID) }
            var typed = try FetchRequest<TypedMember>(predicate: #Predicate { $0.age >= 20 }, sortBy: [SortDescriptor(\.city)])
            typed.propertiesToFetch = [try .keyPath(\TypedMember.city), try .aggregate(.average, \TypedMember.age, as: "mean")]
            typed.propertiesToGroupBy = [try ModelKeyPaths.name(of: \TypedMember.city)]
            var twin = FetchRequest<TypedMember>(entityName: "Member", predicate: try FetchPredicate(format: "age >= 20"))
            twin.sortCriteria = [SortCriterion("city")]
            twin.propertiesToFetch = ["city", .average("age", as: "mean")]
            twin.propertiesToGroupBy = ["city"]
            let rows = try context.fetchDictionaries(typed)
            let twinRows = try context.fetchDictionaries(twin)
            #expect(!rows.isEmpty && rows == twinRows)
        }
    }
}
