import Foundation
import Testing
@testable import People
import ObjectGraph

@Suite @MainActor struct AffiliationTests {
    @Test(arguments: PeopleStack.Kind.allCases)
    func seededAndImportedPeopleHaveCompaniesAndTags(kind: PeopleStack.Kind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("affiliations-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack = try PeopleStack(storeURL: directory.appendingPathComponent("p.sqlite"), kind: kind)
        let seeded = try stack.seedIfEmpty()
        #expect(await stack.flush() == nil)
        let context = stack.newStoreContext(name: "check")
        try context.performAndWait {
            let companies = try context.fetch(FetchRequest<Company>(entityName: "Company"))
            let tags = try context.fetch(FetchRequest<People.Tag>(entityName: "Tag"))
            #expect(!companies.isEmpty && companies.count <= GeneratedAffiliations.companies.count)
            #expect(!tags.isEmpty)
            #expect(Set(companies.map(\.name)).count == companies.count, "each company is created once")
            let employed = companies.reduce(0) { $0 + $1.employees.count }
            let people = try context.fetch(FetchRequest<Person>(entityName: "Person"))
            #expect(people.count == seeded)
            #expect(employed == people.filter { $0.company != nil }.count, "both sides agree")
            for person in people.prefix(50) {
                let expected = GeneratedAffiliations.affiliations(for: PersonRecord(firstName: person.firstName,
                    lastName: person.lastName, email: person.email, city: person.city, age: person.age,
                    createdAt: person.createdAt ?? Date()))
                #expect(person.company?.name == expected.company)
                #expect(Set(person.tags.map(\.name)) == Set(expected.tags))
                #expect(person.tags.allSatisfy { $0.people.contains(person) })
            }
        }
    }
}
