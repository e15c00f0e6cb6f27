import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Migrations that change how a relationship keeps its links (to-one ↔ to-many, ordered ↔ unordered, a to-many
/// gaining or losing a to-one inverse), on PostgreSQL, checked against the SQLite store's migration of the same
/// random graph.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresRelationshipMigrationTests {
    let directory = TemporaryDirectory()

    /// How a relationship holds its destinations.
    enum Kind: CustomStringConvertible {
        case one, many, ordered
        var description: String { self == .one ? "to-one" : self == .many ? "to-many" : "ordered" }
    }

    /// `Item.link` → `Owner`, with the inverse `Owner.back` (or none), in version 1 and version 2.
    struct Scenario: CustomStringConvertible {
        let link: (Kind, Kind)
        let back: (Kind?, Kind?)
        var description: String {
            "link \(link.0) → \(link.1), back \(back.0.map(String.init(describing:)) ?? "none") → "
                + "\(back.1.map(String.init(describing:)) ?? "none")"
        }
    }

    static let scenarios: [Scenario] = [
        Scenario(link: (.one, .many), back: (nil, nil)),
        Scenario(link: (.one, .ordered), back: (nil, nil)),
        Scenario(link: (.many, .one), back: (nil, nil)),
        Scenario(link: (.ordered, .one), back: (nil, nil)),
        Scenario(link: (.many, .ordered), back: (nil, nil)),
        Scenario(link: (.ordered, .many), back: (nil, nil)),
        // One-to-many → many-to-many: `back` loses its to-one inverse.
        Scenario(link: (.one, .many), back: (.ordered, .ordered)),
        Scenario(link: (.one, .ordered), back: (.many, .many)),
        // Many-to-many → one-to-many: `back` gains a to-one inverse.
        Scenario(link: (.many, .one), back: (.many, .many)),
        Scenario(link: (.ordered, .one), back: (.ordered, .ordered)),
        // One-to-many, the to-many side's order gained and dropped.
        Scenario(link: (.one, .one), back: (.many, .ordered)),
        Scenario(link: (.one, .one), back: (.ordered, .many)),
        // Many-to-many, one side's order gained and dropped.
        Scenario(link: (.many, .many), back: (.many, .ordered)),
        Scenario(link: (.ordered, .many), back: (.many, .many)),
    ]

    static func relationship(_ name: String, _ kind: Kind, to destination: String, inverse: String?) -> String {
        let shape = kind == .one ? #"maxCount="1""# : kind == .many ? #"toMany="YES""# : #"toMany="YES" ordered="YES""#
        return #"<relationship name="\#(name)" optional="YES" \#(shape) deletionRule="Nullify" "#
            + #"destinationEntity="\#(destination)"\#(inverse.map { #" inverseName="\#($0)""# } ?? "")/>"#
    }

    static func entities(link: Kind, back: Kind?, unique: Bool = false) -> String {
        let constraint = unique
            ? #"<uniquenessConstraints><uniquenessConstraint><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>"#
            : ""
        return #"<entity name="Owner"><attribute name="name" optional="YES" attributeType="String"/>"#
            + (back.map { relationship("back", $0, to: "Item", inverse: "link") } ?? "") + "</entity>"
            + #"<entity name="Item"><attribute name="name" optional="YES" attributeType="String"/>"#
            + relationship("link", link, to: "Owner", inverse: back == nil ? nil : "back") + constraint + "</entity>"
    }

    /// Saves 4 owners and 8 items (one save each, so that both stores give them the same keys, in name order) and
    /// random links between them.
    static func fill(_ coordinator: PersistentStoreCoordinator, _ scenario: Scenario, seed: UInt64,
        itemNames: [String] = (0..<8).map { "i\($0)" }) throws
    {
        var random = SeededRandom(seed: seed)
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait {
            var owners: [ManagedObject] = [], items: [ManagedObject] = []
            for index in 0..<4 {
                let owner = try context.insertNewObject(forEntityName: "Owner")
                owner["name"] = "o\(index)"
                try context.save()
                owners.append(owner)
            }
            for name in itemNames {
                let item = try context.insertNewObject(forEntityName: "Item")
                item["name"] = name
                try context.save()
                items.append(item)
            }
            if scenario.link.0 == .one, scenario.back.0 != nil {
                // One-to-many: each owner's items, in a random order.
                var groups = [[ManagedObject]](repeating: [], count: owners.count)
                for item in items.shuffled(using: &random) where random.chance(0.85) {
                    groups[Int.random(in: 0..<owners.count, using: &random)].append(item)
                }
                for (owner, group) in zip(owners, groups) { owner.setRelatedObjects(group, forKey: "back") }
            } else {
                for item in items {
                    if scenario.link.0 == .one {
                        item.setRelatedObject(random.chance(0.8) ? random.pick(owners) : nil, forKey: "link")
                    } else {
                        let count = Int.random(in: 0...3, using: &random)
                        item.setRelatedObjects(Array(owners.shuffled(using: &random).prefix(count)), forKey: "link")
                    }
                }
            }
            try context.save()
        }
    }

    /// Every object as a line: its name and each relationship's destinations (in order when ordered, else sorted).
    static func graph(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = MigrationFixtures.context(coordinator)
        return try context.performAndWait {
            var lines: [String] = []
            for entity in coordinator.managedObjectModel.entities {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name)) {
                    lines.append(((object["name"] as String?) ?? "?")
                        + object.relationshipsDescription { ($0["name"] as String?) ?? "?" })
                }
            }
            return lines.sorted()
        }
    }

    @Test(arguments: Array(scenarios.enumerated()))
    func aRelationshipChangingKindMigratesAsOnSQLite(_ index: Int, _ scenario: Scenario) throws {
        let bundle = try MigrationFixtures.bundle([
            Self.entities(link: scenario.link.0, back: scenario.back.0),
            Self.entities(link: scenario.link.1, back: scenario.back.1),
        ], in: directory)
        let sqliteURL = directory.file("links.sqlite")
        let database = try PostgresTestDatabase()
        let seed = 0x5EED_0000 + UInt64(index)
        try Self.fill(MigrationFixtures.open(sqliteURL, bundle: bundle, version: "Test"), scenario, seed: seed)
        try Self.fill(PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Test"), scenario, seed: seed)
        let before = try Self.graph(PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Test"))
        #expect(try Self.graph(MigrationFixtures.open(sqliteURL, bundle: bundle, version: "Test")) == before)

        let sqlite = try Self.graph(MigrationFixtures.open(sqliteURL, bundle: bundle, version: "Test 2"))
        let postgres = try Self.graph(PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Test 2"))
        #expect(postgres == sqlite, "\(scenario), seed \(seed)")
        // A to-many that becomes a to-one keeps its first member by order, else the lowest key (o0 < o1 < …).
        if scenario.link.0 != .one, scenario.link.1 == .one {
            let expected = before.filter { $0.hasPrefix("i") }.map { line in
                let members = line.components(separatedBy: "link=[")[1].prefix { $0 != "]" }.split(separator: ",")
                return line.components(separatedBy: " ")[0] + " link=[" + (members.first.map(String.init) ?? "") + "]"
            }
            #expect(postgres.filter { $0.hasPrefix("i") }.map { $0.components(separatedBy: " back=")[0] } == expected)
        }
        // A client opening the migrated database later reads the same graph, and saves in it.
        let reopened = try PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Test 2")
        #expect(try Self.graph(reopened) == sqlite)
    }

    @Test func aFailingStepAfterMovedLinksLeavesTheDatabaseAsItWas() throws {
        // Version 2 turns a one-to-many into a many-to-many (links move), version 3 makes item names unique,
        // which two items break: the migration fails after both steps ran, and nothing of either stays.
        let scenario = Scenario(link: (.one, .many), back: (.ordered, .ordered))
        let bundle = try MigrationFixtures.bundle([
            Self.entities(link: .one, back: .ordered),
            Self.entities(link: .many, back: .ordered),
            Self.entities(link: .many, back: .ordered, unique: true),
        ], in: directory)
        let database = try PostgresTestDatabase()
        try Self.fill(PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Test"), scenario, seed: 7,
            itemNames: ["a", "b", "c", "a", "d", "e"])
        let admin = try database.connection()
        let snapshot = [
            #"SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1, 2"#,
            #"SELECT * FROM "ZITEM" ORDER BY "Z_PK""#,
            #"SELECT * FROM "Z_RELATIONSHIPLISTS" ORDER BY 1, 2"#,
        ]
        let before = try snapshot.map { try admin.execute($0) }
        let graph = try Self.graph(PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Test"))
        #expect {
            _ = try PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Test 3")
        } throws: { error in
            guard case .migrationNotInferable(_, _, _, let change, _)? = error as? ObjectGraphError else { return false }
            return change == "uniqueness constraint added"
        }
        #expect(try snapshot.map { try admin.execute($0) } == before)
        #expect(try Self.graph(PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Test")) == graph)
    }
}
