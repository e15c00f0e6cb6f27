import Foundation
import Testing
@testable import ObjectGraph

/// A company database for dictionary fetches and batch requests: Company 1—n Employee (cascade),
/// Department 1—n Employee (deny), Employee n—m Tag (nullify), Employee → Badge one-to-one (cascade),
/// Employee → mentor (no inverse).
enum ReportModel {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Company", attributes: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "founded", type: .date),
            ], relationships: [
                RelationshipDescription(name: "employees", destination: "Employee", inverse: "company", isToMany: true,
                    deleteRule: .cascade),
            ]),
            EntityDescription(name: "Department", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "staff", destination: "Employee", inverse: "department",
                        isToMany: true, deleteRule: .deny),
                ]),
            EntityDescription(name: "Employee", attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "city", type: .string),
                AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
                AttributeDescription(name: "salary", type: .double),
                AttributeDescription(name: "active", type: .boolean, defaultValue: false),
                AttributeDescription(name: "joined", type: .date),
            ], relationships: [
                RelationshipDescription(name: "company", destination: "Company", inverse: "employees"),
                RelationshipDescription(name: "department", destination: "Department", inverse: "staff"),
                RelationshipDescription(name: "tags", destination: "Tag", inverse: "employees", isToMany: true),
                RelationshipDescription(name: "badge", destination: "Badge", inverse: "holder", deleteRule: .cascade),
                RelationshipDescription(name: "mentor", destination: "Employee"),
            ]),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "employees", destination: "Employee", inverse: "tags", isToMany: true),
                ]),
            EntityDescription(name: "Badge", attributes: [AttributeDescription(name: "code", type: .string)],
                relationships: [RelationshipDescription(name: "holder", destination: "Employee", inverse: "badge")]),
        ])
    }
}

/// A coordinator with one store of ``ReportModel``.
struct ReportStack {
    let directory = TemporaryDirectory()
    let coordinator: PersistentStoreCoordinator
    let storeURL: URL

    init(_ kind: StoreKind) throws {
        coordinator = PersistentStoreCoordinator(managedObjectModel: try ReportModel.model())
        storeURL = directory.file("report.sqlite")
        try coordinator.addPersistentStore(ofType: kind.storeType, at: storeURL)
    }

    func context(_ type: ManagedObjectContext.ConcurrencyType = .privateQueue) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: type)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Saves `employees` people across four companies (one without a name), with nil cities and salaries
    /// now and then, Unicode names (one city in two normal forms), every eighth person without a company, every
    /// fifth in one of three staffed departments (a fourth, "Empty", has nobody), every third with a badge,
    /// some with tags.
    /// The same seed gives the same rows and keys in any store.
    func seed(employees: Int = 240, seed: UInt64 = 7) throws {
        let context = context()
        try context.performAndWait {
            var random = SeededRandom(seed: seed)
            var companies: [ManagedObject] = []
            for (index, name) in ["Acme", "Globex", "Initech", nil].enumerated() {
                let company = try context.insertNewObject(forEntityName: "Company")
                company.setValue(name.map(AttributeValue.string) ?? .null, forKey: "name")
                company.setValue(.date(Date(timeIntervalSinceReferenceDate: Double(index) * 86_400 * 365)), forKey: "founded")
                companies.append(company)
            }
            let tags = try ["swift", "ops", "sales"].map { name in
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue(.string(name), forKey: "name")
                return tag
            }
            let departments = try ["Research", "Support", "Legal", "Empty"].map { name in
                let department = try context.insertNewObject(forEntityName: "Department")
                department.setValue(.string(name), forKey: "name")
                return department
            }
            let cities: [String?] = ["Oslo", "Zürich", "Zu\u{308}rich", "oslo", "Berlin", "東京", nil]
            for index in 0..<employees {
                let person = try context.insertNewObject(forEntityName: "Employee")
                person.setValue(.string("P\(index % 37)-\(random.pick(["Ada", "Zoë", "Ann", "Bo"]))"), forKey: "name")
                person.setValue(random.pick(cities).map(AttributeValue.string) ?? .null, forKey: "city")
                person.setValue(.integer(Int64.random(in: 18...70, using: &random)), forKey: "age")
                person.setValue(random.chance(0.1) ? .null
                    : .double(Double(Int.random(in: 1_000...9_000, using: &random)) / 7), forKey: "salary")
                person.setValue(.boolean(random.chance(0.6)), forKey: "active")
                person.setValue(.date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...5_000, using: &random)) * 3_600)),
                    forKey: "joined")
                if index % 8 != 0 { person.setRelatedObject(random.pick(companies), forKey: "company") }
                if random.chance(0.3) { person.addRelatedObject(random.pick(tags), forKey: "tags") }
                if index % 5 == 1 { person.setRelatedObject(departments[index % 3], forKey: "department") }
                if index % 3 == 0 {
                    let badge = try context.insertNewObject(forEntityName: "Badge")
                    badge.setValue(.string("B\(index)"), forKey: "code")
                    person.setRelatedObject(badge, forKey: "badge")
                }
            }
            try context.save()
        }
    }
}

/// Dictionary results with object URIs reduced to entity and key, so results of two stores compare equal.
func portable(_ rows: [[String: AttributeValue]]) -> [[String: AttributeValue]] {
    rows.map { row in
        row.mapValues { value in
            guard case .uri(let url) = value else { return value }
            return .string(url.pathComponents.suffix(2).joined(separator: "/"))
        }
    }
}
