import Foundation
import Testing
@testable import ObjectGraph

/// What opening a damaged, foreign or newer atomic store file does: a typed error, never a crash, and the file
/// left as it was; what a full disk does to a save (on a real tmpfs, as root); and what opening a store written
/// with another model version does: migrate (the differential oracle is the SQLite store migrated from the
/// same rows) or refuse.
@Suite struct AtomicStoreFileTests {
    /// A small atomic store of the test model (people and items), and its bytes.
    private static func sampleStore(in directory: TemporaryDirectory) throws -> (URL, Data) {
        let url = directory.file("sample.store")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        try coordinator.addPersistentStore(ofType: .atomic, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for index in 0..<12 {
                let person = try context.insertNewObject(forEntityName: "Person")
                person["lastName"] = "Person \(index)"
                person["age"] = Int64(index * 3)
                person["createdAt"] = Date(timeIntervalSinceReferenceDate: Double(index) * 1000.5)
                let item = try context.insertNewObject(forEntityName: "Item")
                item["name"] = "Item \(index)"
                item["group"] = index.isMultiple(of: 2) ? "even" : "odd"
            }
            try context.save()
        }
        return (url, try Data(contentsOf: url))
    }

    /// Adds the store at `url` to a new coordinator; the error, or nil when it opened.
    private static func open(_ url: URL, model: ManagedObjectModel? = nil) throws -> ObjectGraphError? {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model ?? TestModels.model())
        do throws(ObjectGraphError) {
            try coordinator.addPersistentStore(ofType: .atomic, at: url)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyTruncationGivesATypedErrorAndLeavesTheFile() throws {
        let directory = TemporaryDirectory()
        let (url, bytes) = try Self.sampleStore(in: directory)
        var lengths = Array(stride(from: 1, to: bytes.count, by: max(1, bytes.count / 150)))
        lengths += [1, 7, 8, 9, bytes.count - 1, bytes.count - 32]
        for length in Set(lengths).sorted() {
            let truncated = bytes.prefix(length)
            try truncated.write(to: url)
            let error = try Self.open(url)
            switch error {
            case .damagedStore?: #expect(length >= 8, "\(length)")
            // Without the header's 8 bytes (or with nothing after them), the file is not known to be a store.
            case .notAnObjectGraphStore?: #expect(length <= 8, "\(length)")
            default: Issue.record("truncated to \(length) of \(bytes.count) bytes: \(String(describing: error))")
            }
            #expect(try Data(contentsOf: url) == truncated, "opening changed the file (\(length) bytes)")
        }
    }

    @Test func flippedBytesNeverCrashAndAreMostlyCaught() throws {
        let directory = TemporaryDirectory()
        let (url, bytes) = try Self.sampleStore(in: directory)
        var random = SeededRandom(seed: 0xA70)
        var caught = 0
        let trials = 300
        for _ in 0..<trials {
            var damaged = bytes
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let offset = Int.random(in: 8..<damaged.count, using: &random)
                damaged[offset] ^= UInt8.random(in: 1...255, using: &random)
            }
            try damaged.write(to: url)
            // Either a typed error, or a store that opens (a flip inside a string or a number changes only a value).
            if let error = try Self.open(url) {
                caught += 1
                switch error {
                case .damagedStore, .notAnObjectGraphStore, .incompatibleStore, .incompatibleModel: break
                default: Issue.record("unexpected error \(error)")
                }
            }
            #expect(try Data(contentsOf: url) == damaged)
        }
        #expect(caught > trials / 3, "only \(caught) of \(trials) damaged files were refused")
    }

    @Test func foreignAndNewerFilesAreRefusedWithoutBeingTouched() throws {
        let directory = TemporaryDirectory()
        let (url, bytes) = try Self.sampleStore(in: directory)
        let sqlite = directory.file("people.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        try coordinator.addPersistentStore(ofType: .sqlite, at: sqlite)
        let otherList = try PropertyListSerialization.data(fromPropertyList: ["format": "something else"],
            format: .binary, options: 0)
        var newer = try PropertyListDecoder().decode(AtomicStoreArchive.self, from: bytes)
        newer.formatVersion = 2
        let cases: [(String, Data?, (ObjectGraphError) -> Bool)] = [
            ("an SQLite store", nil, { if case .notAnObjectGraphStore(_, let reason) = $0 { reason.contains("SQLite") } else { false } }),
            ("text", Data("hello, world".utf8), { if case .notAnObjectGraphStore = $0 { true } else { false } }),
            ("another property list", otherList, { if case .notAnObjectGraphStore = $0 { true } else { false } }),
            ("a newer format", try newer.encoded(path: "x"), { if case .incompatibleStore = $0 { true } else { false } }),
        ]
        for (name, data, matches) in cases {
            let file = data == nil ? sqlite : directory.file("case.store")
            if let data { try data.write(to: file) }
            let before = try Data(contentsOf: file)
            let error = try #require(try Self.open(file), "\(name) opened")
            #expect(matches(error), "\(name): \(error)")
            #expect(try Data(contentsOf: file) == before)
        }
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func contentsThatDoNotFitTheModelAreReportedAsDamage() throws {
        let directory = TemporaryDirectory()
        let (url, bytes) = try Self.sampleStore(in: directory)
        let archive = try PropertyListDecoder().decode(AtomicStoreArchive.self, from: bytes)
        let person = try #require(archive.entities.firstIndex { $0.name == "Person" })
        var edits: [(String, (inout AtomicStoreArchive) -> Void)] = [
            ("unknown entity", { $0.entities[person].name = "Alien" }),
            ("attribute list", { $0.entities[person].attributes.removeLast() }),
            ("value count", { $0.entities[person].rows[0].values.removeLast() }),
            ("value kind", { $0.entities[person].rows[0].values[0] = .init(.integer(5)) }),
            ("repeated key", { $0.entities[person].rows[1].key = $0.entities[person].rows[0].key }),
            ("zero version", { $0.entities[person].rows[0].version = 0 }),
            ("to-one slot", {
                $0.entities[person].rows[0].toOne = [.init(slot: 9, destination: .init(entity: "Person", key: 1))]
            }),
            ("key counter", { $0.primaryKeys["Nobody"] = 3 }),
            ("to-many list", {
                $0.toMany = [.init(entity: "Person", relationship: "none", owner: 1, isOrder: false, members: [])]
            }),
            ("empty UUID", { $0.uuid = "" }),
        ]
        edits.append(("metadata", { $0.metadata = Data("junk".utf8) }))
        for (name, edit) in edits {
            var damaged = archive
            edit(&damaged)
            let data = try damaged.encoded(path: url.path)
            try data.write(to: url)
            let error = try #require(try Self.open(url), "\(name) opened")
            guard case .damagedStore = error else {
                Issue.record("\(name): \(error)")
                continue
            }
            #expect(try Data(contentsOf: url) == data)
        }
        // The untouched archive encodes to the same bytes and opens.
        try archive.encoded(path: url.path).write(to: url)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try Self.open(url) == nil)
    }

    @Test func anIncompatibleModelIsRefusedWithTheEntitiesThatDiffer() throws {
        let directory = TemporaryDirectory()
        let (url, bytes) = try Self.sampleStore(in: directory)
        var person = TestModels.person()
        person = EntityDescription(name: "Person", attributes: person.attributes + [
            AttributeDescription(name: "nickname", type: .string),
        ])
        let changed = try ManagedObjectModel(entities: [person, TestModels.item()])
        let error = try #require(try Self.open(url, model: changed))
        guard case .incompatibleModel(_, let entities, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(entities == ["Person"])
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func aFullDiskFailsTheSaveAndChangesNothing() throws {
        guard TmpfsMount.isAvailable else { return }
        let mount = try TmpfsMount(sizeBytes: 1 << 20)
        defer { mount.unmount() }
        let url = mount.directory.appendingPathComponent("full.store")
        let model = try TestModels.model()
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: .atomic, at: url)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                for index in 0..<20 {
                    let person = try context.insertNewObject(forEntityName: "Person")
                    person["lastName"] = "Person \(index)"
                }
                try context.save()
            }
            let bytes = try Data(contentsOf: url)
            // Fill the disk, leaving less room than the next rewrite needs.
            let free = try #require(FileManager.default.attributesOfFileSystem(forPath: mount.directory.path)[.systemFreeSize] as? Int)
            try Data(count: max(0, free - bytes.count - 4096)).write(to: mount.directory.appendingPathComponent("filler"))
            try context.performAndWait {
                for index in 0..<200 {
                    let person = try context.insertNewObject(forEntityName: "Person")
                    person["lastName"] = "More \(index) " + String(repeating: "x", count: 100)
                }
                let error = try #require(throws: ObjectGraphError.self) { try context.save() }
                guard case .fileOperationFailed(_, let reason) = error else {
            Issue.record("\(error)")
            return
        }
                #expect(reason.contains("errno \(ENOSPC)"), "\(reason)")
                #expect(context.insertedObjects.count == 200)
            }
            #expect(try Data(contentsOf: url) == bytes)
            #expect(try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) } == 220)
            // Room again: the same save goes through.
            try FileManager.default.removeItem(at: mount.directory.appendingPathComponent("filler"))
            try context.performAndWait { try context.save() }
        }
        let reader = PersistentStoreCoordinator(managedObjectModel: model)
        try reader.addPersistentStore(ofType: .atomic, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = reader
        #expect(try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) } == 220)
    }

    // MARK: Migration

    /// Writes version 1 of the `Library` fixture into a store of `type` at `url`.
    private static func writeLibraryVersion1(_ type: PersistentStoreType, at url: URL) throws {
        let model = try ModelBundle(contentsOf: MigrationFixtures.library).model(named: "Library")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, at: url)
        let context = MigrationFixtures.context(coordinator)
        try MigrationFixtures.fillLibraryVersion1(context)
    }

    /// Every object of every entity of `coordinator`'s model, with its values and relationships, by URI path
    /// (entity and key: the two stores have different UUIDs).
    private static func library(_ coordinator: PersistentStoreCoordinator) throws -> [String: String] {
        let context = MigrationFixtures.context(coordinator)
        return try context.performAndWait {
            var result: [String: String] = [:]
            func name(_ object: ManagedObject?) -> String {
                object.map { "\($0.entity.name)/\($0.objectID.primaryKey ?? 0)" } ?? "nil"
            }
            for entity in coordinator.managedObjectModel.entities {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                for object in try context.fetch(request) {
                    var parts: [String] = []
                    for attribute in entity.attributes where !attribute.isTransient {
                        parts.append("\(attribute.name)=\(object.value(forKey: attribute.name))")
                    }
                    for relationship in entity.relationships {
                        parts.append(relationship.isToMany
                            ? "\(relationship.name)=\(object.relatedObjects(forKey: relationship.name).map(name).sorted())"
                            : "\(relationship.name)=\(name(object.relatedObject(forKey: relationship.name)))")
                    }
                    result[name(object)] = parts.joined(separator: " ")
                }
            }
            return result
        }
    }

    @Test func anOlderAtomicStoreMigratesAsTheSQLiteStoreDoes() throws {
        let directory = TemporaryDirectory()
        let atomicURL = directory.file("library.store")
        let sqliteURL = directory.file("library.sqlite")
        try Self.writeLibraryVersion1(.atomic, at: atomicURL)
        try Self.writeLibraryVersion1(.sqlite, at: sqliteURL)
        let current = try ModelBundle(contentsOf: MigrationFixtures.library).currentModel()

        let atomic = PersistentStoreCoordinator(managedObjectModel: current)
        let store = try atomic.addPersistentStore(ofType: .atomic, at: atomicURL)
        let sqlite = PersistentStoreCoordinator(managedObjectModel: current)
        try sqlite.addPersistentStore(ofType: .sqlite, at: sqliteURL)
        let migrated = try Self.library(atomic)
        #expect(!migrated.isEmpty)
        #expect(migrated == (try Self.library(sqlite)))
        #expect(store.metadata.entityVersionHashes == current.entityVersionHashes)
        #expect(store.metadata.modelVersionName == current.versionName)
        // The migrated store was written back: a new coordinator opens it without migrating, with the same UUID.
        let again = PersistentStoreCoordinator(managedObjectModel: current)
        let reopened = try again.addPersistentStore(ofType: .atomic, configurationName: nil, at: atomicURL,
            options: PersistentStoreOptions(migratesAutomatically: false))
        #expect(reopened.identifier == store.identifier)
        #expect(try Self.library(again) == migrated)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(leftovers == ["library.sqlite", "library.sqlite-shm", "library.sqlite-wal", "library.store"]
            || leftovers == ["library.sqlite", "library.store"], "\(leftovers)")
    }

    @Test func aMigrationThatIsNotAllowedOrNotPossibleLeavesTheFileByteForByte() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("library.store")
        try Self.writeLibraryVersion1(.atomic, at: url)
        let bytes = try Data(contentsOf: url)
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        let current = try bundle.currentModel()
        for options in [PersistentStoreOptions(migratesAutomatically: false), PersistentStoreOptions(isReadOnly: true),
            PersistentStoreOptions(infersMappingModel: false)]
        {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: current)
            let error = try #require(throws: ObjectGraphError.self) {
                try coordinator.addPersistentStore(ofType: .atomic, configurationName: nil, at: url, options: options)
            }
            guard case .incompatibleModel(let path, let entities, _) = error else {
            Issue.record("\(error)")
            return
        }
            #expect(path == url.path && !entities.isEmpty)
            #expect(try Data(contentsOf: url) == bytes)
        }
        // A model whose versions are unknown (built in code, no bundle).
        let loose = ManagedObjectModel(copying: current, bundleURL: nil)
        let error = try #require(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(managedObjectModel: loose).addPersistentStore(ofType: .atomic, at: url)
        }
        guard case .incompatibleModel = error else {
            Issue.record("\(error)")
            return
        }
        #expect(try Data(contentsOf: url) == bytes)
    }
}
