import Foundation
import Testing
import TestSupport
@testable import ObjectGraph

/// Transformable values (issue 33): keyed archives of property-list-like Foundation objects, in the forms Apple's
/// archiver writes and Foundation's on Linux writes, decoded into ``ArchivedValue`` and written back.
@Suite struct ArchivedValueTests {
    /// A random value tree, `depth` levels of collections at most.
    static func randomValue(_ random: inout SeededRandom, depth: Int) -> ArchivedValue {
        let texts = ["", "a", "Zoë", "日本語", "🙂 ok", "line\nbreak", "$null", "NS.string"]
        switch Int.random(in: 0..<(depth > 0 ? 12 : 9), using: &random) {
        case 0: return .null
        case 1: return .string(texts.randomElement(using: &random) ?? "")
        case 2: return .integer(Int64.random(in: Int64.min...Int64.max, using: &random) >> Int64.random(in: 0...63, using: &random))
        case 3: return .double([0.5, -1e300, 3.25, .infinity, 1e-7].randomElement(using: &random) ?? 0)
        case 4: return .boolean(Bool.random(using: &random))
        case 5: return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -1_000_000...1_000_000_000, using: &random)) / 4))
        case 6: return .data(Data((0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case 7: return .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, UInt8.random(in: 0...255, using: &random))))
        case 8: return .url(URL(string: ["https://example.org/a?b=c", "file:///tmp/x%20y"].randomElement(using: &random) ?? "https://x")!)
        case 9: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in randomValue(&random, depth: depth - 1) })
        case 10: return .set(Set((0..<Int.random(in: 0...4, using: &random)).map { _ in randomValue(&random, depth: depth - 1) }))
        default:
            var entries: [String: ArchivedValue] = [:]
            for index in 0..<Int.random(in: 0...4, using: &random) { entries["k\(index)"] = randomValue(&random, depth: depth - 1) }
            return .dictionary(entries)
        }
    }

    @Test func randomValuesRoundTrip() throws {
        var random = SeededRandom(seed: 1800)
        for _ in 0..<500 {
            let value = Self.randomValue(&random, depth: 3)
            let archive = value.keyedArchive()
            let decoded = try ArchivedValue(keyedArchive: archive)
            #expect(decoded == value, "\(value) → \(decoded)")
        }
    }

    @Test func foundationsArchiverAndOursAgree() throws {
        // Foundation's own archives decode; ours are archives Foundation's unarchiver reads back as the same objects.
        let object: NSDictionary = ["name": "Zoë", "tags": ["a", "b"] as NSArray, "count": 3, "ok": true,
            "when": NSDate(timeIntervalSinceReferenceDate: 42), "bytes": NSData(data: Data([9, 8]))]
        let expected = ArchivedValue.dictionary(["name": .string("Zoë"), "tags": .array([.string("a"), .string("b")]),
            "count": .integer(3), "ok": .boolean(true), "when": .date(Date(timeIntervalSinceReferenceDate: 42)),
            "bytes": .data(Data([9, 8]))])
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
        #expect(try ArchivedValue(keyedArchive: theirs) == expected)
        let read = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(expected.keyedArchive()) as? NSDictionary
        #expect(read == object)
    }

    @Test func applesObjectFormsDecode() throws {
        let builder = KeyedArchiveBuilder()
        let base = builder.object("NSURL", fields: [("NS.base", .uid(0)), ("NS.relative", builder.add(.string("https://example.org/dir/")))])
        let url = builder.object("NSURL", fields: [("NS.base", base),
            ("NS.relative", builder.object("NSMutableString", chain: ["NSString"], fields: [("NS.string", .string("page.html"))]))])
        let root = builder.dictionary([
            ("name", builder.object("NSMutableString", chain: ["NSString"], fields: [("NS.string", .string("Zoë"))])),
            ("born", builder.object("NSDate", fields: [("NS.time", .real(721_692_800))])),
            ("bytes", builder.object("NSMutableData", chain: ["NSData"], fields: [("NS.data", .data(Data([1, 2, 3])))])),
            ("id", builder.object("NSUUID", fields: [("NS.uuidbytes", .data(Data(0..<16)))])),
            ("home", url),
            ("tags", builder.array([builder.add(.string("a")), builder.add(.integer(7)), builder.add(.boolean(true))],
                className: "NSMutableArray")),
            ("none", builder.object("NSNull", fields: [])),
        ])
        let value = try ArchivedValue(keyedArchive: builder.archive(root: root))
        #expect(value == .dictionary([
            "name": .string("Zoë"), "born": .date(Date(timeIntervalSinceReferenceDate: 721_692_800)),
            "bytes": .data(Data([1, 2, 3])), "id": .uuid(UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))),
            "home": .url(URL(string: "https://example.org/dir/page.html")!),
            "tags": .array([.string("a"), .integer(7), .boolean(true)]), "none": .null,
        ]))
    }

    @Test func otherClassesAndBadBytesAreErrors() throws {
        let builder = KeyedArchiveBuilder()
        let root = builder.object("MyApp.Palette", fields: [("colors", builder.add(.integer(3)))])
        #expect {
            try ArchivedValue(keyedArchive: builder.archive(root: root))
        } throws: { error in
            (error as? ArchivedValue.DecodingError)?.reason.contains("MyApp.Palette") == true
        }
        #expect(throws: ArchivedValue.DecodingError.self) { try ArchivedValue(keyedArchive: Data("plain".utf8)) }
        // A self-containing array (a cycle) ends at the depth limit, never loops.
        let cyclic = KeyedArchiveBuilder()
        let slot = cyclic.reserve()
        cyclic.object("NSArray", fields: [("NS.objects", .array([slot]))], into: slot)
        #expect(throws: ArchivedValue.DecodingError.self) { try ArchivedValue(keyedArchive: cyclic.archive(root: slot)) }
        let good = ArchivedValue.dictionary(["a": .array([.string("x"), .integer(1)])]).keyedArchive()
        for cut in 0..<good.count { _ = try? ArchivedValue(keyedArchive: good.prefix(cut)) }
    }

    @Test func aTransformableAttributeStoresAndReadsTheArchive() throws {
        let directory = TemporaryDirectory()
        let model = try ManagedObjectModel(entities: [EntityDescription(name: "Note", attributes: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "extras", type: .transformable, valueTransformerName: "NSSecureUnarchiveFromData"),
        ])])
        let url = directory.file("notes.sqlite")
        let value = ArchivedValue.dictionary(["tags": .array([.string("swift"), .string("linux")]), "stars": .integer(5)])
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
            let context = MigrationFixtures.context(coordinator)
            try context.performAndWait {
                let note = try context.insertNewObject(forEntityName: "Note")
                note["title"] = "n"
                note["extras"] = value
                try context.save()
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
        let context = MigrationFixtures.context(coordinator)
        let read: ArchivedValue? = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first?["extras"]
        }
        #expect(read == value)
        // The column holds the archive itself, as Core Data's secure transformer stores it.
        let stored = try MigrationFixtures.rows(url, "SELECT ZEXTRAS FROM ZNOTE")
        guard case .blob(let bytes)? = stored.first?.first else {
            Issue.record("no blob: \(stored)")
            return
        }
        #expect(bytes.starts(with: Array("bplist00".utf8)))
    }
}
