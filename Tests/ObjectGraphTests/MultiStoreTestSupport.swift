import Foundation
import Testing
@testable import ObjectGraph

/// Record n—1 Group: the subject of the multi-store tests. `serial` is unique, so that the objects of two
/// stacks can be matched and any order made total.
enum MultiStoreModels {
    static func model(configurations: [ModelConfiguration] = []) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Record", attributes: [
                AttributeDescription(name: "serial", type: .integer64, defaultValue: 0),
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "score", type: .double),
                AttributeDescription(name: "level", type: .integer16, defaultValue: 0),
                AttributeDescription(name: "flag", type: .boolean, defaultValue: false),
                AttributeDescription(name: "when", type: .date),
            ], relationships: [
                RelationshipDescription(name: "group", destination: "Group", inverse: "records"),
            ]),
            EntityDescription(name: "Group", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "records", destination: "Record", inverse: "group", isToMany: true),
                ]),
        ], configurations: configurations)
    }

    static let names = ["ada", "Åsa", "bo", "Bo", "émile", "Zoë", "zed", "東京", "e\u{301}va", "Ola", "ølaf", ""]
    static let groups = ["G0", "G1", "G2", "G3"]
}

/// A coordinator of the multi-store model with the stores `kinds` (each holding every entity), plus a folder.
struct MultiStoreStack {
    let directory = TemporaryDirectory(prefix: "multi-store")
    let coordinator: PersistentStoreCoordinator
    let stores: [PersistentStore]

    init(_ kinds: [StoreKind]) throws {
        coordinator = PersistentStoreCoordinator(managedObjectModel: try MultiStoreModels.model())
        var stores: [PersistentStore] = []
        for (index, kind) in kinds.enumerated() {
            stores.append(try coordinator.addPersistentStore(ofType: kind.storeType, at: directory.file("s\(index).\(kind)")))
        }
        self.stores = stores
    }

    func context(_ type: ManagedObjectContext.ConcurrencyType = .privateQueue) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: type)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Each store's groups, by name (created on first use in `context`).
    final class Groups {
        var byStore: [String: [String: ManagedObject]] = [:]
    }

    /// Inserts a record with `values` into `context`, in store `storeIndex` (with its group of the same store).
    @discardableResult
    func insertRecord(_ values: RecordValues, storeIndex: Int, in context: ManagedObjectContext, groups: Groups) throws
        -> ManagedObject
    {
        let store = stores[storeIndex]
        let record = try context.insertNewObject(forEntityName: "Record")
        if stores.count > 1 { try context.assign(record, to: store) }
        values.apply(to: record)
        if let groupName = values.group {
            let group: ManagedObject
            if let known = groups.byStore[store.identifier]?[groupName] {
                group = known
            } else {
                group = try context.insertNewObject(forEntityName: "Group")
                group["name"] = groupName
                if stores.count > 1 { try context.assign(group, to: store) }
                groups.byStore[store.identifier, default: [:]][groupName] = group
            }
            record.setRelatedObject(group, forKey: "group")
        }
        return record
    }
}

/// One record's values, generated from a seed.
struct RecordValues {
    var serial: Int64
    var name: String?
    var score: Double?
    var level: Int16
    var flag: Bool
    var when: Date?
    var group: String?

    static func random(serial: Int64, _ rng: inout SeededRandom) -> RecordValues {
        RecordValues(serial: serial,
            name: rng.chance(0.9) ? MultiStoreModels.names.randomElement(using: &rng) : nil,
            score: rng.chance(0.8) ? Double(Int.random(in: -5...20, using: &rng)) / 2 : nil,
            level: Int16.random(in: 0...5, using: &rng), flag: rng.chance(0.5),
            when: rng.chance(0.85) ? Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...30, using: &rng)) * 3600) : nil,
            group: rng.chance(0.9) ? MultiStoreModels.groups.randomElement(using: &rng) : nil)
    }

    func apply(to record: ManagedObject) {
        record["serial"] = serial
        record["name"] = name
        record["score"] = score
        record["level"] = level
        record["flag"] = flag
        record["when"] = when
    }
}

/// Random fetch requests over Record: predicates of every kind (text with case and diacritic options, nil,
/// numbers, dates, Booleans, a key path through the to-one relationship, compounds), one or two sort criteria
/// (always ending in `serial`, so that the order is total), limits and offsets.
enum RandomRecordRequests {
    static func predicate(_ rng: inout SeededRandom) throws -> FetchPredicate? {
        func one(_ rng: inout SeededRandom) throws -> FetchPredicate {
            let name = MultiStoreModels.names.randomElement(using: &rng) ?? "ada"
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: return try FetchPredicate(format: "name BEGINSWITH[cd] %@", String(name.prefix(1)))
            case 1: return try FetchPredicate(format: "name ==[c] %@", name)
            case 2: return try FetchPredicate(format: "score > %@", Double(Int.random(in: -4...10, using: &rng)) / 2)
            case 3: return try FetchPredicate(format: rng.chance(0.5) ? "score == nil" : "score != nil")
            case 4:
                let low = Int.random(in: 0...4, using: &rng)
                return try FetchPredicate(format: "level >= %d AND level <= %d", low, low + Int.random(in: 0...2, using: &rng))
            case 5: return try FetchPredicate(format: rng.chance(0.5) ? "flag == YES" : "flag == NO")
            case 6: return try FetchPredicate(format: "group.name == %@", MultiStoreModels.groups.randomElement(using: &rng) ?? "G0")
            case 7: return try FetchPredicate(format: "NOT (name CONTAINS[c] %@)", "a")
            case 8:
                return try FetchPredicate(format: "when < %@",
                    Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...30, using: &rng)) * 3600))
            default: return try FetchPredicate(format: "group == nil OR name == nil")
            }
        }
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return nil
        case 1: return FetchPredicate.and([try one(&rng), try one(&rng)])
        case 2: return FetchPredicate.or([try one(&rng), try one(&rng)])
        default: return try one(&rng)
        }
    }

    static func sortCriteria(_ rng: inout SeededRandom) -> [SortCriterion] {
        let options = [
            SortCriterion("name", comparison: .caseAndDiacriticInsensitive), SortCriterion("name", ascending: false),
            SortCriterion("score", ascending: false), SortCriterion("level"), SortCriterion("group.name"),
            SortCriterion("when"), SortCriterion("flag", ascending: false),
        ]
        var criteria: [SortCriterion] = []
        for _ in 0..<Int.random(in: 0...2, using: &rng) { criteria.append(options.randomElement(using: &rng) ?? options[0]) }
        return criteria + [SortCriterion("serial", ascending: rng.chance(0.5))]
    }

    static func request(_ rng: inout SeededRandom) throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Record", predicate: try predicate(&rng),
            sortCriteria: sortCriteria(&rng))
        if rng.chance(0.5) { request.fetchLimit = Int.random(in: 1...15, using: &rng) }
        if rng.chance(0.5) { request.fetchOffset = Int.random(in: 0...25, using: &rng) }
        return request
    }
}

extension Array where Element == ManagedObject {
    /// The records' serial numbers, in order.
    var serials: [Int64] { map { $0["serial"] ?? -1 } }
}
