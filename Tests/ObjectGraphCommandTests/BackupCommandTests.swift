import Foundation
import ObjectGraph
import Testing
import TestSupport

/// `objectgraph backup`: an online copy of a store, its checks, and its refusals.
@Suite("objectgraph backup")
struct BackupCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-backup")
    var store: String { folder.file("catalog.sqlite").path }

    private func importShelves(model: String, names: [String], into store: String) throws {
        let csv = try folder.write("name\n" + names.joined(separator: "\n") + "\n", to: "shelves-\(UUID().uuidString).csv")
        try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", csv.path])
    }

    /// The value after `label` in `store-info` output.
    private func field(_ label: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(label) }.map {
            String($0.dropFirst(label.count)).trimmingCharacters(in: .whitespaces)
        }
    }

    /// The Shelf row count `store-info` reports for `store`.
    private func shelfCount(model: String, store: String) throws -> String? {
        let output = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", store])
        return output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            .first { $0.first == "Shelf" }?[1]
    }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test("copies a store, keeping its UUID and rows")
    func backup() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        try importShelves(model: model, names: ["A", "B", "C"], into: store)
        let destination = folder.file("backups/catalog-copy.sqlite").path
        let output = try ObjectGraphTool.succeed(["backup", "--model", model, "--store", store, "--to", destination])
        #expect(output.contains(destination), "\(output)")
        #expect(exists(destination))
        #expect(try shelfCount(model: model, store: destination) == "3")
        let original = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", store])
        let copy = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", destination])
        #expect(field("Store UUID:", in: copy) != nil)
        #expect(field("Store UUID:", in: copy) == field("Store UUID:", in: original))
        #expect(output.contains(field("Store UUID:", in: original) ?? "?"))
    }

    @Test("a store that another program is writing is copied with the saves still in its WAL")
    func liveStore() throws {
        let model = try ModelFixtures.catalog(in: folder.url)
        try importShelves(model: model.path, names: ["Seed"], into: store)
        // This process keeps the store open and saves into it; the rows stay in its -wal file meanwhile.
        let loaded = try ManagedObjectModel.load(contentsOf: model, classes: [])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: loaded)
        try coordinator.addPersistentStore(ofType: .sqlite, at: URL(fileURLWithPath: store))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for index in 0..<40 {
                let shelf = try context.insertNewObject(forEntityName: "Shelf")
                shelf["name"] = "Live \(index)"
            }
            try context.save()
        }
        let walSize = (try FileManager.default.attributesOfItem(atPath: store + "-wal")[.size] as? Int) ?? 0
        #expect(walSize > 0)

        let destination = folder.file("live-copy.sqlite").path
        try ObjectGraphTool.succeed(["backup", "--model", model.path, "--store", store, "--to", destination])
        #expect(try shelfCount(model: model.path, store: destination) == "41")
        // The store was not disturbed: it still saves.
        try context.performAndWait {
            let shelf = try context.insertNewObject(forEntityName: "Shelf")
            shelf["name"] = "After"
            try context.save()
        }
        #expect(try shelfCount(model: model.path, store: destination) == "41")
    }

    @Test("a missing store, a file that is not a store and a store of another model are refused")
    func badStores() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        let destination = folder.file("copy.sqlite").path

        let missing = try ObjectGraphTool.run(["backup", "--model", model, "--store", folder.file("none.sqlite").path,
            "--to", destination])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("none.sqlite") && missing.standardError.contains("no such file"),
            "stderr: \(missing.standardError)")
        #expect(!exists(folder.file("none.sqlite").path))

        let text = try folder.write("just some text", to: "notes.sqlite")
        let garbage = try ObjectGraphTool.run(["backup", "--model", model, "--store", text.path, "--to", destination])
        #expect(garbage.status != 0)
        #expect(garbage.standardError.contains("notes.sqlite") && garbage.standardError.contains("not an ObjectGraph store"),
            "stderr: \(garbage.standardError)")
        #expect(try String(contentsOf: text, encoding: .utf8) == "just some text")

        let empty = try folder.write("", to: "empty.sqlite")
        let emptyStore = try ObjectGraphTool.run(["backup", "--model", model, "--store", empty.path, "--to", destination])
        #expect(emptyStore.status != 0)
        #expect(emptyStore.standardError.contains("not an ObjectGraph store"), "stderr: \(emptyStore.standardError)")
        #expect(try Data(contentsOf: empty).isEmpty)

        try importShelves(model: model, names: ["A"], into: store)
        let changed = try ModelFixtures.write(
            ModelFixtures.catalogContents(extraShelfAttribute: #"<attribute name="colour" optional="YES" attributeType="String"/>"#),
            named: "Catalog", in: folder.file("changed"))
        let mismatch = try ObjectGraphTool.run(["backup", "--model", changed.path, "--store", store, "--to", destination])
        #expect(mismatch.status != 0)
        #expect(mismatch.standardError.contains("written for another version of the model"), "stderr: \(mismatch.standardError)")
        #expect(!exists(destination))

        let ontoItself = try ObjectGraphTool.run(["backup", "--model", model, "--store", store, "--to", store])
        #expect(ontoItself.status != 0)
        #expect(ontoItself.standardError.contains("onto itself"), "stderr: \(ontoItself.standardError)")
        #expect(try shelfCount(model: model, store: store) == "1")
    }

    @Test("an existing destination needs --force, and a file that is not a store is never overwritten")
    func existingDestination() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        try importShelves(model: model, names: ["A", "B"], into: store)
        let older = folder.file("older.sqlite").path
        try importShelves(model: model, names: ["Old 1", "Old 2", "Old 3", "Old 4"], into: older)

        let refused = try ObjectGraphTool.run(["backup", "--model", model, "--store", store, "--to", older])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("already exists") && refused.standardError.contains("--force"),
            "stderr: \(refused.standardError)")
        #expect(try shelfCount(model: model, store: older) == "4")

        let forced = try ObjectGraphTool.succeed(["backup", "--model", model, "--store", store, "--to", older, "--force"])
        #expect(forced.contains("Replaced"), "\(forced)")
        #expect(try shelfCount(model: model, store: older) == "2")
        let original = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", store])
        let copy = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", older])
        #expect(field("Store UUID:", in: copy) == field("Store UUID:", in: original))

        let notes = try folder.write("precious notes", to: "notes.txt")
        let protected = try ObjectGraphTool.run(["backup", "--model", model, "--store", store, "--to", notes.path, "--force"])
        #expect(protected.status != 0)
        #expect(protected.standardError.contains("not an ObjectGraph store"), "stderr: \(protected.standardError)")
        #expect(try String(contentsOf: notes, encoding: .utf8) == "precious notes")

        let directory = folder.file("a-folder")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let intoFolder = try ObjectGraphTool.run(["backup", "--model", model, "--store", store, "--to", directory.path,
            "--force"])
        #expect(intoFolder.status != 0)
        #expect(intoFolder.standardError.contains("directory"), "stderr: \(intoFolder.standardError)")
    }

    @Test("backup has --help and is listed")
    func help() throws {
        let output = try ObjectGraphTool.succeed(["backup", "--help"])
        #expect(output.contains("USAGE: objectgraph backup"), "\(output)")
        #expect(output.contains("--force"))
        #expect(try ObjectGraphTool.succeed(["--help"]).contains("backup"))
    }
}
