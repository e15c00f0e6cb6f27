import Foundation
import SQLiteStorage
import Testing
import TestSupport
@testable import ObjectGraph

/// Derived attributes (issue 33) in ObjectGraph's SQLite stores: kept by triggers in the writing transaction on
/// every write path, as Core Data keeps them, and computed for existing rows when the triggers are first made.
@Suite struct DerivedAttributeTests {
    static let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Book" representedClassName="Book">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="titleLower" optional="YES" attributeType="String" derived="YES" derivationExpression="lowercase:(title)"/>
                <attribute name="titleUpper" optional="YES" attributeType="String" derived="YES" derivationExpression="uppercase:(title)"/>
                <attribute name="searchTitle" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(title)"/>
                <attribute name="pagesCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pages.@count"/>
                <attribute name="wordsTotal" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pages.@sum.words"/>
                <attribute name="savedAt" optional="YES" attributeType="Date" derived="YES" derivationExpression="now()"/>
                <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="book" inverseEntity="Page"/>
            </entity>
            <entity name="Page" representedClassName="Page">
                <attribute name="words" optional="YES" attributeType="Integer 64" defaultValueString="0"/>
                <attribute name="bookTitle" optional="YES" attributeType="String" derived="YES" derivationExpression="book.title"/>
                <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/>
            </entity>
        </model>
        """

    static func open(_ url: URL) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel.load(xml: Data(xml.utf8), source: "Derived"))
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
        return (coordinator, MigrationFixtures.context(coordinator))
    }

    static func books(_ url: URL) throws -> [[SQLiteValue]] {
        try MigrationFixtures.rows(url, "SELECT ZTITLE, ZTITLELOWER, ZTITLEUPPER, ZSEARCHTITLE, ZPAGESCOUNT, ZWORDSTOTAL FROM ZBOOK ORDER BY Z_PK")
    }

    @Test func everyWritePathKeepsTheValues() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("derived.sqlite")
        let (coordinator, context) = try Self.open(url)
        let before = Date()
        try context.performAndWait {
            let book = try context.insertNewObject(forEntityName: "Book")
            book["title"] = "Ærø Straße"
            for words in [100, 250] {
                let page = try context.insertNewObject(forEntityName: "Page")
                page["words"] = Int64(words)
                page.setRelatedObject(book, forKey: "book")
            }
            try context.save()
        }
        #expect(try Self.books(url) == [[.text("Ærø Straße"), .text("ærø straße"), .text("ÆRØ STRASSE"),
            .text(StringFolding.folded("Ærø Straße")), .integer(2), .integer(350)]])
        #expect(try MigrationFixtures.rows(url, "SELECT ZBOOKTITLE FROM ZPAGE") == [[.text("Ærø Straße")], [.text("Ærø Straße")]])
        guard case .real(let saved)? = try MigrationFixtures.rows(url, "SELECT ZSAVEDAT FROM ZBOOK").first?.first else {
            Issue.record("no save time")
            return
        }
        #expect(saved >= before.timeIntervalSinceReferenceDate - 1)

        // A save that renames the book reaches its pages; a batch update of words and a batch delete of a page
        // change the sums.
        try context.performAndWait {
            let book = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")).first)
            book["title"] = "Notes"
            try context.save()
        }
        #expect(try MigrationFixtures.rows(url, "SELECT DISTINCT ZBOOKTITLE FROM ZPAGE") == [[.text("Notes")]])
        _ = try coordinator.execute(BatchUpdateRequest(entityName: "Page", predicate: try FetchPredicate(format: "words == 100"),
            propertiesToUpdate: ["words": .integer(1)]))
        #expect(try Self.books(url).first?[5] == .integer(251))
        _ = try coordinator.execute(BatchDeleteRequest(entityName: "Page", predicate: try FetchPredicate(format: "words == 1")))
        #expect(try Self.books(url).first?[4] == .integer(1))
        #expect(try Self.books(url).first?[5] == .integer(250))
        // A fresh read shows the computed values on the object.
        let (_, fresh) = try Self.open(url)
        let count: Int64? = try fresh.performAndWait {
            try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Book")).first?["pagesCount"]
        }
        #expect(count == 1)
    }

    @Test func aStoreWithoutTheTriggersGetsThemAndItsValuesAtOpen() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("derived.sqlite")
        do {
            let (_, context) = try Self.open(url)
            try context.performAndWait {
                let book = try context.insertNewObject(forEntityName: "Book")
                book["title"] = "Old"
                let page = try context.insertNewObject(forEntityName: "Page")
                page.setRelatedObject(book, forKey: "book")
                try context.save()
            }
        }
        // As a store written before this model had derived attributes (or rebuilt by a migration) is.
        let connection = try SQLiteConnection(path: url.path)
        for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'trigger'") {
            if case .text(let name) = row[0] { try connection.execute("DROP TRIGGER \"\(name)\"") }
        }
        try connection.execute("UPDATE ZBOOK SET ZTITLELOWER = NULL, ZPAGESCOUNT = NULL")
        connection.close()
        _ = try Self.open(url)
        #expect(try Self.books(url).first?[1] == .text("old"))
        #expect(try Self.books(url).first?[4] == .integer(1))
        #expect(try MigrationFixtures.rows(url,
            "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z_DA_%'").first?.first == .integer(20))
    }

    @Test func derivationsParse() {
        #expect(Derivation("pages.@count") == .count(relationship: "pages"))
        #expect(Derivation("items.@sum.price") == .sum(relationship: "items", attribute: "price"))
        #expect(Derivation("canonical:(author.name)") == .function(.canonical, ["author", "name"]))
        #expect(Derivation("now()") == .now)
        #expect(Derivation("title") == .keyPath(["title"]))
        #expect(Derivation("a.b.c") == nil)
        #expect(Derivation("pages.@avg.x") == nil)
        #expect(Derivation("lowercase:(") == nil)
    }
}

extension DerivedAttributeTests {
    @Test func aMigratedStoreKeepsComputingItsDerivedAttributes() throws {
        let directory = TemporaryDirectory()
        let entities = { (extra: String) in
            """
            <entity name="Book" representedClassName="Book">
                <attribute name="title" optional="YES" attributeType="String"/>
                \(extra)
                <attribute name="pagesCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pages.@count"/>
                <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="book" inverseEntity="Page"/>
            </entity>
            <entity name="Page" representedClassName="Page">
                <attribute name="words" optional="YES" attributeType="Integer 64" defaultValueString="0"/>
                <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/>
            </entity>
            """
        }
        let bundle = try MigrationFixtures.bundle([entities(""),
            entities(#"<attribute name="subtitle" optional="YES" attributeType="String"/>"#)], in: directory, name: "Derived")
        let url = directory.file("derived.sqlite")
        do {
            let coordinator = try MigrationFixtures.open(url, bundle: bundle, version: "Derived")
            let context = MigrationFixtures.context(coordinator)
            try context.performAndWait {
                let book = try context.insertNewObject(forEntityName: "Book")
                book["title"] = "A"
                for _ in 0..<2 {
                    let page = try context.insertNewObject(forEntityName: "Page")
                    page.setRelatedObject(book, forKey: "book")
                }
                try context.save()
            }
        }
        // Opening with version 2 migrates the store (its tables rebuilt), then keeps counting.
        let coordinator = try MigrationFixtures.open(url, bundle: bundle)
        #expect(try MigrationFixtures.rows(url, "SELECT ZPAGESCOUNT FROM ZBOOK") == [[.integer(2)]])
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait {
            let book = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")).first)
            let page = try context.insertNewObject(forEntityName: "Page")
            page.setRelatedObject(book, forKey: "book")
            try context.save()
        }
        #expect(try MigrationFixtures.rows(url, "SELECT ZPAGESCOUNT FROM ZBOOK") == [[.integer(3)]])
    }
}
