import Foundation
import ObjectGraph
import SQLiteStorage
import Testing
import TestSupport

/// `objectgraph store-info` on a store Core Data wrote: who wrote it, and how compatibility was decided.
@Suite("objectgraph store-info: stores Core Data wrote")
struct StoreInfoAppleStoreTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-store-info-apple")
    var store: String { folder.file("catalog.sqlite").path }

    /// A catalog store made to look as Core Data 1344 leaves one: DELETE journal mode and metadata with Apple's
    /// framework version and hashes ObjectGraph does not compute.
    private func appleStore(model: String) throws {
        let shelves = try folder.write("name\nA\nB\n", to: "shelves.csv")
        try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", shelves.path])
        let connection = try SQLiteConnection(path: store)
        defer { connection.close() }
        _ = try connection.scalar("PRAGMA journal_mode = DELETE")
        let hashes = Dictionary(uniqueKeysWithValues: ["Book", "Ebook", "Gadget", "Item", "Shelf"].enumerated().map {
            ($1, Data(repeating: UInt8($0 + 1), count: 32))
        })
        let plist = try PropertyListSerialization.data(fromPropertyList: [
            "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1344, "NSStoreModelVersionHashes": hashes,
            "NSStoreModelVersionHashesVersion": 3, "NSStoreModelVersionIdentifiers": [""], "_NSAutoVacuumLevel": "2",
        ] as [String: Any], format: .binary, options: 0)
        try connection.prepare("UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1").run([.blob([UInt8](plist))])
    }

    @Test("says Core Data wrote it, that it matches by structure, and counts its rows")
    func matchesByStructure() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        try appleStore(model: model)
        let output = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", store])
        #expect(output.contains("Store origin:        written by Core Data (framework version 1344)"), "\(output)")
        #expect(output.contains("Matches the model:   yes (by structure"), "\(output)")
        #expect(!output.contains("differs:"), "\(output)")
        let shelf = output.split(separator: "\n").map { $0.split(separator: " ") }.first { $0.first == "Shelf" }
        #expect(shelf?[1] == "2", "\(output)")
    }

    @Test("names the first column that differs and exits non-zero")
    func namesTheDifference() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        try appleStore(model: model)
        let changed = try ModelFixtures.write(
            ModelFixtures.catalogContents(extraShelfAttribute: #"<attribute name="colour" optional="YES" attributeType="String"/>"#),
            named: "Catalog", in: folder.file("changed"))
        let result = try ObjectGraphTool.run(["store-info", "--model", changed.path, "--store", store])
        #expect(result.status != 0)
        #expect(result.standardOutput.contains(
            "Matches the model:   NO — table ZSHELF has no column ZCOLOUR (for entity Shelf)"), "\(result.standardOutput)")
    }

    @Test("a store ObjectGraph wrote says so, and that its hashes match")
    func ownStore() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        let shelves = try folder.write("name\nA\n", to: "shelves.csv")
        try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", shelves.path])
        let output = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", store])
        #expect(output.contains("Store origin:        written by ObjectGraph"), "\(output)")
        #expect(output.contains("Matches the model:   yes (the entity version hashes are the model's)"), "\(output)")
    }
}
