import Foundation
import SQLiteStorage
import Testing
import TestSupport
@testable import ObjectGraph

/// `objectgraph model` on compiled models: a `.mom` file, and `--from-store` reading a Core Data store's model
/// cache.
@Suite("objectgraph model: compiled models and model caches")
struct CompiledModelCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-compiled-model")

    /// A one-entity compiled model (`Note`: `title` String, `created` Date), laid out as Xcode's compiler writes it.
    static func noteModelArchive() -> Data {
        let archive = KeyedArchiveBuilder()
        let model = archive.reserve()
        let entity = archive.reserve()
        func attribute(_ name: String, type: Int64) -> PropertyListValue {
            archive.object("NSAttributeDescription", chain: ["NSPropertyDescription"], fields: [
                ("NSPropertyName", archive.add(.string(name))), ("NSEntity", entity),
                ("NSAttributeType", .integer(type)), ("_P", .integer(0xF3)), ("NSIsOptional", .boolean(true)),
            ])
        }
        let properties = archive.dictionary([("created", attribute("created", type: 900)),
            ("title", attribute("title", type: 700))])
        archive.object("NSEntityDescription", fields: [("NSEntityName", archive.add(.string("Note"))),
            ("NSManagedObjectModel", model), ("NSProperties", properties)], into: entity)
        archive.object("NSManagedObjectModel", fields: [("NSEntities", archive.dictionary([("Note", entity)]))],
            into: model)
        return archive.archive(root: model)
    }

    /// `bytes` compressed as a raw DEFLATE stream (no header), as Core Data writes the cache.
    static func rawDeflate(_ bytes: Data) -> [UInt8] { [UInt8](RawDeflate.deflate(bytes)) }

    @Test("a .mom file is listed like its source")
    func momFile() throws {
        let mom = folder.file("Notes.mom")
        try Self.noteModelArchive().write(to: mom)
        let output = try ObjectGraphTool.succeed(["model", mom.path])
        #expect(output.contains("entity Note"), "\(output)")
        #expect(output.contains("created") && output.contains("Date"))
        #expect(output.contains("title") && output.contains("String"))
    }

    @Test("--from-store lists the model in a store's model cache, and says when there is none")
    func fromStore() throws {
        let store = folder.file("apple.sqlite")
        let connection = try SQLiteConnection(path: store.path)
        try connection.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        try connection.prepare("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)")
            .run([.blob(Self.rawDeflate(Self.noteModelArchive()))])
        connection.close()
        let output = try ObjectGraphTool.succeed(["model", "--from-store", store.path, "--json"])
        #expect(output.contains("\"Note\""), "\(output)")
        #expect(output.contains("\"title\""))

        let plain = folder.file("plain.sqlite")
        try SQLiteConnection(path: plain.path).execute("CREATE TABLE T (x)")
        let result = try ObjectGraphTool.run(["model", "--from-store", plain.path])
        #expect(result.status != 0)
        #expect(result.standardError.contains("no model cache"), "\(result.standardError)")
        #expect(try ObjectGraphTool.run(["model"]).status != 0)
    }
}
