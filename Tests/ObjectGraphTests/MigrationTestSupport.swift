import Foundation
import Testing
@testable import ObjectGraph
import SQLiteStorage

/// Model bundles for migration tests: the `Library` fixture (three versions, in Fixtures/Migration), and
/// small bundles written on the fly from entity XML, one version per string.
enum MigrationFixtures {
    static let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Migration/Library.xcdatamodeld")

    /// Writes `Name.xcdatamodeld` into `directory` with versions `Name`, `Name 2`, … holding `versions`
    /// (each the `<entity>` elements of one version), the last one current.
    static func bundle(_ versions: [String], in directory: TemporaryDirectory, name: String = "Test") throws -> URL {
        let bundle = directory.file("\(name).xcdatamodeld")
        for (index, entities) in versions.enumerated() {
            let version = index == 0 ? name : "\(name) \(index + 1)"
            let folder = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let xml = """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic">
                \(entities)
                </model>
                """
            try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        return bundle
    }

    /// A coordinator with an SQLite store at `url` for version `version` of `bundle` (`nil`: the current one).
    static func open(_ url: URL, bundle: URL, version: String? = nil, options: PersistentStoreOptions = .init())
        throws -> PersistentStoreCoordinator
    {
        let models = try ModelBundle(contentsOf: bundle)
        let model = try version.map { try models.model(named: $0) } ?? models.currentModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        return coordinator
    }

    /// A private-queue context on `coordinator`.
    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Saves the v1 `Library` rows: Ada (2 books, one shelved, both tagged), Bob (1 book), and an Obsolete row.
    static func fillLibraryVersion1(_ context: ManagedObjectContext) throws {
        try context.performAndWait {
            let ada = try context.insertNewObject(forEntityName: "Author")
            ada["name"] = "Ada"
            ada["born"] = Int64(1815)
            ada["rating"] = 4.5
            let bob = try context.insertNewObject(forEntityName: "Author")
            bob["name"] = "Bob"
            let shelf = try context.insertNewObject(forEntityName: "Shelf")
            shelf["label"] = "Top"
            let fiction = try context.insertNewObject(forEntityName: "Tag")
            fiction["name"] = "fiction"
            let maths = try context.insertNewObject(forEntityName: "Tag")
            maths["name"] = "maths"
            for (title, author, pages) in [("Notes", ada, 30), ("Engines", ada, 120), ("Cats", bob, 12)] {
                let book = try context.insertNewObject(forEntityName: "Book")
                book["title"] = title
                book["isbn"] = "isbn-\(title)"
                book["pages"] = Int64(pages)
                book.setRelatedObject(author, forKey: "author")
                if author === ada {
                    book.setRelatedObjects(title == "Notes" ? [maths, fiction] : [maths], forKey: "tags")
                }
                if title == "Notes" { book.setRelatedObject(shelf, forKey: "shelf") }
            }
            let obsolete = try context.insertNewObject(forEntityName: "Obsolete")
            obsolete["note"] = "gone"
            try context.save()
        }
    }

    /// Every row of `sql` on the store file, read directly (the oracle for what the migration wrote).
    static func rows(_ url: URL, _ sql: String) throws -> [[SQLiteValue]] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { connection.close() }
        return try connection.rows(sql)
    }

    /// The column names of `table`.
    static func columns(_ url: URL, _ table: String) throws -> [String] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { connection.close() }
        return try connection.columnNames(ofTable: table)
    }

    /// The bytes of the store file and its side files, after a checkpoint (so the comparison sees everything).
    static func bytes(_ url: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for suffix in ["", "-wal", "-journal"] {
            let file = URL(fileURLWithPath: url.path + suffix)
            if let data = try? Data(contentsOf: file), !data.isEmpty { result[suffix] = data }
        }
        return result
    }
}
