import Foundation
import SQLiteStorage
import Testing
import TestSupport
@testable import ObjectGraph

/// Composite attributes (issue 33, iOS 17's `NSCompositeAttributeDescription`): loaded from a source model and from
/// a `.mom`, stored as Core Data flattens them (one column per element), read and written as dictionaries, and
/// usable by key path (`location.latitude`) in predicates and sorts on every store.
@Suite struct CompositeAttributeTests {
    static let placesURL = ModelLoadingFixtureTests.folder.appendingPathComponent("Places.xcdatamodel")

    static func places() throws -> ManagedObjectModel { try ManagedObjectModel.load(contentsOf: placesURL) }

    @Test func theSourceModelsCompositesLoadWithTheirElements() throws {
        let model = try Self.places()
        let place = try #require(model.entity(named: "Place"))
        #expect(place.compositeAttributes.map(\.name) == ["address", "location"])
        let location = try #require(place.compositeAttribute(named: "location"))
        #expect(location.attributeType == .composite && !location.isOptional)
        #expect(location.elements.map(\.name) == ["latitude", "longitude"])
        #expect(location.elements.map(\.attributeType) == [.double, .double])
        #expect(location.elements.first?.maximum == .double(90))
        let address = try #require(place.compositeAttribute(named: "address"))
        #expect(address.elements.map(\.name) == ["street", "geo"])
        #expect(address.elements.last?.elements.map(\.name) == ["latitude", "longitude"], "a nested composite")
        // The entity stores each leaf element as an attribute of its own, in the composite's place.
        #expect(place.attributes.map(\.name) == [
            "address.street", "address.geo.latitude", "address.geo.longitude", "location.latitude",
            "location.longitude", "name",
        ])
        #expect(place.attributes.map(\.columnName) == [
            "ZADDRESS_STREET", "ZADDRESS_GEO_LATITUDE", "ZADDRESS_GEO_LONGITUDE", "ZLOCATION_LATITUDE",
            "ZLOCATION_LONGITUDE", "ZNAME",
        ])
        #expect(place.ownDeclaredAttributes.map(\.name) == ["address", "location", "name"])
        let cafe = try #require(model.entity(named: "Cafe"))
        #expect(cafe.compositeAttributes.map(\.name) == ["address", "location", "hours"])
        #expect(cafe.ownCompositeAttributes.map(\.name) == ["hours"])
        #expect(cafe.attribute(named: "hours.opens")?.defaultValue == .integer(8))
    }

    @Test func aCompiledModelLoadsTheSameComposites() throws {
        let model = try Self.places()
        let loaded = try ManagedObjectModel.load(compiled: CompiledModelFixtures.mom(model), source: "Places.mom")
        #expect(CompiledModelTests.summary(loaded) == CompiledModelTests.summary(model))
        for name in ["Place", "Cafe"] {
            let original = try #require(model.entity(named: name))
            let compiled = try #require(loaded.entity(named: name))
            #expect(Set(compiled.compositeAttributes.map(\.name)) == Set(original.compositeAttributes.map(\.name)))
            for composite in original.compositeAttributes {
                #expect(compiled.compositeAttribute(named: composite.name)?.elements.map(\.description)
                    == composite.elements.map(\.description))
            }
            #expect(Set(compiled.attributes.map(\.columnName)) == Set(original.attributes.map(\.columnName)))
        }
    }

    @Test func sourceErrorsNameTheComposite() throws {
        func load(_ body: String) -> ModelLoadError? {
            let xml = #"<?xml version="1.0"?><model type="com.apple.IDECoreDataModeler.DataModel">"# + body + "</model>"
            do {
                _ = try ManagedObjectModel.load(xml: Data(xml.utf8), source: "Bad")
                return nil
            } catch { return error }
        }
        let missing = load(#"<entity name="E"><attribute name="c" attributeType="Composite" composite="Nope"/></entity>"#)
        #expect(missing?.description.contains("composite=\"Nope\"") == true)
        let cycle = load(#"<entity name="E"><attribute name="c" attributeType="Composite" composite="A"/></entity>"#
            + #"<composite name="A"><attribute name="b" attributeType="Composite" composite="A"/></composite>"#)
        #expect(cycle?.description.contains("does not contain itself") == true)
    }

    @Test func compiledErrorsAreTypedNotCrashes() throws {
        let builder = KeyedArchiveBuilder()
        let modelSlot = builder.reserve()
        let entitySlot = builder.reserve()
        let composite = builder.object("NSCompositeAttributeDescription",
            chain: ["NSAttributeDescription", "NSPropertyDescription"], fields: [
                ("NSPropertyName", builder.add(.string("spot"))), ("NSAttributeType", .integer(2100)),
            ])
        builder.object("NSEntityDescription", fields: [
            ("NSEntityName", builder.add(.string("E"))),
            ("NSProperties", builder.dictionary([("spot", composite)])),
        ], into: entitySlot)
        builder.object("NSManagedObjectModel", fields: [("NSEntities", builder.dictionary([("E", entitySlot)]))],
            into: modelSlot)
        #expect {
            try ManagedObjectModel.load(compiled: builder.archive(root: modelSlot), source: "Bad.mom")
        } throws: { error in
            (error as? ModelLoadError)?.description.contains("'E.spot' has no NSCompositeElements") == true
        }
    }

    // MARK: - Values and stores

    static func stack(_ kind: StoreKind, directory: TemporaryDirectory) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try places())
        try coordinator.addPersistentStore(ofType: kind.storeType, at: directory.file("places.store"))
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func valuesAreDictionariesOfTheirElements() throws {
        let directory = TemporaryDirectory()
        let context = Self.context(try Self.stack(.inMemory, directory: directory))
        try context.performAndWait { () throws in
            let cafe = try context.insertNewObject(forEntityName: "Cafe")
            // New objects start with the elements' defaults.
            #expect(cafe.compositeValue(forKey: "hours") == ["opens": .integer(8), "closes": .integer(18)])
            // As Core Data builds a composite's default: the elements' defaults (here the nested location's).
            #expect(cafe.compositeValue(forKey: "address") == ["geo.latitude": 0.0, "geo.longitude": 0.0])
            try cafe.setCompositeValue(["street": "Rue X", "geo.latitude": 48.85], forKey: "address")
            #expect(cafe.value(forKey: "address.street") == "Rue X")
            #expect(cafe.value(forKey: "address.geo.latitude") == .double(48.85))
            #expect(cafe.compositeValue(forKey: "address") == ["street": "Rue X", "geo.latitude": .double(48.85)])
            #expect(Set(cafe.changedValues().keys).isSuperset(of: ["address.street", "address.geo.latitude"]))
            #expect {
                try cafe.setCompositeValue(["zip": "75001"], forKey: "address")
            } throws: { error in
                guard case ObjectGraphError.unknownKey("Cafe", "address.zip") = error else { return false }
                return true
            }
            #expect {
                try cafe.setCompositeValue([:], forKey: "name")
            } throws: { error in
                guard case ObjectGraphError.unknownKey("Cafe", "name") = error else { return false }
                return true
            }
            #expect(throws: ObjectGraphError.self) { try cafe.setCompositeValue(["latitude": "north"], forKey: "location") }
            #expect(cafe.compositeValue(forKey: "address")?["street"] == "Rue X", "unchanged after errors")
            // An optional composite's required elements may all be nil (the composite is nil).
            try cafe.setCompositeValue(nil, forKey: "address")
            #expect(cafe.compositeValue(forKey: "address") == nil)
        }
    }

    @Test func elementsAreValidatedAsAttributes() throws {
        let directory = TemporaryDirectory()
        let context = Self.context(try Self.stack(.inMemory, directory: directory))
        try context.performAndWait { () throws in
            let place = try context.insertNewObject(forEntityName: "Place")
            place["name"] = "Nowhere"
            try place.setCompositeValue(["latitude": 91.0, "longitude": 0.0], forKey: "location")
            #expect(throws: ObjectGraphError.self) { try context.save() }
            try place.setCompositeValue(["longitude": 0.0], forKey: "location")
            #expect(throws: ObjectGraphError.self, "a required element is nil") { try context.save() }
            try place.setCompositeValue(["latitude": 45.0, "longitude": 0.0], forKey: "location")
            try context.save()
        }
    }

    @Test func anSQLiteStoreKeepsEachElementInItsOwnColumn() throws {
        let directory = TemporaryDirectory()
        let coordinator = try Self.stack(.sqlite, directory: directory)
        let context = Self.context(coordinator)
        try context.performAndWait { () throws in
            let cafe = try context.insertNewObject(forEntityName: "Cafe")
            cafe["name"] = "Flore"
            try cafe.setCompositeValue(["latitude": 48.854, "longitude": 2.333], forKey: "location")
            try cafe.setCompositeValue(["street": "Bd Saint-Germain"], forKey: "address")
            try context.save()
        }
        let url = directory.file("places.store")
        let columns = try MigrationFixtures.columns(url, "ZPLACE")
        for column in ["ZLOCATION_LATITUDE", "ZLOCATION_LONGITUDE", "ZADDRESS_STREET", "ZADDRESS_GEO_LATITUDE",
            "ZHOURS_OPENS", "ZHOURS_CLOSES"]
        {
            #expect(columns.contains(column), "\(column)")
        }
        #expect(!columns.contains("ZLOCATION") && !columns.contains("ZADDRESS"), "a composite has no column of its own")
        #expect(try MigrationFixtures.rows(url, "SELECT ZLOCATION_LATITUDE, ZADDRESS_STREET, ZHOURS_OPENS FROM ZPLACE")
            == [[.real(48.854), .text("Bd Saint-Germain"), .integer(8)]])
    }

    /// Random places saved in each store, fetched back: the values, and predicates and sorts on element key paths,
    /// give what evaluating the same predicates on the objects in memory gives.
    @Test(arguments: StoreKind.allCases) func savedCompositesReadBackAndAnswerPredicatesAndSorts(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let coordinator = try Self.stack(kind, directory: directory)
        var random = SeededRandom(seed: 33)
        var expected: [String: [String: AttributeValue]] = [:]
        let writer = Self.context(coordinator)
        try writer.performAndWait { () throws in
            for index in 0..<40 {
                let place = try writer.insertNewObject(forEntityName: random.chance(0.5) ? "Cafe" : "Place")
                let name = "p\(index)"
                place["name"] = name
                let location: [String: AttributeValue] = [
                    "latitude": .double(Double(Int.random(in: -90...90, using: &random))),
                    "longitude": .double(Double(Int.random(in: -180...180, using: &random)) / 2),
                ]
                try place.setCompositeValue(location, forKey: "location")
                if random.chance(0.6) {
                    try place.setCompositeValue(["street": .string(random.pick(["A", "B", "C"]))], forKey: "address")
                }
                expected[name] = location
            }
            try writer.save()
        }
        let reader = Self.context(coordinator)
        try reader.performAndWait { () throws in
            let all = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Place"))
            #expect(all.count == 40)
            for object in all {
                let name = try #require(object["name"] as String?)
                #expect(object.compositeValue(forKey: "location") == expected[name], "\(name)")
            }
            let formats = [
                "location.latitude > 10", "location.longitude <= 0 AND location.latitude < 45",
                "address.street == 'B' OR address.street == nil", "location.latitude BETWEEN {-30, 30}",
                "address.geo.latitude == nil AND hours.opens == 8",
            ]
            for format in formats {
                let predicate = try FetchPredicate(format: format)
                if format.contains("hours") {
                    // Only cafés have hours: the predicate is asked of the Cafe entity.
                    let cafes = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Cafe", predicate: predicate))
                    let everyCafe = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Cafe"))
                    #expect(Set(cafes.map(\.objectID)) == Set(everyCafe.filter { predicate.evaluate(with: $0) }.map(\.objectID)))
                    continue
                }
                let fetched = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Place", predicate: predicate))
                let inMemory = all.filter { predicate.evaluate(with: $0) }
                #expect(Set(fetched.map(\.objectID)) == Set(inMemory.map(\.objectID)), "\(format)")
                #expect(!inMemory.isEmpty, "\(format) selects something")
            }
            let sorted = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Place",
                sortCriteria: [SortCriterion("location.latitude"), SortCriterion("name")]))
            let latitudes = sorted.map { $0.value(forKey: "location.latitude").doubleValue ?? .nan }
            #expect(latitudes == latitudes.sorted())
        }
    }

    @Test(arguments: StoreKind.allCases) func dictionaryFetchesReadElementsByPath(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let context = Self.context(try Self.stack(kind, directory: directory))
        try context.performAndWait { () throws in
            for (name, latitude) in [("a", 10.0), ("b", 20.0), ("c", 20.0)] {
                let place = try context.insertNewObject(forEntityName: "Place")
                place["name"] = name
                try place.setCompositeValue(["latitude": .double(latitude), "longitude": 0.0], forKey: "location")
            }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Place", sortCriteria: [SortCriterion("name")])
            request.propertiesToFetch = [.keyPath("name"), .keyPath("location.latitude")]
            #expect(try context.fetchDictionaries(request) == [
                ["name": "a", "location.latitude": 10.0], ["name": "b", "location.latitude": 20.0],
                ["name": "c", "location.latitude": 20.0],
            ])
            var grouped = FetchRequest<ManagedObject>(entityName: "Place",
                sortCriteria: [SortCriterion("location.latitude")])
            grouped.propertiesToFetch = [.keyPath("location.latitude"), .aggregate(.count, nil, as: "n")]
            grouped.propertiesToGroupBy = ["location.latitude"]
            #expect(try context.fetchDictionaries(grouped) == [
                ["location.latitude": 10.0, "n": 1], ["location.latitude": 20.0, "n": 2],
            ])
        }
    }

    @Test func batchInsertAndUpdateWriteElements() throws {
        let directory = TemporaryDirectory()
        let coordinator = try Self.stack(.sqlite, directory: directory)
        let context = Self.context(coordinator)
        try context.performAndWait { () throws in
            _ = try context.execute(BatchInsertRequest(entityName: "Place", objects: [
                ["name": "a", "location.latitude": 1.0, "location.longitude": 2.0],
                ["name": "b", "location.latitude": 3.0, "location.longitude": 4.0],
            ]))
            _ = try context.execute(BatchUpdateRequest(entityName: "Place",
                predicate: try FetchPredicate(format: "location.latitude > 2"),
                propertiesToUpdate: ["location.longitude": 40.0]))
            let places = try context.fetch(FetchRequest<ManagedObject>(entityName: "Place",
                sortCriteria: [SortCriterion("name")]))
            #expect(places.map { $0.compositeValue(forKey: "location") } == [
                ["latitude": 1.0, "longitude": 2.0], ["latitude": 3.0, "longitude": 40.0],
            ])
        }
    }

    @Test func migrationAddsAndRemovesACompositesColumns() throws {
        let directory = TemporaryDirectory()
        let location = #"<composite name="Location"><attribute name="latitude" optional="YES" attributeType="Double"/><attribute name="longitude" optional="YES" attributeType="Double" defaultValueString="5"/></composite>"#
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/><attribute name="spot" optional="YES" attributeType="Composite" composite="Location"/></entity>"#
                + location,
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/><attribute name="b" optional="YES" attributeType="String"/></entity>"#,
        ], in: directory)
        let url = directory.file("store.sqlite")
        let coordinator = try MigrationFixtures.open(url, bundle: bundle, version: "Test")
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait { () throws in
            let object = try context.insertNewObject(forEntityName: "M")
            object["a"] = "x"
            try context.save()
        }
        _ = try MigrationFixtures.open(url, bundle: bundle, version: "Test 2")
        #expect(try MigrationFixtures.rows(url, "SELECT ZA, ZSPOT_LATITUDE, ZSPOT_LONGITUDE FROM ZM")
            == [[.text("x"), .null, .real(5)]])
        _ = try MigrationFixtures.open(url, bundle: bundle, version: "Test 3")
        #expect(!(try MigrationFixtures.columns(url, "ZM")).contains("ZSPOT_LATITUDE"))
    }

    @Test func versionHashesChangeWithTheElements() throws {
        func hash(_ elements: [AttributeDescription]) throws -> Data? {
            var composite = AttributeDescription(name: "spot", type: .composite)
            composite.elements = elements
            let model = try ManagedObjectModel(entities: [EntityDescription(name: "M", attributes: [composite])])
            return model.entityVersionHashes["M"]
        }
        let base = try hash([AttributeDescription(name: "x", type: .double)])
        #expect(try hash([AttributeDescription(name: "x", type: .double)]) == base)
        #expect(try hash([AttributeDescription(name: "x", type: .float)]) != base)
        #expect(try hash([AttributeDescription(name: "y", type: .double)]) != base)
        #expect(try hash([AttributeDescription(name: "x", type: .double, isOptional: false)]) != base)
        #expect(try hash([AttributeDescription(name: "x", type: .double), AttributeDescription(name: "z", type: .string)])
            != base)
    }
}

extension CompositeAttributeTests {
    /// Writes the fuzz corpus's `Places.mom` when `OBJECTGRAPH_WRITE_FUZZ_CORPUS` names the corpus folder (a
    /// maintenance step; otherwise it checks the committed file is what the writer makes, when it is there).
    @Test func theFuzzCorpusHoldsThePlacesModel() throws {
        let data = CompiledModelFixtures.mom(try Self.places())
        if let folder = ProcessInfo.processInfo.environment["OBJECTGRAPH_WRITE_FUZZ_CORPUS"] {
            try data.write(to: URL(fileURLWithPath: folder).appendingPathComponent("Places.mom"))
        }
        let corpus = CompiledModelTests.repository.appendingPathComponent("Fuzz/Corpus/CompiledModel/Places.mom")
        let committed = try Data(contentsOf: corpus)
        let loaded = try ManagedObjectModel.load(compiled: committed, source: "Places.mom")
        #expect(CompiledModelTests.summary(loaded) == CompiledModelTests.summary(try Self.places()))
    }
}
