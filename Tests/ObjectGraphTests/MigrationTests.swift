import Foundation
import Testing
@testable import ObjectGraph
import SQLiteStorage

/// Lightweight migration with the `Library` fixture: v1 → v2 (renames, widening, added and removed attributes
/// and entities, an index swapped), v2 → v3 (to-one ↔ to-many, optional → required, a relationship added),
/// and the chain v1 → v3; rows are compared with direct SQL on the file.
@Suite struct MigrationTests {
    let directory = TemporaryDirectory()
    var storeURL: URL { directory.file("library.sqlite") }

    /// Writes a v1 store: Ada (2 books, one shelved, both tagged), Bob (1 book), and an Obsolete row.
    func writeVersion1() throws {
        let coordinator = try MigrationFixtures.open(storeURL, bundle: MigrationFixtures.library, version: "Library")
        let context = MigrationFixtures.context(coordinator)
        try MigrationFixtures.fillLibraryVersion1(context)
    }

    @Test func versionOneToTwoCarriesRenamesWideningDefaultsAndRemovals() throws {
        try writeVersion1()
        let numbersBefore = try MigrationFixtures.rows(storeURL, "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        let plan = try LightweightMigrator(bundle: bundle, destination: try bundle.model(named: "Library 2"))
            .migrate(storeAt: storeURL)
        #expect(plan.sourceVersion == "Library" && plan.destinationVersion == "Library 2" && plan.steps.count == 1)
        let changes = Set(try #require(plan.steps.first).changes)
        #expect(changes.isSuperset(of: [
            .attributeRenamed(entity: "Author", from: "name", to: "fullName"),
            .attributeWidened(entity: "Author", attribute: "born", from: .integer16, to: .integer32),
            .attributeWidened(entity: "Author", attribute: "rating", from: .float, to: .double),
            .attributeAdded(entity: "Author", attribute: "country", defaultValue: .null),
            .attributeAdded(entity: "Book", attribute: "subtitle", defaultValue: .string("none")),
            .attributeRemoved(entity: "Book", attribute: "isbn"),
            .entityRenamed(from: "Shelf", to: "Bookcase"), .entityRemoved("Obsolete"), .entityAdded("Publisher"),
            .relationshipRemoved(entity: "Book", relationship: "shelf"),
            .indexRemoved(entity: "Book", index: "byTitle(title)"), .indexAdded(entity: "Author", index: "byCountry(country)"),
        ]))
        // Direct SQL: renamed data moved, new columns defaulted, removed columns and tables gone.
        #expect(try MigrationFixtures.rows(storeURL, "SELECT ZFULLNAME, ZBORN, ZRATING, ZCOUNTRY FROM ZAUTHOR ORDER BY Z_PK")
            == [[.text("Ada"), .integer(1815), .real(4.5), .null], [.text("Bob"), .null, .null, .null]])
        #expect(try MigrationFixtures.rows(storeURL, "SELECT ZTITLE, ZSUBTITLE, ZPAGES, ZYEAR FROM ZBOOK ORDER BY Z_PK")
            == [[.text("Notes"), .text("none"), .integer(30), .null], [.text("Engines"), .text("none"), .integer(120), .null],
                [.text("Cats"), .text("none"), .integer(12), .null]])
        #expect(try !MigrationFixtures.columns(storeURL, "ZBOOK").contains("ZISBN"))
        #expect(try !MigrationFixtures.columns(storeURL, "ZBOOK").contains("ZSHELF"))
        #expect(try MigrationFixtures.rows(storeURL, "SELECT ZLABEL FROM ZBOOKCASE") == [[.text("Top")]])
        #expect(try MigrationFixtures.rows(storeURL, "SELECT name FROM sqlite_master WHERE name IN ('ZOBSOLETE', 'ZSHELF')")
            .isEmpty)
        // Entity numbers: kept as Z_PRIMARYKEY had them; Publisher gets a new one, Obsolete's goes.
        let numbersAfter = try MigrationFixtures.rows(storeURL, "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        let before = Dictionary(uniqueKeysWithValues: numbersBefore.map { ($0[0], $0[1]) })
        let after = Dictionary(uniqueKeysWithValues: numbersAfter.map { ($0[0], $0[1]) })
        for name in ["Author", "Book", "Tag"] { #expect(after[.text(name)] == before[.text(name)]) }
        #expect(after[.text("Bookcase")] == before[.text("Shelf")])
        #expect(after[.text("Obsolete")] == nil)
        #expect(after[.text("Publisher")] == .integer(6))
        // Indexes follow the model.
        let indexes = try MigrationFixtures.rows(storeURL, "SELECT name FROM sqlite_master WHERE type = 'index'")
            .compactMap { row -> String? in if case .text(let name) = row[0] { name } else { nil } }
        #expect(indexes.contains("Z_Author_byCountry") && !indexes.contains("Z_Book_byTitle"))
        #expect(try MigrationFixtures.rows(storeURL, "PRAGMA integrity_check") == [[.text("ok")]])

        // And the framework reads it all through version 2.
        let coordinator = try MigrationFixtures.open(storeURL, bundle: MigrationFixtures.library, version: "Library 2")
        #expect(coordinator.persistentStores.first?.metadata.modelVersionName == "Library 2")
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait { () throws in try checkVersion2(context) }
    }

    /// Reads the migrated version-2 store through the framework and saves new objects into it.
    private func checkVersion2(_ context: ManagedObjectContext) throws {
        let authors = try context.fetch(FetchRequest<ManagedObject>(entityName: "Author",
            sortCriteria: [SortCriterion("fullName")]))
        #expect(authors.map { $0["fullName"] as String? } == ["Ada", "Bob"])
        let books = authors[0].relatedObjects(forKey: "books").compactMap { $0["title"] as String? }.sorted()
        #expect(books == ["Engines", "Notes"])
        let notes = authors[0].relatedObjects(forKey: "books").filter { ($0["title"] as String?) == "Notes" }
        let tagNames = notes.flatMap { $0.relatedObjects(forKey: "tags") }.compactMap { $0["name"] as String? }
        #expect(tagNames.sorted() == ["fiction", "maths"])
        // New objects of new and renamed entities save with keys after the existing ones.
        let publisher = try context.insertNewObject(forEntityName: "Publisher")
        publisher["name"] = "Murray"
        let bookcase = try context.insertNewObject(forEntityName: "Bookcase")
        bookcase["label"] = "Low"
        try context.save()
        #expect(bookcase.objectID.primaryKey == 2)
    }

    @Test func chainOneToThreeRunsEveryStepInOrder() throws {
        try writeVersion1()
        let coordinator = try MigrationFixtures.open(storeURL, bundle: MigrationFixtures.library)
        #expect(coordinator.persistentStores.first?.metadata.modelVersionName == "Library 3")
        // Optional → required with a default: Ada and Bob had no country.
        #expect(try MigrationFixtures.rows(storeURL, "SELECT ZFULLNAME, ZCOUNTRY, ZBORN FROM ZAUTHOR ORDER BY Z_PK")
            == [[.text("Ada"), .text("unknown"), .integer(1815)], [.text("Bob"), .text("unknown"), .null]])
        #expect(try !MigrationFixtures.columns(storeURL, "ZBOOK").contains("ZAUTHOR"))
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait {
            let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book", sortCriteria: [SortCriterion("title")]))
            #expect(books.map { $0["title"] as String? } == ["Cats", "Engines", "Notes"])
            // To-one → to-many (author → authors, many-to-many with Author.books): every link kept.
            #expect(books.map { $0.relatedObjects(forKey: "authors").compactMap { $0["fullName"] as String? } }
                == [["Bob"], ["Ada"], ["Ada"]])
            // To-many → to-one (tags → tag): Notes had two tags and keeps the one with the lowest key (fiction).
            #expect(books.map { $0.relatedObject(forKey: "tag")?["name"] as String? } == [nil, "maths", "fiction"])
            let publisher = try context.insertNewObject(forEntityName: "Publisher")
            publisher.setRelatedObjects(books, forKey: "books")
            try context.save()
        }
        #expect(try MigrationFixtures.rows(storeURL, "PRAGMA integrity_check") == [[.text("ok")]])
    }

    @Test func dryRunReportsEveryStepAndWritesNothing() throws {
        try writeVersion1()
        let before = try MigrationFixtures.bytes(storeURL)
        let plan = try LightweightMigrator(bundleURL: MigrationFixtures.library).plan(storeAt: storeURL)
        #expect(plan.steps.map(\.sourceVersion) == ["Library", "Library 2"])
        #expect(plan.steps.map(\.destinationVersion) == ["Library 2", "Library 3"])
        #expect(plan.steps[1].changes.contains(.relationshipCardinalityChanged(entity: "Book", relationship: "authors",
            toMany: true)))
        #expect(plan.steps[1].changes.contains(.attributeMadeRequired(entity: "Author", attribute: "country",
            defaultValue: .string("unknown"))))
        #expect(plan.description.contains("Library → Library 2:"))
        #expect(try MigrationFixtures.bytes(storeURL) == before)
    }

    @Test func migrationOffRefusesWithTheEntitiesThatDifferAndLeavesTheFile() throws {
        try writeVersion1()
        let before = try MigrationFixtures.bytes(storeURL)
        for options in [PersistentStoreOptions(migratesAutomatically: false), PersistentStoreOptions(infersMappingModel: false),
            PersistentStoreOptions(isReadOnly: true)]
        {
            #expect {
                try MigrationFixtures.open(storeURL, bundle: MigrationFixtures.library, options: options)
            } throws: { error in
                guard case ObjectGraphError.incompatibleModel(_, let entities, _) = error else { return false }
                return entities == ["Author", "Book", "Bookcase", "Obsolete", "Publisher", "Shelf", "Tag"]
            }
        }
        #expect(try MigrationFixtures.bytes(storeURL) == before)
    }

    @Test func aModelWithoutItsVersionsRefusesTheStore() throws {
        try writeVersion1()
        let current = try ModelBundle(contentsOf: MigrationFixtures.library).currentModel()
        let bare = try ManagedObjectModel(entities: current.entities.map {
            EntityDescription(name: $0.name, attributes: Array($0.ownAttributes), relationships: Array($0.ownRelationships))
        })
        #expect {
            try PersistentStoreCoordinator(managedObjectModel: bare).addPersistentStore(ofType: .sqlite, at: storeURL)
        } throws: { error in
            guard case ObjectGraphError.incompatibleModel(_, _, let reason) = error else { return false }
            return reason.contains("modelBundleURL")
        }
        // Naming the bundle in the options is enough.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: bare)
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: storeURL,
            options: PersistentStoreOptions(modelBundleURL: MigrationFixtures.library))
    }

    @Test func anAlreadyMigratedStoreOpensWithoutChange() throws {
        try writeVersion1()
        _ = try MigrationFixtures.open(storeURL, bundle: MigrationFixtures.library)
        let before = try MigrationFixtures.bytes(storeURL)
        _ = try MigrationFixtures.open(storeURL, bundle: MigrationFixtures.library)
        #expect(try MigrationFixtures.bytes(storeURL) == before)
        #expect(try LightweightMigrator(bundleURL: MigrationFixtures.library).plan(storeAt: storeURL).isEmpty)
    }
}
