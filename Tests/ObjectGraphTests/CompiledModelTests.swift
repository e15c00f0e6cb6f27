import Foundation
import Testing
import TestSupport
@testable import ObjectGraph

/// Compiled models (issue 33): `.mom` keyed archives and `.momd` folders load into the same model as their
/// sources, `.momd` carries Core Data's version hashes into the model and the stores written with it, and bad
/// archives are typed errors.
@Suite struct CompiledModelTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every source model the tests have: the app's, the migration fixtures' versions, the model fixtures.
    static func sourceModels() throws -> [(String, ManagedObjectModel)] {
        var models: [(String, ManagedObjectModel)] = [
            ("People", try ManagedObjectModel.load(contentsOf: repository.appendingPathComponent("Resources/People.xcdatamodeld")))
        ]
        let library = try ModelBundle(contentsOf: MigrationFixtures.library)
        for name in library.versionNames { models.append((name, try library.model(named: name))) }
        let folder = ModelLoadingFixtureTests.folder
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where name.hasSuffix(".xcdatamodel") {
            if let model = try? ManagedObjectModel.load(contentsOf: folder.appendingPathComponent(name)) {
                models.append((name, model))
            }
        }
        return models
    }

    /// What a model says, property by property, in one comparable text (entity hashes included).
    static func summary(_ model: ManagedObjectModel) -> [String] {
        model.entities.sorted { $0.name < $1.name }.flatMap { entity -> [String] in
            let head = "\(entity.name) parent=\(entity.parentEntityName ?? "-") abstract=\(entity.isAbstract) "
                + "class=\(entity.managedObjectClassName ?? "-") unique=\(entity.uniquenessConstraints) "
                + "indexes=\(entity.fetchIndexes.map { "\($0.name):\($0.elements.map { "\($0.property)\($0.ascending)" })" }) "
                + "hash=\(entity.versionHash.base64EncodedString())"
            let attributes = entity.ownAttributes.sorted { $0.name < $1.name }.map { a in
                "  \(a.name) \(a.attributeType) optional=\(a.isOptional) transient=\(a.isTransient) "
                    + "default=\(a.defaultValue) renamed=\(a.renamingIdentifier ?? "-") "
                    + "transformer=\(a.valueTransformerName ?? "-") preserves=\(a.preservesValueInHistoryOnDeletion) "
                    + "external=\(a.allowsExternalBinaryDataStorage) spotlight=\(a.isIndexedBySpotlight) "
                    + "derived=\(a.derivationExpression ?? "-")"
            }
            let composites = entity.ownCompositeAttributes.sorted { $0.name < $1.name }.map { c in
                "  composite \(c.name) optional=\(c.isOptional) transient=\(c.isTransient) "
                    + "elements=\(c.elements.map(\.description))"
            }
            let relationships = entity.ownRelationships.sorted { $0.name < $1.name }.map { r in
                "  \(r.name) → \(r.destinationEntityName) inverse=\(r.inverseName ?? "-") many=\(r.isToMany) "
                    + "ordered=\(r.isOrdered) rule=\(r.deleteRule) optional=\(r.isOptional) min=\(r.minCount) "
                    + "max=\(r.maxCount)"
            }
            return [head] + attributes + composites + relationships
        } + ["identifiers=\(model.versionIdentifiers.sorted())"]
            + model.fetchRequestTemplates.sorted { $0.name < $1.name }.map { template in
                "template \(template.name) \(template.entityName) "
                    + "\(((try? template.predicate()) ?? nil).map(\.predicateFormat) ?? "all")"
            }
    }

    @Test func everySourceModelRoundTripsThroughAMomFile() throws {
        let directory = TemporaryDirectory()
        let models = try Self.sourceModels()
        #expect(models.count >= 5)
        for (name, model) in models {
            for knownKeys in [false, true] {
                let file = directory.file("\(name)-\(knownKeys).mom")
                try CompiledModelFixtures.mom(model, knownKeysEntities: knownKeys).write(to: file)
                let loaded = try ManagedObjectModel.load(contentsOf: file)
                #expect(Self.summary(loaded) == Self.summary(model), "\(name)")
                #expect(loaded.entityVersionHashes == model.entityVersionHashes, "\(name)")
                #expect(loaded.compiledEntityVersionHashes == nil)
            }
        }
    }

    /// Decimal defaults are archived as `NSDecimalNumber` objects (mantissa words, exponent, sign) and read back
    /// exactly.
    @Test(arguments: ["0", "1.5", "-42.125", "12345678901234567890.5", "0.00000000000000000001", "-7", "1000"])
    func decimalDefaultsRoundTrip(_ text: String) throws {
        let value = try #require(Decimal(string: text))
        let model = try ManagedObjectModel(entities: [EntityDescription(name: "Price", attributes: [
            AttributeDescription(name: "amount", type: .decimal, defaultValue: .decimal(value)),
        ])])
        let loaded = try ManagedObjectModel.load(compiled: CompiledModelFixtures.mom(model), source: "Price.mom")
        #expect(loaded.entity(named: "Price")?.attribute(named: "amount")?.defaultValue == .decimal(value))
    }

    /// Derived attributes keep their derivation through a `.mom` (archived as Core Data archives it, key paths ending
    /// in `.@count` and `.@sum` as `count:` and `sum:` functions), and a store opened with the compiled model computes
    /// them as with the source.
    @Test func derivationsSurviveACompiledModel() throws {
        // (Also Core Data's own spelling of a sum, which it archives as `sum:(pages.words)`.)
        let xml = DerivedAttributeTests.xml.replacingOccurrences(of: "<relationship name=\"pages\"",
            with: "<attribute name=\"wordsSum\" optional=\"YES\" attributeType=\"Integer 64\" derived=\"YES\" "
                + "derivationExpression=\"pages.words.@sum\"/>\n<relationship name=\"pages\"")
        let source = try ManagedObjectModel.load(xml: Data(xml.utf8), source: "Derived")
        let compiled = try ManagedObjectModel.load(compiled: CompiledModelFixtures.mom(source), source: "Derived.mom")
        func derivations(_ model: ManagedObjectModel) -> [String: String] {
            var result: [String: String] = [:]
            for entity in model.entities {
                for attribute in entity.ownAttributes { result[entity.name + "." + attribute.name] = attribute.derivationExpression }
            }
            return result
        }
        #expect(derivations(source).count == 8)
        #expect(derivations(compiled) == derivations(source))
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: compiled)
        try coordinator.addPersistentStore(ofType: .sqlite, at: directory.file("derived.sqlite"))
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait {
            let book = try context.insertNewObject(forEntityName: "Book")
            book["title"] = "Ærø"
            let page = try context.insertNewObject(forEntityName: "Page")
            page["words"] = Int64(12)
            page.setRelatedObject(book, forKey: "book")
            try context.save()
        }
        #expect(try MigrationFixtures.rows(directory.file("derived.sqlite"),
            "SELECT ZTITLELOWER, ZPAGESCOUNT, ZWORDSTOTAL, ZWORDSSUM FROM ZBOOK")
            == [[.text("ærø"), .integer(1), .integer(12), .integer(12)]])
    }

    /// An archived derivation this framework cannot compute leaves the model loadable and the attribute derived,
    /// under a text that says why (no store computes it).
    @Test func anUnreadableDerivationIsNamedNotFatal() throws {
        let archive = KeyedArchiveBuilder()
        let expression = archive.object("NSFunctionExpression", chain: ["NSExpression"], fields: [
            ("NSSelectorName", archive.add(.string("median:"))), ("NSArguments", archive.array([])),
        ])
        let decoder = ArchivedPredicateDecoder(archive: try KeyedArchive(data: archive.archive(root: expression)))
        let root = KeyedArchive.Value.reference(decoder.archive.rootIndex)
        #expect(throws: ArchivedPredicateDecoder.Unsupported.self) { try decoder.derivation(root) }
    }

    @Test func aMomdCarriesCoreDatasHashesIntoTheModelAndTheStore() throws {
        let directory = TemporaryDirectory()
        let source = try ModelBundle(contentsOf: MigrationFixtures.library)
        let versions = try source.versionNames.map { ($0, try source.model(named: $0)) }
        // Stand-ins for Apple's hashes: any 32 bytes that differ from ours.
        var hashes: [String: [String: Data]] = [:]
        for (version, model) in versions {
            hashes[version] = model.entityVersionHashes.mapValues { Data($0.reversed()) }
        }
        let momd = try CompiledModelFixtures.momd(versions, hashes: hashes, in: directory, name: "Library")
        let bundle = try ModelBundle(contentsOf: momd)
        #expect(bundle.isCompiled)
        #expect(bundle.versionNames == source.versionNames)
        #expect(bundle.currentVersionName == source.versionNames.last)
        let current = try ManagedObjectModel.load(contentsOf: momd)
        #expect(current.versionName == source.versionNames.last)
        #expect(current.entityVersionHashes == hashes[source.versionNames.last ?? ""])
        #expect(Self.summary(current) == Self.summary(try source.currentModel()))

        // A store written with the compiled first version records its hashes, and the compiled current version
        // migrates it, finding its version by those hashes and recording the current version's.
        let storeURL = directory.file("library.sqlite")
        let first = try bundle.model(named: source.versionNames[0])
        let writer = PersistentStoreCoordinator(managedObjectModel: first)
        try writer.addPersistentStore(ofType: .sqlite, configurationName: nil, at: storeURL, options: PersistentStoreOptions())
        try MigrationFixtures.fillLibraryVersion1(MigrationFixtures.context(writer))
        for store in writer.persistentStores { try writer.remove(store) }
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(at: storeURL).entityVersionHashes
            == hashes[source.versionNames[0]])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: current)
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: storeURL,
            options: PersistentStoreOptions())
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(at: storeURL).entityVersionHashes
            == hashes[source.versionNames.last ?? ""])
        let context = MigrationFixtures.context(coordinator)
        let books = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Book")) }
        #expect(books == 3)
    }

    @Test func badArchivesAreTypedErrorsNeverCrashes() throws {
        let directory = TemporaryDirectory()
        let model = try Self.sourceModels()[0].1
        let good = CompiledModelFixtures.mom(model)
        func load(_ bytes: Data) -> ModelLoadError? {
            let file = directory.file("bad.mom")
            do {
                try bytes.write(to: file)
                _ = try ManagedObjectModel.load(contentsOf: file)
                return nil
            } catch let error as ModelLoadError {
                return error
            } catch {
                Issue.record("untyped error \(error)")
                return nil
            }
        }
        #expect(load(Data("not a plist".utf8))?.description.contains("not a property list") == true)
        let notArchive = BinaryPropertyList.encode(.dictionary([("a", .integer(1))]))
        #expect(load(notArchive)?.description.contains("not a keyed archive") == true)
        let builder = KeyedArchiveBuilder()
        let root = builder.object("NSString", fields: [("NS.string", .string("x"))])
        #expect(load(builder.archive(root: root))?.description.contains("not an NSManagedObjectModel") == true)
        // Every truncation and a byte flipped at many places: an error or a model, never a crash.
        var random = SeededRandom(seed: 33)
        for cut in stride(from: 0, to: good.count, by: max(1, good.count / 200)) { _ = load(good.prefix(cut)) }
        for _ in 0..<200 {
            var damaged = good
            let at = Int.random(in: 8..<damaged.count, using: &random)
            damaged[at] = UInt8.random(in: 0...255, using: &random)
            _ = load(damaged)
        }
    }

    @Test func anXcode3ModelIsExplained() throws {
        let directory = TemporaryDirectory()
        let folder = directory.file("Old.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let builder = KeyedArchiveBuilder()
        let root = builder.object("XDPMModel", fields: [("name", builder.add(.string("Old")))])
        try builder.archive(root: root).write(to: folder.appendingPathComponent("elements"))
        #expect {
            try ManagedObjectModel.load(contentsOf: folder)
        } throws: { error in
            (error as? ModelLoadError)?.description.contains("last saved by Xcode 3") == true
        }
        // An elements file that is a Core Data model archive loads.
        let model = try Self.sourceModels()[0].1
        try CompiledModelFixtures.mom(model).write(to: folder.appendingPathComponent("elements"))
        #expect(Self.summary(try ManagedObjectModel.load(contentsOf: folder)) == Self.summary(model))
    }
}
