import Foundation
import Testing
import TestSupport

/// `objectgraph migrate` and the store's model version in `store-info`, with the `Library` fixture (three
/// versions) of the framework's migration tests.
@Suite("objectgraph migrate")
struct MigrateCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-migrate")
    var store: String { folder.file("library.sqlite").path }
    static let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ObjectGraphTests/Fixtures/Migration/Library.xcdatamodeld")
    var version1: String { Self.library.appendingPathComponent("Library.xcdatamodel").path }

    /// A version-1 store with two authors, imported through the version's own folder.
    private func writeVersion1() throws {
        let authors = try folder.write("name,born\nAda,1815\nBob,1900\n", to: "authors.csv")
        try ObjectGraphTool.succeed(["import", "--model", version1, "--store", store, "--entity", "Author", authors.path])
    }

    private func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: store)) }

    @Test("store-info names the store's version; query refuses an old store; --dry-run reports; migrate migrates")
    func migrateFlow() throws {
        try writeVersion1()
        let info = try ObjectGraphTool.succeed(["store-info", "--model", version1, "--store", store])
        #expect(info.contains("Store model version: Library\n"), "\(info)")

        let refused = try ObjectGraphTool.run(["query", "--model", Self.library.path, "--store", store, "--entity", "Author"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("migrate"), "\(refused.standardError)")

        let before = try bytes()
        let dryRun = try ObjectGraphTool.succeed(["migrate", "--model", Self.library.path, "--store", store, "--dry-run"])
        #expect(dryRun.contains("Would migrate \(store) from Library to Library 3:"), "\(dryRun)")
        #expect(dryRun.contains("Library → Library 2:") && dryRun.contains("Library 2 → Library 3:"))
        #expect(dryRun.contains("attribute renamed: Author.name → fullName"))
        #expect(dryRun.contains("relationship made to-many: Book.authors"))
        #expect(try bytes() == before)

        let migrated = try ObjectGraphTool.succeed(["migrate", "--model", Self.library.path, "--store", store])
        #expect(migrated.contains("Migrated \(store) from Library to Library 3:"), "\(migrated)")
        let after = try ObjectGraphTool.succeed(["store-info", "--model", Self.library.path, "--store", store])
        #expect(after.contains("Store model version: Library 3\n") && after.contains("Matches the model:   yes"), "\(after)")
        let rows = try ObjectGraphTool.succeed(["query", "--model", Self.library.path, "--store", store,
            "--entity", "Author", "--sort", "fullName"])
        #expect(rows.contains("Ada") && rows.contains("Bob") && rows.contains("unknown"), "\(rows)")

        let again = try ObjectGraphTool.succeed(["migrate", "--model", Self.library.path, "--store", store])
        #expect(again.contains("already at model version Library 3"), "\(again)")
    }

    @Test("a change that cannot be inferred is reported with its reason, exit 1, and the store is unchanged")
    func refused() throws {
        try writeVersion1()
        let bundle = folder.file("Narrow.xcdatamodeld")
        try FileManager.default.copyItem(at: Self.library, to: bundle)
        let version2 = bundle.appendingPathComponent("Library 2.xcdatamodel/contents")
        let text = try String(contentsOf: version2, encoding: .utf8)
        try Data(text.replacingOccurrences(of: #"name="born" optional="YES" attributeType="Integer 32""#,
            with: #"name="born" optional="YES" attributeType="String""#).utf8).write(to: version2)
        let before = try bytes()
        let result = try ObjectGraphTool.run(["migrate", "--model", bundle.path, "--store", store])
        #expect(result.status == 1)
        #expect(result.standardError.contains("cannot be migrated from model Library to Library 2"), "\(result.standardError)")
        #expect(result.standardError.contains("attribute Author.born changes type from Integer 16 to String"))
        #expect(try bytes() == before)
    }
}
