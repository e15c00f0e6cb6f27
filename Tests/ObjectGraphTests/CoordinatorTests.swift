import Foundation
import Testing
@testable import ObjectGraph

/// A coordinator whose model splits Person and Item into two configurations, with one store for each.
struct TwoStoreStack {
    let directory = TemporaryDirectory()
    let coordinator: PersistentStoreCoordinator
    let people: PersistentStore
    let items: PersistentStore

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [TestModels.person(), TestModels.item()], configurations: [
            ModelConfiguration(name: "People", entityNames: ["Person"]),
            ModelConfiguration(name: "Items", entityNames: ["Item"]),
        ])
    }

    init(_ kind: StoreKind) throws {
        coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        let type: PersistentStoreType = kind.storeType
        people = try coordinator.addPersistentStore(ofType: type, configurationName: "People",
            at: directory.file("people.sqlite"), options: PersistentStoreOptions())
        items = try coordinator.addPersistentStore(ofType: type, configurationName: "Items",
            at: directory.file("items.sqlite"), options: PersistentStoreOptions())
    }

    func entity(_ name: String) throws -> EntityDescription {
        try #require(coordinator.managedObjectModel.entity(named: name))
    }
}

/// Store-level inserts built by attribute name, for driving the coordinator without a context.
enum StoreRows {
    static func insert(
        _ entity: EntityDescription, _ values: [String: AttributeValue], permanentID: ManagedObjectID? = nil
    ) -> StoreSaveRequest.Insert {
        StoreSaveRequest.Insert(temporaryID: .makeTemporary(entityName: entity.name), entity: entity,
            values: entity.attributes.map { values[$0.name] ?? .null }, permanentID: permanentID)
    }

    static func count(_ store: PersistentStore, _ entity: EntityDescription) throws -> Int {
        try store.backend.count(entity: entity, predicate: nil, includesSubentities: true, limit: 0)
    }
}

@Suite struct CoordinatorTests {
    @Test(arguments: StoreKind.allCases) func configurationsRouteEntitiesAndIDsToTheirStores(kind: StoreKind) throws {
        let stack = try TwoStoreStack(kind)
        let person = try stack.entity("Person")
        let item = try stack.entity("Item")
        #expect(try stack.coordinator.store(for: person) === stack.people)
        #expect(try stack.coordinator.store(for: item) === stack.items)

        // One save with both entities: the coordinator splits it, one transaction per store.
        var request = StoreSaveRequest()
        request.inserts = [StoreRows.insert(person, ["lastName": "Ada"]), StoreRows.insert(item, ["name": "Pen"]),
            StoreRows.insert(person, ["lastName": "Grace"])]
        let result = try stack.coordinator.save(request)
        let ids = request.inserts.compactMap { result.permanentIDs[$0.temporaryID] }
        #expect(ids.map(\.storeIdentifier) == [stack.people.identifier, stack.items.identifier, stack.people.identifier])
        #expect(ids.map(\.primaryKey) == [1, 1, 2])
        #expect(try StoreRows.count(stack.people, person) == 2)
        #expect(try StoreRows.count(stack.people, item) == 0)
        #expect(try StoreRows.count(stack.items, item) == 1)
        #expect(try StoreRows.count(stack.items, person) == 0)

        // Permanent IDs route by the store they name, temporary ones by entity.
        #expect(try stack.coordinator.store(for: ids[1]) === stack.items)
        #expect(try stack.coordinator.store(for: ManagedObjectID.makeTemporary(entityName: "Item")) === stack.items)

        // Updates and deletes follow their IDs.
        var change = StoreSaveRequest()
        change.updates = [.init(objectID: ids[1], entity: item, values: item.attributes.map { _ in .null },
            expectedVersion: 1)]
        change.deletes = [.init(objectID: ids[2], entity: person, expectedVersion: 1)]
        let changed = try stack.coordinator.save(change)
        #expect(changed.versions[ids[1]] == 2)
        #expect(try StoreRows.count(stack.people, person) == 1)

        // Contexts read each entity from its store.
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = stack.coordinator
        let counts = try context.performAndWait {
            (try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")),
                try context.count(for: FetchRequest<ManagedObject>(entityName: "Item")))
        }
        #expect(counts == (1, 1))
    }

    @Test func configurationNamesAreChecked() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TwoStoreStack.model())
        let item = try #require(coordinator.managedObjectModel.entity(named: "Item"))
        let none = try #require(throws: ObjectGraphError.self) { try coordinator.store(for: item) }
        #expect(none.description == ObjectGraphError.noPersistentStore.description)
        let unknown = try #require(throws: ObjectGraphError.self) {
            try coordinator.addPersistentStore(ofType: .inMemory, configurationName: "Nope", at: nil,
                options: PersistentStoreOptions())
        }
        #expect(unknown.description == ObjectGraphError.unknownConfiguration("Nope").description)
        try coordinator.addPersistentStore(ofType: .inMemory, configurationName: "People", at: nil,
            options: PersistentStoreOptions())
        let unrouted = try #require(throws: ObjectGraphError.self) { try coordinator.store(for: item) }
        #expect(unrouted.description == ObjectGraphError.noStoreForEntity("Item").description)
        // "Default" is Core Data's name for all entities.
        let all = try coordinator.addPersistentStore(ofType: .inMemory, configurationName: "Default", at: nil,
            options: PersistentStoreOptions())
        #expect(try coordinator.store(for: item) === all)
    }

    @Test(arguments: StoreKind.allCases) func relationshipsAcrossStoresFailBeforeAnythingIsWritten(kind: StoreKind) throws {
        let owner = EntityDescription(name: "Owner", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [RelationshipDescription(name: "thing", destination: "Thing")])
        let thing = EntityDescription(name: "Thing", attributes: [AttributeDescription(name: "name", type: .string)])
        let model = try ManagedObjectModel(entities: [owner, thing], configurations: [
            ModelConfiguration(name: "A", entityNames: ["Owner"]), ModelConfiguration(name: "B", entityNames: ["Thing"]),
        ])
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let type: PersistentStoreType = kind.storeType
        let a = try coordinator.addPersistentStore(ofType: type, configurationName: "A", at: directory.file("a.sqlite"),
            options: PersistentStoreOptions())
        let b = try coordinator.addPersistentStore(ofType: type, configurationName: "B", at: directory.file("b.sqlite"),
            options: PersistentStoreOptions())
        let ownerEntity = try #require(model.entity(named: "Owner"))
        let thingEntity = try #require(model.entity(named: "Thing"))
        var request = StoreSaveRequest()
        let newThing = StoreRows.insert(thingEntity, ["name": "lamp"])
        var newOwner = StoreRows.insert(ownerEntity, ["name": "Ada"])
        newOwner.toOne = [newThing.temporaryID]
        request.inserts = [newThing, newOwner]
        let error = try #require(throws: ObjectGraphError.self) { try coordinator.save(request) }
        #expect(error.description
            == ObjectGraphError.crossStoreRelationship(from: newOwner.temporaryID, to: newThing.temporaryID).description)
        #expect(try StoreRows.count(a, ownerEntity) == 0)
        #expect(try StoreRows.count(b, thingEntity) == 0)
    }

    @Test(arguments: StoreKind.allCases) func removedStoresNoLongerRouteOrResolve(kind: StoreKind) throws {
        let stack = try TwoStoreStack(kind)
        let item = try stack.entity("Item")
        var request = StoreSaveRequest()
        request.inserts = [StoreRows.insert(item, ["name": "Pen"])]
        let id = try #require(try stack.coordinator.save(request).permanentIDs.values.first)

        try stack.coordinator.remove(stack.items)
        #expect(stack.coordinator.persistentStores.map(\.identifier) == [stack.people.identifier])
        #expect(throws: ObjectGraphError.self) { try stack.coordinator.store(for: item) }
        let error = try #require(throws: ObjectGraphError.self) { try stack.coordinator.store(for: id) }
        #expect(error.description == ObjectGraphError.unknownStore(identifier: stack.items.identifier).description)
        #expect(throws: ObjectGraphError.self) { try stack.coordinator.rows(for: [id], entity: item) }
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation) == nil)
        #expect(throws: ObjectGraphError.self) { try stack.coordinator.remove(stack.items) }
        #expect(throws: ObjectGraphError.self) { try stack.coordinator.metadata(for: stack.items) }

        guard kind != .inMemory, let url = stack.items.url else { return }
        // The file is untouched: added again, it has the row, under the same store UUID.
        let again = try stack.coordinator.addPersistentStore(ofType: kind.storeType, configurationName: "Items", at: url,
            options: PersistentStoreOptions())
        #expect(again.identifier == stack.items.identifier)
        #expect(try stack.coordinator.rows(for: [id], entity: item).count == 1)
    }

    @Test func addingOneFileTwiceFails() throws {
        let stack = try TestStack(.sqlite)
        let sameFile = stack.storeURL.deletingLastPathComponent().appendingPathComponent("./store.sqlite")
        let error = try #require(throws: ObjectGraphError.self) {
            try stack.coordinator.addPersistentStore(ofType: .sqlite, at: sameFile)
        }
        guard case .storeAlreadyAdded = error else { return #expect(Bool(false), "\(error)") }
        #expect(stack.coordinator.persistentStores.count == 1)
        #expect(stack.coordinator.persistentStore(for: sameFile) === stack.coordinator.persistentStores.first)
    }

    @Test(arguments: StoreKind.allCases) func metadataIsWrittenAndReadBack(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let store = try #require(stack.coordinator.persistentStores.first)
        var metadata = try stack.coordinator.metadata(for: store)
        #expect(metadata.userInfo.isEmpty)
        let userInfo: [String: MetadataValue] = [
            "name": "people", "count": 42, "ratio": 0.5, "done": true, "empty": false,
            "when": .date(Date(timeIntervalSinceReferenceDate: 700_000_000.25)), "blob": .data(Data([0, 1, 255])),
            "files": ["a.csv", 2], "nested": ["inner": ["deep": 1.5]],
        ]
        metadata.userInfo = userInfo
        metadata.userInfo["NSStoreType"] = "Forged"  // system keys stay the store's own
        metadata.storeUUID = "forged"
        try stack.coordinator.setMetadata(metadata, for: store)
        let current = try stack.coordinator.metadata(for: store)
        #expect(current.userInfo == userInfo)
        #expect(current.storeUUID == store.identifier)
        #expect(current.storeType == kind.storeType.rawValue)
        #expect(current.entityVersionHashes == stack.coordinator.managedObjectModel.entityVersionHashes)
        guard kind != .inMemory else { return }

        // In the file: read without opening, and by a new coordinator.
        let read = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: kind.storeType, at: stack.storeURL)
        #expect(read.userInfo == userInfo)
        #expect(read.entityVersionHashes == stack.coordinator.managedObjectModel.entityVersionHashes)
        let reopened = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        let reopenedStore = try reopened.addPersistentStore(ofType: kind.storeType, at: stack.storeURL)
        #expect(try reopened.metadata(for: reopenedStore).userInfo == userInfo)
        #expect(reopenedStore.metadata.storeUUID == store.identifier)
    }

    @Test func readOnlyStoreRefusesWritesAndLeavesTheFileUnchanged() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.sqlite")
        try writeOnePerson(to: url)
        let before = try storeFiles(url)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = true
        let store = try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url,
            options: description.options)
        #expect(store.isReadOnly)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 1)
            let person = try context.insertNewObject(forEntityName: "Person")
            person["lastName"] = "Refused"
            let error = try #require(throws: ObjectGraphError.self) { try context.save() }
            #expect(error.description == ObjectGraphError.readOnlyStore(store: url.path).description)
            #expect(context.hasChanges)
        }
        let person = try #require(coordinator.managedObjectModel.entity(named: "Person"))
        var request = StoreSaveRequest()
        request.inserts = [StoreRows.insert(person, ["lastName": "Refused"])]
        let readOnly = ObjectGraphError.readOnlyStore(store: url.path).description
        #expect(try #require(throws: ObjectGraphError.self) { try coordinator.save(request) }.description == readOnly)
        let obtaining = try #require(throws: ObjectGraphError.self) {
            try coordinator.obtainPermanentIDs(for: [(ManagedObjectID.makeTemporary(entityName: "Person"), person)])
        }
        #expect(obtaining.description == readOnly)
        var metadata = store.metadata
        metadata.userInfo["x"] = 1
        let writing = try #require(throws: ObjectGraphError.self) { try coordinator.setMetadata(metadata, for: store) }
        #expect(writing.description == readOnly)
        #expect(try storeFiles(url) == before)

        // A read-only store is never created.
        let missing = directory.file("missing.sqlite")
        #expect(throws: ObjectGraphError.self) {
            try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: missing,
                options: PersistentStoreOptions(isReadOnly: true))
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))

        let memory = try coordinator.addPersistentStore(ofType: .inMemory, configurationName: "Default", at: nil,
            options: PersistentStoreOptions(isReadOnly: true))
        let memoryError = try #require(throws: ObjectGraphError.self) { try memory.backend.save(request) }
        #expect(memoryError.description == ObjectGraphError.readOnlyStore(store: "in-memory \(memory.identifier)").description)
    }

    /// Saves one person into a new store at `url`; the coordinator (no context holds it) closes every
    /// connection when the function returns, which folds the write-ahead log into the file.
    private func writeOnePerson(to url: URL) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        try coordinator.addPersistentStore(ofType: .sqlite, at: url)
        var request = StoreSaveRequest()
        request.inserts = [StoreRows.insert(try #require(coordinator.managedObjectModel.entity(named: "Person")),
            ["lastName": "Kept"])]
        _ = try coordinator.save(request)
    }

    /// The bytes of the store file and its write-ahead log (empty when there is none).
    private func storeFiles(_ url: URL) throws -> [Data] {
        let wal = URL(fileURLWithPath: url.path + "-wal")
        return [try Data(contentsOf: url), (try? Data(contentsOf: wal)) ?? Data()]
    }

    @Test(arguments: StoreKind.allCases) func permanentIDsObtainedBeforeSavingAreKept(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let coordinator = stack.coordinator
        let person = try #require(coordinator.managedObjectModel.entity(named: "Person"))
        let inserts = (0..<3).map { StoreRows.insert(person, ["lastName": .string("P\($0)")]) }
        let saved = try #require(coordinator.persistentStores.first)
        let alreadyPermanent = ManagedObjectID(entityName: "Person", storeIdentifier: saved.identifier, primaryKey: 9)
        let obtained = try coordinator.obtainPermanentIDs(
            for: inserts.map { ($0.temporaryID, person) } + [(alreadyPermanent, person)])
        let ids = try inserts.map { try #require(obtained[$0.temporaryID]) }
        #expect(obtained.count == 3)
        #expect(ids.map(\.primaryKey) == [1, 2, 3])
        #expect(ids.allSatisfy { $0.storeIdentifier == saved.identifier && !$0.isTemporaryID })

        // The save uses them; a new insert continues after the reserved keys.
        var request = StoreSaveRequest()
        request.inserts = zip(inserts, ids).map { insert, id in
            var insert = insert
            insert.permanentID = id
            return insert
        } + [StoreRows.insert(person, ["lastName": "Later"])]
        let result = try coordinator.save(request)
        #expect(request.inserts.map { result.permanentIDs[$0.temporaryID]?.primaryKey } == [1, 2, 3, 4])
        #expect(result.versions[ids[0]] == 1)
        let rows = try saved.backend.rows(for: ids, entity: person)
        #expect(Set(rows.map(\.objectID)) == Set(ids))

        // Saving one of them again is refused.
        var again = StoreSaveRequest()
        again.inserts = [StoreRows.insert(person, ["lastName": "Twin"], permanentID: ids[1])]
        let duplicate = try #require(throws: ObjectGraphError.self) { try coordinator.save(again) }
        #expect(duplicate.description == ObjectGraphError.duplicateObjectID(ids[1]).description)
        guard kind != .inMemory else { return }
        // The reservation is in the file: another coordinator continues after it.
        let other = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        try other.addPersistentStore(ofType: kind.storeType, at: stack.storeURL)
        let next = try other.obtainPermanentIDs(for: [(ManagedObjectID.makeTemporary(entityName: "Person"), person)])
        #expect(next.values.map(\.primaryKey) == [5])
    }

    @Test(arguments: StoreKind.allCases) func uriRepresentationsRoundTrip(kind: StoreKind) throws {
        let stack = try TwoStoreStack(kind)
        let coordinator = stack.coordinator
        let person = try stack.entity("Person")
        var request = StoreSaveRequest()
        request.inserts = [StoreRows.insert(person, ["lastName": "Ada"])]
        let id = try #require(try coordinator.save(request).permanentIDs.values.first)
        #expect(coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation) == id)
        let temporary = ManagedObjectID.makeTemporary(entityName: "Item")
        #expect(coordinator.managedObjectID(forURIRepresentation: temporary.uriRepresentation) == temporary)

        let uuid = stack.people.identifier
        let garbage = [
            "x-coredata://\(UUID().uuidString)/Person/p1", "x-coredata://\(uuid)/Nope/p1",
            "x-coredata://\(uuid)/Item/p1", "x-coredata://\(uuid)/Person/p", "x-coredata://\(uuid)/Person/p-1",
            "x-coredata://\(uuid)/Person/p0", "x-coredata://\(uuid)/Person/q1", "x-coredata://\(uuid)/Person/p1/x",
            "x-coredata://\(uuid)/Person/p1?x=1", "x-coredata://\(uuid)/Person/p99999999999999999999",
            "x-coredata://\(uuid)/Person/p+1", "http://\(uuid)/Person/p1", "x-coredata://\(uuid)",
            "x-coredata:///Person/t\(UUID().uuidString)1", "x-coredata:///Person/p1", "x-coredata:///Person/t",
            String(temporary.uriRepresentation.absoluteString.dropLast()) + "99999999999", "file:///tmp/x",
        ]
        for text in garbage {
            let url = try #require(URL(string: text), "\(text)")
            #expect(coordinator.managedObjectID(forURIRepresentation: url) == nil, "\(text)")
        }
    }
}
