import Foundation
import Testing
@testable import ObjectGraph

/// Members (unique by email) with labels (unique by name), many-to-many.
private func uniqueModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(entities: [
        EntityDescription(name: "Member", attributes: [
            AttributeDescription(name: "email", type: .string),
            AttributeDescription(name: "name", type: .string),
        ], relationships: [
            RelationshipDescription(name: "labels", destination: "Label", inverse: "members", isToMany: true),
        ], uniquenessConstraints: [["email"]]),
        EntityDescription(name: "Label", attributes: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "note", type: .string),
        ], relationships: [
            RelationshipDescription(name: "members", destination: "Member", inverse: "labels", isToMany: true),
        ], uniquenessConstraints: [["name"]]),
    ])
}

private struct UniqueStack {
    let directory = TemporaryDirectory()
    let coordinator: PersistentStoreCoordinator

    init(_ kind: StoreKind) throws {
        coordinator = PersistentStoreCoordinator(managedObjectModel: try uniqueModel())
        try coordinator.addPersistentStore(ofType: kind.storeType, at: directory.file("u.sqlite"))
    }

    func context(_ policy: MergePolicy = .error) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.mergePolicy = policy
        return context
    }

    /// Imports `count` members (member0@example.org …), each with the labels "even"/"odd" and "all".
    func importMembers(_ count: Int, policy: MergePolicy, note: String = "import") throws {
        let context = context(policy)
        try context.performAndWait {
            var labels: [String: ManagedObject] = [:]
            func label(_ name: String) throws -> ManagedObject {
                if let label = labels[name] { return label }
                let label = try context.insertNewObject(forEntityName: "Label")
                label["name"] = name
                label["note"] = note
                labels[name] = label
                return label
            }
            for index in 0..<count {
                let member = try context.insertNewObject(forEntityName: "Member")
                member["email"] = "member\(index)@example.org"
                member["name"] = "Member \(index) (\(note))"
                member.addRelatedObject(try label(index % 2 == 0 ? "even" : "odd"), forKey: "labels")
                member.addRelatedObject(try label("all"), forKey: "labels")
            }
            try context.save()
        }
    }

    func count(_ entity: String) throws -> Int {
        let reader = context()
        return try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: entity)) }
    }
}

@Suite struct UniquenessConstraintTests {
    @Test(arguments: StoreKind.allCases) func theErrorPolicyRefusesARepeatAndKeepsTheChanges(kind: StoreKind) throws {
        let stack = try UniqueStack(kind)
        try stack.importMembers(4, policy: .error)
        let context = stack.context(.error)
        try context.performAndWait {
            let label = try context.insertNewObject(forEntityName: "Label")
            label["name"] = "odd"
            do throws(ObjectGraphError) {
                try context.save()
                Issue.record("a repeated label was saved")
            } catch {
                guard case .constraintConflicts(let conflicts) = error else {
                    Issue.record("expected constraint conflicts, got \(error)")
                    return
                }
                #expect(conflicts.count == 1)
                #expect(conflicts.first?.keys == ["name"])
                #expect(conflicts.first?.values == [.string("odd")])
                #expect(conflicts.first?.insertedObjectID == label.objectID)
                #expect(conflicts.first?.existingObjectID.isTemporaryID == false)
            }
            #expect(context.insertedObjects.contains(label))
        }
        #expect(try stack.count("Label") == 3)
    }

    @Test(arguments: StoreKind.allCases, [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback])
    func anImportRunTwiceDoesNotDuplicate(kind: StoreKind, policy: MergePolicy) throws {
        let stack = try UniqueStack(kind)
        try stack.importMembers(30, policy: policy, note: "first")
        try stack.importMembers(30, policy: policy, note: "second")
        #expect(try stack.count("Member") == 30)
        #expect(try stack.count("Label") == 3)
        let reader = stack.context()
        try reader.performAndWait {
            let labels = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Label"))
            let objectWins = policy == .mergeByPropertyObjectTrump || policy == .overwrite
            for label in labels {
                #expect(label["note"] as String? == (objectWins ? "second" : "first"), "\(policy)")
            }
            let all = try #require(labels.first { $0["name"] as String? == "all" })
            #expect(all.relatedObjects(forKey: "members").count == 30, "relationships moved onto the kept object")
            let members = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Member"))
            #expect(members.allSatisfy { $0.relatedObjects(forKey: "labels").count == 2 })
            #expect(members.allSatisfy { ($0["name"] as String?)?.hasSuffix(objectWins ? "(second)" : "(first)") == true })
        }
    }

    @Test(arguments: StoreKind.allCases) func repeatsWithinOneSaveBecomeOne(kind: StoreKind) throws {
        let stack = try UniqueStack(kind)
        let context = stack.context(.mergeByPropertyObjectTrump)
        try context.performAndWait {
            for note in ["one", "two", "three"] {
                let label = try context.insertNewObject(forEntityName: "Label")
                label["name"] = "same"
                label["note"] = note
            }
            let unnamed = try context.insertNewObject(forEntityName: "Label")  // nil values never conflict
            unnamed["note"] = "unnamed"
            try context.save()
        }
        #expect(try stack.count("Label") == 2)
        let reader = stack.context()
        try reader.performAndWait { () throws in
            let request = FetchRequest<ManagedObject>(entityName: "Label", predicate: .key("name", .equalTo, "same"))
            #expect(try reader.fetch(request).first?["note"] as String? == "three", "the last writer wins")
        }
    }

    @Test(arguments: StoreKind.allCases) func aRepeatSavedByAnotherContextMeanwhileIsMerged(kind: StoreKind) throws {
        let stack = try UniqueStack(kind)
        let slow = stack.context(.mergeByPropertyObjectTrump)
        try slow.performAndWait {
            let label = try slow.insertNewObject(forEntityName: "Label")
            label["name"] = "contested"
            label["note"] = "slow"
        }
        try stack.importMembers(2, policy: .error)  // no "contested" yet
        let fast = stack.context(.mergeByPropertyObjectTrump)
        try fast.performAndWait {
            let label = try fast.insertNewObject(forEntityName: "Label")
            label["name"] = "contested"
            label["note"] = "fast"
            try fast.save()
        }
        try slow.performAndWait { try slow.save() }
        #expect(try stack.count("Label") == 4)
        let reader = stack.context()
        try reader.performAndWait { () throws in
            let request = FetchRequest<ManagedObject>(entityName: "Label", predicate: .key("name", .equalTo, "contested"))
            #expect(try reader.fetch(request).map { $0["note"] as String? } == ["slow"])
        }
    }
}
