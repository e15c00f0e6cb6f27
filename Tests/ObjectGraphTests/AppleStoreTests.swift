import Foundation
import SQLiteStorage
import Testing
import TestSupport
@testable import ObjectGraph

/// Stores Core Data wrote (built by ``AppleLayoutStore``): they open by structure, read right, and stay
/// Apple's — reading changes nothing in the file, writing changes only rows, keys and `Z_OPT`.
@Suite("Stores written by Core Data")
struct AppleStoreTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-apple-store")
    var url: URL { folder.file("Apple.sqlite") }

    private func open(_ model: ManagedObjectModel? = nil) throws -> (PersistentStoreCoordinator, PersistentStore) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model ?? AppleLayoutStore.model())
        let store = try coordinator.addPersistentStore(ofType: .sqlite, at: url)
        return (coordinator, store)
    }

    private func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func rows(_ sql: String) throws -> [[SQLiteValue]] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { connection.close() }
        return try connection.rows(sql)
    }

    @Test("the metadata says Core Data wrote it; compatibility is decided by structure")
    func writerAndCompatibility() throws {
        try AppleLayoutStore.write(to: url)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        #expect(metadata.writer == .coreData(frameworkVersion: 1344))
        #expect(metadata.writer.description == "written by Core Data (framework version 1344)")
        #expect(try PersistentStoreCoordinator.compatibility(ofStoreAt: url, with: AppleLayoutStore.model())
            == .matchingStructure)
        let (_, store) = try open()
        #expect(try #require(store.backend as? SQLiteStore).compatibility == .matchingStructure)
    }

    @Test("opening and reading leave every byte of the file as it was, and the rows read right")
    func readingChangesNothing() throws {
        try AppleLayoutStore.write(to: url)
        let before = try Data(contentsOf: url)
        let snapshot = try AppleLayoutStore.Snapshot(url)
        #expect(snapshot.journalMode == "delete")
        do {
            let (coordinator, _) = try open()
            let context = context(coordinator)
            try context.performAndWait {
                #expect(try context.count(for: FetchRequest(entityName: "Book")) == 2)
                #expect(try context.count(for: FetchRequest(entityName: "Ebook")) == 1)
                #expect(try context.count(for: FetchRequest(entityName: "Author")) == 2)
                #expect(try context.count(for: FetchRequest(entityName: "Page")) == 3)
                func title(_ book: ManagedObject) -> String {
                    if case .string(let title) = book.value(forKey: "title") { title } else { "" }
                }
                let books = try context.fetch(FetchRequest(entityName: "Book")).sorted { title($0) < title($1) }
                #expect(books.map(\.entity.name) == ["Ebook", "Book"])
                let notes = books[1]
                #expect(notes.value(forKey: "title") == .string("Notes"))
                #expect(notes.value(forKey: "published") == .date(Date(timeIntervalSinceReferenceDate: AppleLayoutStore.published)))
                #expect(notes.value(forKey: "bookID") == .uuid(AppleLayoutStore.bookID))
                #expect(notes.value(forKey: "pagesCount") == .integer(2))
                #expect(Set(notes.relatedObjects(forKey: "authors").map { $0.value(forKey: "lastName") })
                    == [.string("Lovelace"), .string("Hopper")])
                #expect(notes.relatedObjects(forKey: "pages").count == 2)
                #expect(books[0].value(forKey: "fileSize") == .integer(2048))
                #expect(books[0].relatedObject(forKey: "publisher")?.value(forKey: "name") == .string("Acme"))
                let page = try #require(try context.fetch(FetchRequest(entityName: "Page",
                    predicate: FetchPredicate(format: "book.title == 'Compilers'"))).first)
                #expect(page.relatedObject(forKey: "book")?.entity.name == "Ebook")
            }
        }
        #expect(try AppleLayoutStore.Snapshot(url) == snapshot)
        #expect(try Data(contentsOf: url) == before, "reading rewrote the file")
    }

    @Test("an insert and a batch update keep the journal mode, indexes, triggers, metadata and model cache")
    func writingKeepsItApple() throws {
        try AppleLayoutStore.write(to: url)
        let snapshot = try AppleLayoutStore.Snapshot(url)
        let (coordinator, _) = try open()
        let context = context(coordinator)
        try context.performAndWait {
            let publisher = try context.insertNewObject(forEntityName: "Publisher")
            publisher["name"] = "Zephyr"
            let book = try context.insertNewObject(forEntityName: "Book")
            book["title"] = "Sea"
            book.setRelatedObject(publisher, forKey: "publisher")
            for number in 1...3 {
                let page = try context.insertNewObject(forEntityName: "Page")
                page["number"] = number
                page.setRelatedObject(book, forKey: "book")
            }
            let ada = try #require(try context.fetch(FetchRequest(entityName: "Author",
                predicate: FetchPredicate(format: "firstName == 'Ada'"))).first)
            book.addRelatedObject(ada, forKey: "authors")
            try context.save()
        }
        _ = try coordinator.execute(BatchUpdateRequest(entityName: "Book",
            predicate: try FetchPredicate(format: "title == 'Notes'"), propertiesToUpdate: ["title": "Notes, 2nd ed."]))

        #expect(try AppleLayoutStore.Snapshot(url) == snapshot, "the schema, journal mode or metadata changed")
        // Keys come from Z_PRIMARYKEY, which moved past them; rows are Core Data's (Z_ENT, Z_OPT).
        #expect(try rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { $0[1] }
            == [.integer(2), .integer(3), .integer(0), .integer(6), .integer(2)])
        #expect(try rows("SELECT Z_PK, Z_ENT, Z_OPT, ZPUBLISHER, ZPAGESCOUNT FROM ZBOOK WHERE ZTITLE = 'Sea'")
            == [[.integer(3), .integer(2), .integer(1), .integer(2), .integer(3)]])
        #expect(try rows("SELECT Z_PK, Z_ENT, Z_OPT FROM ZPUBLISHER WHERE ZNAME = 'Zephyr'")
            == [[.integer(2), .integer(5), .integer(1)]])
        #expect(try rows("SELECT Z_1AUTHORS FROM Z_1BOOKS WHERE Z_2BOOKS = 3") == [[.integer(1)]])
        // The batch update bumped the row's version (it was 3) and left the trigger-kept count alone.
        #expect(try rows("SELECT Z_OPT, ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = 1") == [[.integer(4), .integer(2)]])
        #expect(try rows("SELECT ZTITLE FROM ZBOOK WHERE Z_PK = 1") == [[.text("Notes, 2nd ed.")]])
    }

    @Test("setting the app's metadata keeps every Core Data key, value and type; an unchanged set writes nothing")
    func metadataKeepsCoreDataKeys() throws {
        try AppleLayoutStore.write(to: url)
        let original = try AppleLayoutStore.plist(url)
        let (coordinator, store) = try open()
        var metadata = try coordinator.metadata(for: store)
        #expect(metadata.userInfo["lastSyncToken"] == .string("token-41"))
        let untouched = try AppleLayoutStore.Snapshot(url)
        try coordinator.setMetadata(metadata, for: store)
        #expect(try AppleLayoutStore.Snapshot(url) == untouched, "an unchanged setMetadata rewrote Z_METADATA")

        metadata.userInfo["lastSyncToken"] = .string("token-42")
        metadata.userInfo["importedRows"] = .integer(7)
        metadata.userInfo["NSStoreModelVersionHashesDigest"] = .string("changed by the app")
        try coordinator.setMetadata(metadata, for: store)
        let written = try AppleLayoutStore.plist(url)
        #expect(Set(written.keys) == Set(original.keys).union(["importedRows"]))
        for key in original.keys where key != "lastSyncToken" {
            let was = MetadataValue(propertyListObject: try #require(original[key]))
            #expect(was != nil && was == written[key].flatMap(MetadataValue.init(propertyListObject:)), "\(key) changed")
        }
        #expect(written["_NSAutoVacuumLevel"] as? String == "2")
        #expect(written["NSPersistenceFrameworkVersion"] as? Int == 1344)
        #expect(written["lastSyncToken"] as? String == "token-42")
        #expect(written["importedRows"] as? Int == 7)
        #expect(try AppleLayoutStore.Snapshot(url).uuid == AppleLayoutStore.storeUUID)
        #expect(try AppleLayoutStore.Snapshot(url).journalMode == "delete")
    }

    @Test("a model that differs is refused, naming the first table or column that differs; the file is untouched",
        arguments: [
            (#"<attribute name="subtitle" optional="YES" attributeType="String"/>"#, "Integer 32", "Book",
                "table ZBOOK has no column ZSUBTITLE (for entity Book)"),
            ("", "String", "Book", "column ZPAGE.ZNUMBER is INTEGER in the store, VARCHAR for the model"),
            ("", "Integer 32", "", "entity Ebook has superentity Book in Z_PRIMARYKEY, none in the model"),
        ])
    func structuralRefusal(bookExtra: String, pageNumberType: String, ebookParent: String, difference: String) throws {
        try AppleLayoutStore.write(to: url)
        let before = try Data(contentsOf: url)
        let model = try AppleLayoutStore.model(bookExtra: bookExtra, pageNumberType: pageNumberType,
            ebookParent: ebookParent)
        #expect(try PersistentStoreCoordinator.compatibility(ofStoreAt: url, with: model)
            == .incompatible(reason: difference))
        #expect {
            _ = try open(model)
        } throws: { error in
            guard case ObjectGraphError.incompatibleStore(_, let reason) = error else { return false }
            return reason.contains(difference) && reason.contains("written by Core Data (framework version 1344)")
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("a column the model lacks is named")
    func extraColumn() throws {
        try AppleLayoutStore.write(to: url)
        let model = try ManagedObjectModel.load(xml: Data(AppleLayoutStore.modelXML(ebookAttributes: "").utf8),
            source: "AppleLayout.xcdatamodel")
        #expect(try PersistentStoreCoordinator.compatibility(ofStoreAt: url, with: model)
            == .incompatible(reason: "table ZBOOK has column ZFILESIZE, which the model does not have (for entity Book)"))
    }

    @Test("ordering columns and join tables are part of the structure", arguments: [
        (true, false, "table ZPAGE has no column Z_FOK_BOOK (for entity Page)"),
        (false, true, "table Z_1BOOKS has no column Z_FOK_2BOOKS (for a many-to-many relationship)"),
    ])
    func orderingColumns(pagesOrdered: Bool, authorBooksOrdered: Bool, difference: String) throws {
        try AppleLayoutStore.write(to: url)
        let model = try ManagedObjectModel.load(xml: Data(AppleLayoutStore.modelXML(pagesOrdered: pagesOrdered,
            authorBooksOrdered: authorBooksOrdered).utf8), source: "AppleLayout.xcdatamodel")
        #expect(try PersistentStoreCoordinator.compatibility(ofStoreAt: url, with: model)
            == .incompatible(reason: difference))
    }

    @Test("writes to tables with Core Data's derived-attribute triggers work: the functions they call exist")
    func derivedAttributeTriggers() throws {
        try AppleLayoutStore.write(to: url, callsCoreDataFunctions: true)
        let (coordinator, _) = try open()
        let context = context(coordinator)
        try context.performAndWait {
            let books = try context.fetch(FetchRequest(entityName: "Book", predicate: FetchPredicate(format: "title == 'Notes'")))
            let notes = try #require(books.first)
            for number in 1...4 {
                let page = try context.insertNewObject(forEntityName: "Page")
                page["number"] = number
                page.setRelatedObject(notes, forKey: "book")
            }
            try context.save()
            let compilers = try #require(try context.fetch(FetchRequest(entityName: "Ebook")).first)
            let pages = notes.relatedObjects(forKey: "pages")
            pages[0].setRelatedObject(compilers, forKey: "book")
            context.delete(pages[1])
            try context.save()
        }
        // The triggers' own UPDATEs kept the counts (Notes, then the Ebook Compilers).
        let counts = try rows("SELECT ZPAGESCOUNT FROM ZBOOK ORDER BY Z_PK")
        #expect(counts == [[.integer(4)], [.integer(2)]], "\(counts)")

        let connection = try SQLiteConnection.inMemory()
        try CoreDataTriggerFunctions.register(on: connection)
        let before = Date().timeIntervalSinceReferenceDate
        guard case .real(let now)? = try connection.scalar("SELECT NSCoreDataNow()") else {
            Issue.record("NSCoreDataNow() is not a number")
            return
        }
        #expect(now >= before && now <= Date().timeIntervalSinceReferenceDate)
        #expect(try connection.scalar("SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', 2, 1, 'pagesCount', 4)")
            == .null)
    }

    @Test("a store ObjectGraph creates says so, and keeps WAL and its own indexes")
    func ownStore() throws {
        let (coordinator, store) = try open()
        #expect(try coordinator.metadata(for: store).writer == .objectGraph)
        #expect(try rows("PRAGMA journal_mode") == [[.text("wal")]])
        #expect(try rows("SELECT name FROM sqlite_master WHERE name = 'ZAUTHOR_Z_ENT_INDEX'").count == 1)
        #expect(try PersistentStoreCoordinator.compatibility(ofStoreAt: url, with: AppleLayoutStore.model())
            == .matchingVersionHashes)
    }
}
