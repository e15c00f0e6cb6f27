import Foundation
import ObjectGraph
import PeopleResources
import Testing

@testable import People

/// Model version `People 2`: a store of version `People` migrates when the app opens it (phone → phoneNumber
/// by renaming identifier, birthday added, Adult/Child added), and the split recipe moves people afterwards.
@Suite struct PeopleMigrationTests {
    let store = TemporaryStore()

    /// Writes a `People` (version 1) store: Ada (36, with a phone, a company and a tag) and Tim (9).
    func writeVersion1() throws {
        let bundle = try ModelBundle(contentsOf: try #require(PeopleResources.modelURL))
        #expect(bundle.versionNames == ["People", "People 2"] && bundle.currentVersionName == "People 2")
        let model = try bundle.model(named: "People")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, at: store.url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { () throws in
            let acme = try context.insertNewObject(forEntityName: "Company")
            acme.setValue(.string("Acme"), forKey: "name")
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(.string("vip"), forKey: "name")
            for (first, last, age, phone) in [("Ada", "Lovelace", 36, "555-0100"), ("Tim", "Small", 9, nil)] {
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(.string(first), forKey: "firstName")
                person.setValue(.string(last), forKey: "lastName")
                person.setValue(.integer(Int64(age)), forKey: "age")
                person.setValue(.integer(PeopleModel.sectionOrder(forTitle: String(last.prefix(1)))), forKey: "sectionOrder")
                person.setValue(phone.map(AttributeValue.string) ?? .null, forKey: "phone")
                if first == "Ada" {
                    person.setRelatedObject(acme, forKey: "company")
                    person.setRelatedObjects([tag], forKey: "tags")
                }
            }
            try context.save()
        }
    }

    @Test func anOldStoreMigratesOnOpenAndSplitsIntoAdultsAndChildren() throws {
        try writeVersion1()
        let stack = try PeopleStack(storeURL: store.url)
        #expect(stack.coordinator.persistentStores.first?.metadata.modelVersionName == "People 2")
        let context = stack.newStoreContext(name: "check")
        try context.performAndWait { () throws in
            let people = try context.fetch(PeopleModel.listRequest())
            #expect(people.map(\.fullName) == ["Ada Lovelace", "Tim Small"])
            #expect(people.map(\.phoneNumber) == ["555-0100", nil])
            #expect(people.allSatisfy { $0.birthday == nil && $0.entity.name == "Person" })
            // People 2 indexes names, email and city for search: built by the migration, used by [cd] filters.
            #expect(stack.coordinator.managedObjectModel.entity(named: "Person")?.attributes
                .filter(\.isIndexedBySpotlight).map(\.name).sorted() == ["city", "email", "firstName", "lastName"])
            var search = PeopleModel.listRequest()
            search.predicate = try FetchPredicate(format: "lastName CONTAINS[cd] %@", "ÓVEL")
            #expect(try context.fetch(search).map(\.fullName) == ["Ada Lovelace"])

            let report = try PeopleMigration.splitPeopleByAge(in: context)
            #expect(report == PeopleMigration.SplitReport(adults: 1, children: 1))
            // The list still shows both, now as Adult and Child, with their values and relationships.
            let split = try context.fetch(PeopleModel.listRequest())
            #expect(split.map(\.fullName) == ["Ada Lovelace", "Tim Small"])
            #expect(split.map(\.entity.name) == ["Adult", "Child"])
            #expect(split[0].phoneNumber == "555-0100" && split[0].company?.name == "Acme")
            #expect(split[0].tags.map(\.name) == ["vip"])
            var plain = PeopleModel.listRequest()
            plain.includesSubentities = false
            #expect(try context.fetch(plain).isEmpty)
            // Running it again finds nothing left to move.
            #expect(try PeopleMigration.splitPeopleByAge(in: context) == PeopleMigration.SplitReport())
        }
    }
}
