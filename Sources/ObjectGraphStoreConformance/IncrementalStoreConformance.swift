import Foundation
import ObjectGraph

/// Checks that an ``IncrementalStore`` keeps the store contract, the way ObjectGraph's own stores keep it: run it
/// from your tests on your store.
///
/// ```swift
/// @Test func myStoreConforms() throws {
///     let failures = IncrementalStoreConformance.check { model in try MyStore(model: model) }
///     #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
/// }
/// ```
///
/// Each check gets a fresh, empty store for ``model`` from `makeStore` and drives it through the protocol alone:
/// saves (permanent IDs, versions, optimistic locking, all-or-nothing), key allocation, relationships, and fetches
/// whose answers (predicates with `[cd]`, `LIKE`, relationships; sort orders; limits and offsets; counts) are
/// compared with ObjectGraph's in-memory store holding the same rows.
public enum IncrementalStoreConformance {
    /// The model every check's store is made for: `Item` (serial, name, score, to-one `owner`, many-to-many
    /// `tags`), `Owner` (`items`, the inverse of `owner`) and `Tag` (`items`, the inverse of `tags`).
    public static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [
                AttributeDescription(name: "serial", type: .integer64), AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "score", type: .double),
            ], relationships: [
                RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
                RelationshipDescription(name: "tags", destination: "Tag", inverse: "items", isToMany: true),
            ]),
            EntityDescription(name: "Owner", attributes: [
                AttributeDescription(name: "serial", type: .integer64), AttributeDescription(name: "name", type: .string),
            ], relationships: [
                RelationshipDescription(name: "items", destination: "Item", inverse: "owner", isToMany: true),
            ]),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "serial", type: .integer64)],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "tags", isToMany: true),
                ]),
        ])
    }

    /// The names the items get: accents in both normal forms, case variants, wildcard characters, nil.
    static let names: [String?] = [
        "Zoë", "Zoe\u{308}", "zoe", "ZOE", "Émile", "emile", "Ærø", "aero", "Straße", "strasse", "東京", "a*b", "a?b",
        "100%", "", nil, "Łódź", "lodz", "x' OR 1=1 --", "Ǆ",
    ]

    /// Runs every check and returns what failed (empty when the store conforms), each failure naming its check.
    ///
    /// - Parameter makeStore: a fresh, empty store for the given model (called once per check).
    public static func check(_ makeStore: (ManagedObjectModel) throws -> any IncrementalStore) -> [String] {
        let checks: [(String, (any IncrementalStore, ManagedObjectModel) throws -> [String])] = [
            ("saves", checkSaves), ("optimistic locking", checkLocking), ("all or nothing", checkAtomicity),
            ("primary keys", checkKeys), ("relationships", checkRelationships), ("fetches", checkFetches),
        ]
        var failures: [String] = []
        for (name, check) in checks {
            do {
                let model = try makeModel()
                failures += try check(try makeStore(model), model).map { "\(name): \($0)" }
            } catch {
                failures.append("\(name): \(error)")
            }
        }
        return failures
    }

    /// Saves one item per name (serial = position, score = position / 4) and returns their permanent IDs in order.
    static func insertItems(into store: any IncrementalStore, model: ManagedObjectModel) throws -> [ManagedObjectID] {
        guard let item = model.entity(named: "Item") else { return [] }
        var request = StoreSaveRequest()
        for (serial, name) in names.enumerated() {
            request.inserts.append(StoreSaveRequest.Insert(temporaryID: .makeTemporary(entityName: "Item"), entity: item,
                values: [.integer(Int64(serial)), name.map(AttributeValue.string) ?? .null, .double(Double(serial) / 4)],
                toOne: [nil, nil]))
        }
        let result = try store.save(request)
        return request.inserts.compactMap { result.permanentIDs[$0.temporaryID] }
    }

    /// The merge conflicts saving `request` meets; nil when it was saved. Other errors are thrown.
    static func conflicts(saving request: StoreSaveRequest, to store: any IncrementalStore) throws -> [MergeConflict]? {
        let outcome: Result<StoreSaveResult, ObjectGraphError>
        do throws(ObjectGraphError) {
            outcome = .success(try store.save(request))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success: return nil
        case .failure(.mergeConflicts(let found)): return found
        case .failure(let error): throw error
        }
    }

    static func checkSaves(_ store: any IncrementalStore, _ model: ManagedObjectModel) throws -> [String] {
        var failures: [String] = []
        let ids = try insertItems(into: store, model: model)
        guard let item = model.entity(named: "Item") else { return ["the model has no Item"] }
        if ids.count != names.count { failures.append("\(ids.count) permanent IDs for \(names.count) inserts") }
        if ids.contains(where: \.isTemporaryID) { failures.append("a permanent ID is temporary") }
        if Set(ids).count != ids.count { failures.append("two inserts got the same ID") }
        let rows = try store.rows(for: ids, entity: item)
        if rows.count != ids.count { failures.append("rows(for:) found \(rows.count) of \(ids.count)") }
        for row in rows {
            guard let serial = ids.firstIndex(of: row.objectID) else { continue }
            let expected: [AttributeValue] = [.integer(Int64(serial)), names[serial].map(AttributeValue.string) ?? .null,
                .double(Double(serial) / 4)]
            if row.values != expected { failures.append("row \(serial) reads \(row.values), saved \(expected)") }
            if row.version != 1 { failures.append("row \(serial) has version \(row.version) after its insert") }
        }
        let all = try store.fetch(StoreFetchRequest(entity: item))
        if all.map(\.objectID) != ids.sorted(by: { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }) {
            failures.append("an unsorted fetch does not return every row by primary key")
        }
        if try store.count(StoreFetchRequest(entity: item)) != ids.count { failures.append("count differs from fetch") }
        return failures
    }

    static func checkLocking(_ store: any IncrementalStore, _ model: ManagedObjectModel) throws -> [String] {
        guard let item = model.entity(named: "Item") else { return ["the model has no Item"] }
        let ids = try insertItems(into: store, model: model)
        guard let first = ids.first else { return ["nothing was inserted"] }
        var failures: [String] = []
        var update = StoreSaveRequest()
        update.updates = [StoreSaveRequest.Update(objectID: first, entity: item,
            values: [.integer(0), .string("renamed"), .double(9)], expectedVersion: 1, toOne: [nil, nil])]
        let result = try store.save(update)
        if result.versions[first] != 2 { failures.append("an update reported version \(String(describing: result.versions[first])), not 2") }
        switch try conflicts(saving: update, to: store) {
        case nil: failures.append("an update expecting version 1 of a row at version 2 was saved")
        case let found?:
            if found.map(\.objectID) != [first] || found.first?.storeVersion != 2 {
                failures.append("the conflict reads \(found), not \(first) at version 2")
            }
        }
        var delete = StoreSaveRequest()
        delete.deletes = [StoreSaveRequest.Delete(objectID: first, entity: item, expectedVersion: 1)]
        if try conflicts(saving: delete, to: store) == nil {
            failures.append("a delete expecting version 1 of a row at version 2 was saved")
        }
        let row = try store.rows(for: [first], entity: item).first
        if row?.version != 2 || row?.values[1] != .string("renamed") { failures.append("the row reads \(String(describing: row))") }
        delete.deletes = [StoreSaveRequest.Delete(objectID: first, entity: item, expectedVersion: 2)]
        _ = try store.save(delete)
        if try !store.rows(for: [first], entity: item).isEmpty { failures.append("a deleted row is still read") }
        return failures
    }

    static func checkAtomicity(_ store: any IncrementalStore, _ model: ManagedObjectModel) throws -> [String] {
        guard let item = model.entity(named: "Item") else { return ["the model has no Item"] }
        let ids = try insertItems(into: store, model: model)
        guard ids.count >= 2 else { return ["nothing was inserted"] }
        var request = StoreSaveRequest()
        request.inserts = [StoreSaveRequest.Insert(temporaryID: .makeTemporary(entityName: "Item"), entity: item,
            values: [.integer(99), .string("new"), .null], toOne: [nil, nil])]
        request.updates = [StoreSaveRequest.Update(objectID: ids[0], entity: item,
            values: [.integer(0), .string("changed"), .null], expectedVersion: 1, toOne: [nil, nil])]
        request.deletes = [StoreSaveRequest.Delete(objectID: ids[1], entity: item, expectedVersion: 7)]
        if try conflicts(saving: request, to: store) == nil { return ["a save with a stale delete went through"] }
        var failures: [String] = []
        if try store.count(StoreFetchRequest(entity: item)) != ids.count { failures.append("the failed save's insert was kept") }
        if try store.rows(for: [ids[0]], entity: item).first?.version != 1 { failures.append("the failed save's update was kept") }
        return failures
    }

    static func checkKeys(_ store: any IncrementalStore, _ model: ManagedObjectModel) throws -> [String] {
        guard let item = model.entity(named: "Item") else { return ["the model has no Item"] }
        var failures: [String] = []
        let first = try store.allocatePrimaryKeys(for: item, count: 5)
        let second = try store.allocatePrimaryKeys(for: item, count: 5)
        if first.count != 5 || second.count != 5 { failures.append("asked for 5 keys, got \(first) and \(second)") }
        if first.overlaps(second) { failures.append("two allocations overlap: \(first), \(second)") }
        let ids = try insertItems(into: store, model: model)
        for id in ids {
            guard let key = id.primaryKey else { continue }
            if first.contains(key) || second.contains(key) { failures.append("an insert took the reserved key \(key)") }
        }
        if let key = first.first {
            let id = ManagedObjectID(entityName: "Item", storeIdentifier: ids.first?.storeIdentifier ?? "", primaryKey: key)
            var request = StoreSaveRequest()
            request.inserts = [StoreSaveRequest.Insert(temporaryID: .makeTemporary(entityName: "Item"), entity: item,
                values: [.integer(500), .null, .null], toOne: [nil, nil], permanentID: id)]
            let result = try store.save(request)
            if result.permanentIDs.values.first != id { failures.append("an insert with a reserved ID got \(result.permanentIDs)") }
        }
        return failures
    }

    static func checkRelationships(_ store: any IncrementalStore, _ model: ManagedObjectModel) throws -> [String] {
        guard let item = model.entity(named: "Item"), let owner = model.entity(named: "Owner"),
            let tag = model.entity(named: "Tag")
        else { return ["the model lacks an entity"] }
        let ownerID = ManagedObjectID.makeTemporary(entityName: "Owner")
        let tagIDs = (0..<3).map { _ in ManagedObjectID.makeTemporary(entityName: "Tag") }
        let itemIDs = (0..<4).map { _ in ManagedObjectID.makeTemporary(entityName: "Item") }
        var request = StoreSaveRequest()
        request.inserts.append(StoreSaveRequest.Insert(temporaryID: ownerID, entity: owner, values: [.integer(1), .string("o")],
            toOne: [nil]))
        for (index, id) in tagIDs.enumerated() {
            request.inserts.append(StoreSaveRequest.Insert(temporaryID: id, entity: tag, values: [.integer(Int64(index))],
                toOne: [nil]))
        }
        for (index, id) in itemIDs.enumerated() {
            request.inserts.append(StoreSaveRequest.Insert(temporaryID: id, entity: item,
                values: [.integer(Int64(index)), .null, .null], toOne: [index < 3 ? ownerID : nil, nil]))
        }
        request.joinChanges = [StoreSaveRequest.JoinChange(objectID: itemIDs[0], entity: item, relationshipIndex: 1,
            added: [tagIDs[0], tagIDs[2]], removed: [])]
        let result = try store.save(request)
        func permanent(_ id: ManagedObjectID) -> ManagedObjectID { result.permanentIDs[id] ?? id }
        var failures: [String] = []
        let owned = try store.relatedIDs(of: permanent(ownerID), entity: owner, relationshipIndex: 0)
        if Set(owned) != Set(itemIDs.prefix(3).map(permanent)) { failures.append("Owner.items reads \(owned)") }
        let tags = try store.relatedIDs(of: permanent(itemIDs[0]), entity: item, relationshipIndex: 1)
        if Set(tags) != Set([tagIDs[0], tagIDs[2]].map(permanent)) { failures.append("Item.tags reads \(tags)") }
        let inverse = try store.relatedIDs(of: permanent(tagIDs[2]), entity: tag, relationshipIndex: 0)
        if inverse != [permanent(itemIDs[0])] { failures.append("Tag.items (the inverse side) reads \(inverse)") }
        let row = try store.rows(for: [permanent(itemIDs[1])], entity: item).first
        if row?.toOne.first ?? nil != permanent(ownerID) { failures.append("Item.owner reads \(String(describing: row?.toOne))") }
        return failures
    }
}
