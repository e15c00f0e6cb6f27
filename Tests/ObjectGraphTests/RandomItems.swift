import Foundation
@testable import ObjectGraph

/// Random test items (the test model's `Item`: a group, a rank, a name, a flag) and random edits of them, for
/// the controller tests that compare results with a fresh fetch after arbitrary changes.
enum RandomItems {
    static let groups = ["A", "B", "C", "D", "E"]
    static let names = ["ada", "Åsa", "bo", "émile", "Zoë", "zed", "ola", nil, "Ada", "béa"]

    static func randomize(_ item: ManagedObject, _ rng: inout SeededRandom) {
        item["group"] = groups[Int.random(in: 0..<groups.count, using: &rng)]
        item["rank"] = Int64.random(in: 0..<4, using: &rng)
        item["name"] = names[Int.random(in: 0..<names.count, using: &rng)]
    }

    /// Deletes, re-keys and inserts items at random in `context` (without saving).
    static func edit(in context: ManagedObjectContext, _ rng: inout SeededRandom) throws {
        for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        where Int.random(in: 0..<4, using: &rng) == 0 {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: context.delete(item)
            case 1: item["rank"] = Int64.random(in: 0..<4, using: &rng)
            case 2: item["group"] = groups[Int.random(in: 0..<groups.count, using: &rng)]
            default: item["flag"] = !(item["flag"] ?? false)
            }
        }
        for _ in 0..<Int.random(in: 0..<6, using: &rng) {
            randomize(try context.insertNewObject(forEntityName: "Item"), &rng)
        }
    }

    /// A worker below `parent` edits at random and pushes its changes into it (a child context's save).
    static func pushEdits(into parent: ManagedObjectContext, _ rng: inout SeededRandom) throws {
        let worker = child(of: parent, name: "worker")
        var local = rng
        try worker.performAndWait {
            try edit(in: worker, &local)
            try worker.save()
        }
        rng = local
    }
}
