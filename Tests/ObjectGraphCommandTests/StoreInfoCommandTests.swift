import Foundation
import ObjectGraph
import Testing
import TestSupport

/// `objectgraph store-info`: metadata, version hashes, row counts, and a model that does not match.
@Suite("objectgraph store-info")
struct StoreInfoCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-store-info")
    var store: String { folder.file("catalog.sqlite").path }

    private func importRows(model: String) throws {
        let shelves = try folder.write("name\nA\nB\nC\n", to: "shelves.csv")
        let books = try folder.write("title,pages\nX,1\n", to: "books.csv")
        let ebooks = try folder.write("title,fileSize\nY,10\nZ,20\n", to: "ebooks.csv")
        for (entity, file) in [("Shelf", shelves), ("Book", books), ("Ebook", ebooks)] {
            try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", entity, file.path])
        }
    }

    /// The table row of `entity` in the report, split into its columns.
    private func row(_ entity: String, in output: String) -> [String]? {
        output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }.first { $0.first == entity }
    }

    @Test("store type, UUID, hashes in hex, a match, and rows per entity (without sub-entities' rows)")
    func matching() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        try importRows(model: model)
        let output = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", store])
        #expect(output.contains("Store type:          SQLite"), "\(output)")
        let uuidLine = try #require(output.split(separator: "\n").first { $0.hasPrefix("Store UUID:") })
        #expect(UUID(uuidString: String(uuidLine.split(separator: " ").last ?? "")) != nil, "\(uuidLine)")
        let hashLine = try #require(output.split(separator: "\n").first { $0.hasPrefix("Model version hash:") })
        let hash = String(hashLine.split(separator: " ").last ?? "")
        #expect(hash.count == 64 && hash.allSatisfy(\.isHexDigit), "\(hashLine)")
        #expect(output.contains("Matches the model:   yes"))

        #expect(row("Shelf", in: output)?[1] == "3")
        #expect(row("Book", in: output)?[1] == "1")
        #expect(row("Ebook", in: output)?[1] == "2")
        #expect(row("Item", in: output)?[1] == "0")
        #expect(row("Gadget", in: output)?[1] == "0")
        for entity in ["Item", "Book", "Ebook", "Gadget", "Shelf"] {
            let entityHash = try #require(row(entity, in: output)?[2], "no row for \(entity) in\n\(output)")
            #expect(entityHash.count == 64 && entityHash.allSatisfy(\.isHexDigit))
        }
    }

    @Test("the text search line says how the model's text-indexed attributes are searched, and only when it has some")
    func textSearchLine() throws {
        let people = folder.file("people.sqlite").path
        let sample = ModelFixtures.packageRoot.appendingPathComponent("Resources/SamplePeople.json")
        try ObjectGraphTool.succeed(["import", "--model", ModelFixtures.people.path, "--store", people, "--entity",
            "Person", sample.path])
        let output = try ObjectGraphTool.succeed(["store-info", "--model", ModelFixtures.people.path, "--store", people])
        #expect(output.contains("Text search:         FTS5 trigram index (patterns of three or more characters) for "
            + "Person.city, Person.email, Person.firstName, Person.lastName"), "\(output)")
        let model = try ModelFixtures.catalog(in: folder.url).path
        try importRows(model: model)
        let catalog = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", store])
        #expect(!catalog.contains("Text search:"), "\(catalog)")
    }

    @Test("an atomic store is recognised by its first bytes: store-info, query and counts work on it")
    func atomicStore() throws {
        let modelURL = try ModelFixtures.catalog(in: folder.url)
        let atomicURL = folder.file("catalog.store")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel.load(contentsOf: modelURL))
        try coordinator.addPersistentStore(ofType: .atomic, at: atomicURL)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for name in ["A", "B", "C", "D"] { try context.insertNewObject(forEntityName: "Shelf")["name"] = name }
            try context.save()
        }
        let info = try ObjectGraphTool.succeed(["store-info", "--model", modelURL.path, "--store", atomicURL.path])
        #expect(info.contains("Store type:          Binary"), "\(info)")
        #expect(row("Shelf", in: info)?[1] == "4", "\(info)")
        let count = try ObjectGraphTool.succeed(
            ["query", "--model", modelURL.path, "--store", atomicURL.path, "--entity", "Shelf", "--count"])
        #expect(count == "4\n")
    }

    @Test("a mismatched model still shows the metadata, marks what differs, and exits non-zero")
    func mismatched() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        try importRows(model: model)
        let changedFolder = folder.file("changed")
        let changed = try ModelFixtures.write(
            ModelFixtures.catalogContents(extraShelfAttribute: #"<attribute name="colour" optional="YES" attributeType="String"/>"#),
            named: "Catalog", in: changedFolder)
        let result = try ObjectGraphTool.run(["store-info", "--model", changed.path, "--store", store])
        #expect(result.status != 0)
        let output = result.standardOutput
        #expect(output.contains("Store type:          SQLite"), "\(output)")
        #expect(output.contains("Store UUID:"))
        #expect(output.contains("Matches the model:   NO"))
        #expect(row("Shelf", in: output)?.contains("differs:") == true, "\(output)")
        #expect(row("Book", in: output)?.contains("differs:") == false)
        #expect(result.standardError.contains("does not match the model"), "stderr: \(result.standardError)")

        // The store is left as it was: the original model still opens it.
        #expect(try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", store]).contains("yes"))
    }

    @Test("a missing file and a file that is not a store are errors naming the file")
    func notAStore() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        let missing = try ObjectGraphTool.run(["store-info", "--model", model, "--store", folder.file("none.sqlite").path])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("none.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("none.sqlite").path))

        let text = try folder.write("not a database", to: "text.sqlite")
        let garbage = try ObjectGraphTool.run(["store-info", "--model", model, "--store", text.path])
        #expect(garbage.status != 0)
        #expect(garbage.standardError.contains("text.sqlite"))
        #expect(garbage.standardError.contains("not"), "\(garbage.standardError)")
    }
}

/// `objectgraph store-info` on a store with external binary data: the number and size of the files.
@Suite("objectgraph store-info: external binary data")
struct StoreInfoExternalDataTests {
    @Test("the files of values stored outside the database are counted and their size summed")
    func externalData() throws {
        let folder = TemporaryDirectory(prefix: "objectgraph-store-info-external")
        let modelURL = try ModelFixtures.write("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
                <entity name="Photo" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <attribute name="image" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                </entity>
            </model>
            """, named: "Photos", in: folder.url)
        let storeURL = folder.file("photos.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel.load(contentsOf: modelURL))
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = 100
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: storeURL, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for (title, size) in [("small", 10), ("large", 1_000), ("larger", 2_345)] {
                let photo = try context.insertNewObject(forEntityName: "Photo")
                photo["title"] = title
                photo["image"] = Data(count: size)
            }
            try context.save()
        }
        let output = try ObjectGraphTool.succeed(["store-info", "--model", modelURL.path, "--store", storeURL.path])
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("External data:") }, "\(output)")
        #expect(line.hasPrefix("External data:       2 files, 3345 bytes in "), "\(line)")
        #expect(line.hasSuffix(".photos_SUPPORT/_EXTERNAL_DATA"), "\(line)")
    }
}
