import Foundation
import Testing
@testable import ObjectGraph

/// Every attribute type, a sub-entity, and every kind of relationship: Box 1—n Item (ordered), Item n—m Label
/// (ordered on the item's side), Item → twin (to-one, no inverse), Box → favourites (to-many, no inverse).
private func valuesModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(entities: [
        EntityDescription(name: "Box", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "items", destination: "Item", inverse: "box", isToMany: true,
                    isOrdered: true),
                RelationshipDescription(name: "favourites", destination: "Label", isToMany: true),
            ]),
        EntityDescription(name: "Item", attributes: [
            AttributeDescription(name: "small", type: .integer16),
            AttributeDescription(name: "medium", type: .integer32),
            AttributeDescription(name: "large", type: .integer64),
            AttributeDescription(name: "price", type: .decimal),
            AttributeDescription(name: "ratio", type: .double),
            AttributeDescription(name: "weight", type: .float),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "done", type: .boolean),
            AttributeDescription(name: "when", type: .date),
            AttributeDescription(name: "bytes", type: .binary),
            AttributeDescription(name: "token", type: .uuid),
            AttributeDescription(name: "link", type: .uri),
            AttributeDescription(name: "thing", type: .transformable),
            AttributeDescription(name: "scratch", type: .string, isTransient: true),
        ], relationships: [
            RelationshipDescription(name: "box", destination: "Box", inverse: "items"),
            RelationshipDescription(name: "labels", destination: "Label", inverse: "items", isToMany: true,
                isOrdered: true),
            RelationshipDescription(name: "twin", destination: "Item"),
        ]),
        EntityDescription(name: "SpecialItem", attributes: [AttributeDescription(name: "grade", type: .integer64)],
            parentEntity: "Item"),
        EntityDescription(name: "Label", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "items", destination: "Item", inverse: "labels", isToMany: true),
            ]),
    ])
}

/// The values of the items of ``valuesModel()``: edge cases of every type, and nils.
private let itemValues: [[String: AttributeValue]] = [
    ["small": .integer(Int64(Int16.min)), "medium": .integer(Int64(Int32.max)), "large": .integer(Int64.min),
     "price": .decimal(Decimal(string: "12345678901234567890.123456789")!), "ratio": .double(.nan),
     "weight": .double(-0.0), "name": "", "done": true, "when": .date(Date(timeIntervalSinceReferenceDate: -1e9 + 0.125)),
     "bytes": .binary(Data()), "token": .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!),
     "link": .uri(URL(string: "https://example.org/ä?q=1#x")!), "thing": .binary(Data((0..<300).map { UInt8($0 % 256) }))],
    ["small": 7, "medium": -3, "large": .integer(Int64.max), "price": .decimal(.nan), "ratio": .double(.infinity),
     "weight": 1.5, "name": "Zoë \u{0} 東京 e\u{301} 🙂", "done": false, "when": .date(Date(timeIntervalSince1970: 0)),
     "bytes": .binary(Data([0, 0, 255])), "token": .uuid(UUID()), "link": .uri(URL(string: "file:///tmp/a%20b")!)],
    [:],  // every value nil (or its default)
]

/// The graph through a fresh context, by object URI: every stored value and every relationship.
private func describe(_ coordinator: PersistentStoreCoordinator) throws -> [String: String] {
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    return try context.performAndWait {
        var result: [String: String] = [:]
        for name in ["Box", "Item", "Label"] {
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: name)) {
                var parts = [object.entity.name]
                for attribute in object.entity.attributes where !attribute.isTransient {
                    let value = object.value(forKey: attribute.name)
                    // NaN is not equal to itself: compare its text.
                    parts.append("\(attribute.name)=\(value)")
                }
                for relationship in object.entity.relationships {
                    if relationship.isToMany {
                        var uris = object.relatedObjects(forKey: relationship.name).map(\.objectID.uriRepresentation.absoluteString)
                        if !relationship.isOrdered { uris.sort() }
                        parts.append("\(relationship.name)=\(uris)")
                    } else {
                        parts.append("\(relationship.name)=\(object.relatedObject(forKey: relationship.name)?.objectID.uriRepresentation.absoluteString ?? "nil")")
                    }
                }
                result[object.objectID.uriRepresentation.absoluteString] = parts.joined(separator: " ")
            }
        }
        return result
    }
}

/// An atomic store of ``valuesModel()`` filled with every value and relationship kind, saved several times
/// (versions above 1, a deleted row, keys reserved ahead of a save).
private struct ValuesStack {
    let directory = TemporaryDirectory(prefix: "atomic-store")
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let store: PersistentStore
    var url: URL { directory.file("values.store") }

    init() throws {
        model = try valuesModel()
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(ofType: .atomic, at: directory.file("values.store"))
    }

    func context() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    func fill() throws {
        let context = context()
        try context.performAndWait {
            let box = try context.insertNewObject(forEntityName: "Box")
            box["name"] = "Box"
            let labels = try ["a", "b", "c"].map { name in
                let label = try context.insertNewObject(forEntityName: "Label")
                label["name"] = name
                return label
            }
            var items: [ManagedObject] = []
            for (index, values) in itemValues.enumerated() {
                let item = try context.insertNewObject(forEntityName: index == 1 ? "SpecialItem" : "Item")
                for (key, value) in values { item.setValue(value, forKey: key) }
                item["scratch"] = "transient"
                if index == 1 { item["grade"] = Int64(9) }
                items.append(item)
            }
            box.setRelatedObjects([items[2], items[0], items[1]], forKey: "items")
            box.setRelatedObjects([labels[2], labels[0]], forKey: "favourites")
            items[0].setRelatedObjects([labels[1], labels[0]], forKey: "labels")
            items[1].setRelatedObjects([labels[0], labels[2], labels[1]], forKey: "labels")
            items[0].setRelatedObject(items[1], forKey: "twin")
            items[1].setRelatedObject(items[1], forKey: "twin")
            try context.save()
            items[0]["name"] = "renamed"
            try context.save()
            let doomed = try context.insertNewObject(forEntityName: "Label")
            doomed["name"] = "doomed"
            try context.save()
            context.delete(doomed)
            try context.save()
            let reserved = try context.insertNewObject(forEntityName: "Box")
            try context.obtainPermanentIDs(for: [reserved])
            context.delete(reserved)
        }
    }
}

@Suite struct AtomicStoreTests {
    @Test func everyValueAndRelationshipRoundTripsThroughTheFile() throws {
        let stack = try ValuesStack()
        try stack.fill()
        let before = try describe(stack.coordinator)
        #expect(before.count == 3 + 3 + 1)
        let contentsBefore = try StoreContents.read(from: stack.store, model: stack.model)

        // A new coordinator reads the file: the same graph, the same UUID, versions and key counters.
        let reopened = PersistentStoreCoordinator(managedObjectModel: stack.model)
        let store = try reopened.addPersistentStore(ofType: .atomic, at: stack.url)
        #expect(store.identifier == stack.store.identifier)
        #expect(store.metadata.storeType == "Binary")
        #expect(store.metadata.entityVersionHashes == stack.model.entityVersionHashes)
        #expect(try describe(reopened) == before)
        let contents = try StoreContents.read(from: store, model: stack.model)
        #expect(Dictionary(uniqueKeysWithValues: contents.rows.map { ($0.objectID, $0.version) })
            == Dictionary(uniqueKeysWithValues: contentsBefore.rows.map { ($0.objectID, $0.version) }))
        #expect(contents.primaryKeyMaxima == contentsBefore.primaryKeyMaxima)
        #expect(contents.primaryKeyMaxima["Box"] == 2, "the key reserved ahead of a save is kept")

        // Exact values: the decimal keeps all its digits, NaN stays NaN, -0.0 keeps its sign.
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = reopened
        try context.performAndWait {
            let items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item",
                sortCriteria: [SortCriterion("large")]))
            #expect(items.count == 3)
            let first = try #require(items.first { $0.value(forKey: "large") == .integer(Int64.min) })
            #expect(first.value(forKey: "price") == .decimal(Decimal(string: "12345678901234567890.123456789")!))
            #expect((first["ratio"] as Double?)?.isNaN == true)
            #expect((first["weight"] as Double?)?.sign == .minus)
            #expect(first["name"] == "renamed")
            #expect(first.value(forKey: "thing") == itemValues[0]["thing"])
            #expect(first["scratch"] as String? == nil, "transient values are not stored")
            // New keys continue after the reserved one.
            let box = try context.insertNewObject(forEntityName: "Box")
            try context.save()
            #expect(box.objectID.primaryKey == 3)
        }
    }

    @Test func metadataChangesRewriteTheFile() throws {
        let stack = try ValuesStack()
        try stack.fill()
        let bytes = try Data(contentsOf: stack.url)
        let store = try #require(stack.coordinator.persistentStores.first)
        var metadata = store.metadata
        metadata.userInfo["note"] = "x"
        try stack.coordinator.setMetadata(metadata, for: store)
        #expect(try Data(contentsOf: stack.url) != bytes)
        let reopened = PersistentStoreCoordinator(managedObjectModel: stack.model)
        #expect(try reopened.addPersistentStore(ofType: .atomic, at: stack.url).metadata.userInfo == ["note": "x"])
    }

    @Test func aFailedWriteLeavesTheFileTheRowsAndTheContextAsTheyWere() throws {
        for step in AtomicStoreFile.WriteStep.allCases where step != .syncFolder {
            let stack = try ValuesStack()
            try stack.fill()
            let file = try #require((stack.store.backend as? InMemoryStore)?.file)
            let bytes = try Data(contentsOf: stack.url)
            let graph = try describe(stack.coordinator)
            let context = stack.context()
            let (itemID, labelID) = try context.performAndWait {
                let items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item", sortCriteria: [SortCriterion("large")]))
                let labels = try context.fetch(FetchRequest<ManagedObject>(entityName: "Label", sortCriteria: [SortCriterion("name")]))
                return (items[0].objectID, labels[0].objectID)
            }
            file.injectFault { $0 == step ? EIO : nil }
            try context.performAndWait {
                let fresh = try context.insertNewObject(forEntityName: "Label")
                fresh["name"] = "fresh"
                try context.existingObject(with: itemID)["name"] = "changed"
                context.delete(try context.existingObject(with: labelID))
                let error = try #require(throws: ObjectGraphError.self) { try context.save() }
                guard case .fileOperationFailed(_, let reason) = error else {
                    Issue.record("\(step): \(error)")
                    return
                }
                #expect(reason.contains(step.rawValue), "\(reason)")
                #expect(context.hasChanges && fresh.objectID.isTemporaryID)
                #expect(context.insertedObjects.count == 1 && context.deletedObjects.count == 1)
            }
            #expect(try Data(contentsOf: stack.url) == bytes, "\(step): the file changed")
            #expect(try describe(stack.coordinator) == graph, "\(step): the rows changed")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: stack.directory.url.path)
            #expect(leftovers == ["values.store"], "\(step): \(leftovers)")

            // The disk works again: the same save goes through, and the file has it.
            file.injectFault(nil)
            try context.performAndWait { try context.save() }
            let reopened = PersistentStoreCoordinator(managedObjectModel: stack.model)
            try reopened.addPersistentStore(ofType: .atomic, at: stack.url)
            let after = try describe(reopened)
            #expect(after == (try describe(stack.coordinator)))
            #expect(after.values.contains { $0.contains("name=\"changed\"") })
            #expect(after.values.contains { $0.contains("name=\"fresh\"") })
            #expect(!after.keys.contains(labelID.uriRepresentation.absoluteString))
        }
    }

    @Test func aFailedFlushOfTheFolderStillCountsAsSaved() throws {
        let stack = try ValuesStack()
        let file = try #require((stack.store.backend as? InMemoryStore)?.file)
        file.injectFault { $0 == .syncFolder ? EIO : nil }
        try stack.fill()
        let reopened = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try reopened.addPersistentStore(ofType: .atomic, at: stack.url)
        #expect(try describe(reopened) == describe(stack.coordinator))
    }

    @Test func batchRequestsAndMetadataChangesThatFailChangeNothing() throws {
        let stack = try ValuesStack()
        try stack.fill()
        let file = try #require((stack.store.backend as? InMemoryStore)?.file)
        let bytes = try Data(contentsOf: stack.url)
        let graph = try describe(stack.coordinator)
        file.injectFault { $0 == .rename ? EACCES : nil }
        #expect(throws: ObjectGraphError.self) {
            try stack.coordinator.execute(BatchInsertRequest(entityName: "Label", objects: [["name": "x"]]))
        }
        #expect(throws: ObjectGraphError.self) {
            try stack.coordinator.execute(BatchUpdateRequest(entityName: "Label", propertiesToUpdate: ["name": "y"]))
        }
        #expect(throws: ObjectGraphError.self) {
            try stack.coordinator.execute(BatchDeleteRequest(entityName: "Label"))
        }
        var metadata = stack.store.metadata
        metadata.userInfo["k"] = 1
        #expect(throws: ObjectGraphError.self) { try stack.coordinator.setMetadata(metadata, for: stack.store) }
        #expect(stack.store.metadata.userInfo.isEmpty)
        #expect(throws: ObjectGraphError.self) {
            try stack.coordinator.obtainPermanentIDs(for: [(.makeTemporary(entityName: "Label"), try #require(stack.model.entity(named: "Label")))])
        }
        #expect(try Data(contentsOf: stack.url) == bytes)
        #expect(try describe(stack.coordinator) == graph)
        file.injectFault(nil)
        let result = try stack.coordinator.execute(BatchDeleteRequest(entityName: "Label"))
        #expect(result.count == 3)
    }

    @Test func readOnlyStoresNeverWriteAndAreNeverCreated() throws {
        let stack = try ValuesStack()
        try stack.fill()
        let bytes = try Data(contentsOf: stack.url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
        let store = try coordinator.addPersistentStore(ofType: .atomic, configurationName: nil, at: stack.url,
            options: PersistentStoreOptions(isReadOnly: true))
        #expect(try describe(coordinator) == describe(stack.coordinator))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            _ = try context.insertNewObject(forEntityName: "Label")
            let error = try #require(throws: ObjectGraphError.self) { try context.save() }
            guard case .readOnlyStore = error else {
            Issue.record("\(error)")
            return
        }
        }
        #expect(throws: ObjectGraphError.self) { try coordinator.setMetadata(store.metadata, for: store) }
        #expect(try Data(contentsOf: stack.url) == bytes)
        let missing = stack.directory.file("missing.store")
        let error = try #require(throws: ObjectGraphError.self) {
            try coordinator.addPersistentStore(ofType: .atomic, configurationName: nil, at: missing,
                options: PersistentStoreOptions(isReadOnly: true))
        }
        guard case .notAnObjectGraphStore = error else {
            Issue.record("\(error)")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test func aRewriteKeepsTheFilesPermissions() throws {
        let stack = try ValuesStack()
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: stack.url.path)
        try stack.fill()
        let permissions = try FileManager.default.attributesOfItem(atPath: stack.url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test func temporaryFilesACrashLeftAreRemovedWhenTheStoreIsAdded() throws {
        let stack = try ValuesStack()
        try stack.fill()
        let leftover = stack.directory.file(".values.store.objectgraph-temp-\(UUID().uuidString)")
        try Data("half a file".utf8).write(to: leftover)
        let unrelated = stack.directory.file(".values.store.mine")
        try Data("keep".utf8).write(to: unrelated)
        let reopened = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try reopened.addPersistentStore(ofType: .atomic, at: stack.url)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
    }

    @Test func anEmptyFileIsANewStoreAndAFolderIsRefused() throws {
        let directory = TemporaryDirectory()
        let empty = directory.file("empty.store")
        try Data().write(to: empty)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        let store = try coordinator.addPersistentStore(ofType: .atomic, at: empty)
        #expect(try Data(contentsOf: empty).starts(with: Array("bplist00".utf8)))
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .atomic, at: empty).storeUUID
            == store.identifier)
        let folder = directory.file("folder.store")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let error = try #require(throws: ObjectGraphError.self) { try coordinator.addPersistentStore(ofType: .atomic, at: folder) }
        guard case .notAnObjectGraphStore = error else {
            Issue.record("\(error)")
            return
        }
    }
}
