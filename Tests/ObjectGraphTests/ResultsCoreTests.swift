import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// ``ResultsCore`` on its own — no context, no store, no objects — against a brute-force model: random batches
/// of deletions, insertions, key changes (within and across sections, emptying and opening sections), ID
/// changes (temporary to permanent, which reorders ties) and in-place updates, over keys of a few values so
/// that most results tie. After each batch the core's results equal the model re-sorted, and its reported
/// changes, applied with UIKit's rules to the rows before, give the rows after.
@Suite struct ResultsCoreTests {
    /// A result of the model: its section, sort key and ID (temporary IDs sort after permanent ones).
    struct Item {
        var section: Int32
        var key: UInt8
        var temporary: Bool
        var idKey: Int64

        var placed: ResultID { ResultID(key: idKey, namespace: temporary ? 1 : 0) }
        /// Section, key, then the ID — the shape of the controller's order bytes.
        var order: [UInt8] {
            var bytes: [UInt8] = [UInt8(section), key, temporary ? 1 : 0]
            withUnsafeBytes(of: UInt64(bitPattern: idKey).bigEndian) { bytes.append(contentsOf: $0) }
            return bytes
        }
        var entry: ResultsEntry { ResultsEntry(placed: placed, order: order, section: section) }
    }

    /// The model's rows: items (by token) sorted by their order bytes, grouped by section.
    static func rows(_ items: [Int: Item]) -> [[Int]] {
        let sorted = items.sorted { RowOrdering.compare($0.value.order, $1.value.order) < 0 }
        var rows: [[Int]] = []
        var last: Int32?
        for (token, item) in sorted {
            if item.section != last { rows.append([]) }
            rows[rows.count - 1].append(token)
            last = item.section
        }
        return rows
    }

    @Test(arguments: 1...100)
    func batchesMatchABruteForceModel(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var items: [Int: Item] = [:]
        var nextToken = 0
        var nextIDKey: Int64 = 1
        func newItem() -> Item {
            defer { nextIDKey += 1 }
            return Item(section: Int32.random(in: 0..<4, using: &rng), key: UInt8.random(in: 0..<3, using: &rng),
                temporary: rng.chance(0.5), idKey: nextIDKey)
        }
        for _ in 0..<Int.random(in: 0..<25, using: &rng) {
            items[nextToken] = newItem()
            nextToken += 1
        }
        let initial = items.values.sorted { RowOrdering.compare($0.order, $1.order) < 0 }.map(\.entry)
        var core = ResultsCore(index: ResultsIndex(sorted: initial), runs: SectionRuns(of: initial))

        for round in 0..<40 {
            let label = "seed \(seed) round \(round)"
            let oldRows = Self.rows(items)
            var tokenByPlaced: [ResultID: Int] = [:]
            for (token, item) in items { tokenByPlaced[item.placed] = token }
            var batch = ResultsBatch<Int>()
            var mentioned: Set<Int> = []
            for token in items.keys.sorted() where rng.chance(0.3) {
                guard let old = items[token], let (section, position) = core.index.locate(old.placed, order: old.order)
                else {
                    Issue.record("\(label): item \(token) not found")
                    continue
                }
                let leaving = ResultsBatch<Int>.Leaving(subject: token, placed: old.placed, section: section,
                    oldIndex: position)
                mentioned.insert(token)
                var new = old
                switch Int.random(in: 0..<5, using: &rng) {
                case 0:
                    batch.removed.append(leaving)
                    items[token] = nil
                    continue
                case 1: new.key = UInt8.random(in: 0..<3, using: &rng)
                case 2: new.section = Int32.random(in: 0..<4, using: &rng)
                case 3:
                    // A temporary ID becomes permanent (a new key, sorting before every temporary one).
                    guard old.temporary else { break }
                    new.temporary = false
                    new.idKey = nextIDKey
                    nextIDKey += 1
                default: break  // an update that changes no key
                }
                items[token] = new
                if new.order == old.order {
                    batch.updatedInPlace.append(leaving)
                } else {
                    let identityOnly = (new.section, new.key) == (old.section, old.key)
                    batch.replaced.append(.init(leaving: leaving, entry: new.entry, identityOnly: identityOnly))
                }
            }
            for _ in 0..<Int.random(in: 0..<4, using: &rng) {
                let item = newItem()
                items[nextToken] = item
                batch.added.append(.init(subject: nextToken, entry: item.entry))
                mentioned.insert(nextToken)
                nextToken += 1
            }
            for (token, item) in items { tokenByPlaced[item.placed] = token }

            let change = core.apply(batch, reporting: true) { tokenByPlaced[$0] }
            let newRows = Self.rows(items)
            #expect(core.index.allEntries.map(\.placed) == newRows.flatMap { $0 }.compactMap { items[$0]?.placed },
                "\(label): the core's order differs from the model's")
            #expect(core.runs.counts == newRows.map(\.count), "\(label): section counts")
            guard let change else {
                #expect(batch.isEmpty)
                #expect(oldRows == newRows)
                continue
            }
            #expect(change.oldCount == oldRows.flatMap { $0 }.count)

            // Every change the batch named is reported once; others only as moves out of a mover's way.
            let reported = change.changes.map(\.object)
            #expect(Set(reported).count == reported.count, "\(label): a result reported twice")
            #expect(mentioned.isSubset(of: Set(reported)), "\(label): a change went unreported")
            for extra in change.changes where !mentioned.contains(extra.object) {
                #expect(extra.type == .move, "\(label): \(extra.type) of an unchanged result")
            }
            for update in change.changes where update.type == .move {
                #expect(update.oldPath != update.newPath || change.oldRuns.sections[update.oldPath?.section ?? 0]
                    != core.runs.sections[update.newPath?.section ?? 0], "\(label): a move to its own index path")
            }

            // Applied with UIKit's rules to the rows before, the changes give the rows after.
            let changeset = ResultsReport(change, newRuns: core.runs).sectionedChangeset()
            #expect(throws: Never.self, "\(label)") {
                try changeset.validate(oldRowCounts: oldRows.map(\.count), newRowCounts: newRows.map(\.count))
            }
            var inserted: [IndexPath: Int] = [:]
            for insertion in change.changes where insertion.type == .insert {
                if let path = insertion.newPath { inserted[path.indexPath] = insertion.object }
            }
            #expect(changeset.applied(to: oldRows) { inserted[$0] } == newRows,
                "\(label): applying \(changeset) does not give the new rows")
        }
    }

    /// Results whose IDs change take them in place, run by run, exactly where that keeps the whole order sorted
    /// (brute force: the run's new order bytes put in the old sequence); the others are left, and re-placing
    /// them as a batch gives the model's order with changes that apply by UIKit's rules.
    @Test(arguments: 1...100)
    func newIDsAreTakenInPlaceExactlyWhereTheyKeepTheOrder(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var items: [Int: Item] = [:]
        for token in 0..<Int.random(in: 1..<30, using: &rng) {
            items[token] = Item(section: Int32.random(in: 0..<3, using: &rng), key: UInt8.random(in: 0..<2, using: &rng),
                temporary: rng.chance(0.7), idKey: Int64(token + 1))
        }
        let before = items.values.sorted { RowOrdering.compare($0.order, $1.order) < 0 }
        var core = ResultsCore(index: ResultsIndex(sorted: before.map(\.entry)), runs: SectionRuns(of: before.map(\.entry)))
        let tokenByPlaced = Dictionary(uniqueKeysWithValues: items.map { ($0.value.placed, $0.key) })
        // Some temporary IDs become permanent: keys handed out in order of position (as a save does) or not.
        let inOrder = rng.chance(0.5)
        var nextKey: Int64 = 1_000
        var newIDs: [ResultsCore.NewID] = []
        var tokens: [Int] = []
        for (position, old) in before.enumerated() where old.temporary && rng.chance(0.5) {
            guard let token = tokenByPlaced[old.placed] else { continue }
            var new = old
            new.temporary = false
            new.idKey = inOrder ? nextKey : Int64.random(in: 1_000..<2_000, using: &rng) * 100 + Int64(token)
            nextKey += 1
            items[token] = new
            tokens.append(token)
            newIDs.append(.init(position: position, placed: old.placed, order: old.order, newPlaced: new.placed,
                newOrder: new.order))
        }
        newIDs.shuffle(using: &rng)
        tokens = newIDs.map { tokenByPlaced[$0.placed] ?? -1 }
        let left = Set(core.adoptInPlace(newIDs))

        // Brute force: each maximal run of adjacent changed positions is taken in place exactly when its new
        // order bytes, put in place of the old ones, leave the whole sequence sorted.
        let changedAt = Dictionary(uniqueKeysWithValues: newIDs.enumerated().map { ($1.position, $0) })
        var position = 0
        while position < before.count {
            guard changedAt[position] != nil else {
                position += 1
                continue
            }
            var run: [Int] = []
            while let offset = changedAt[position] {
                run.append(offset)
                position += 1
            }
            var orders = before.map(\.order)
            for offset in run { orders[newIDs[offset].position] = newIDs[offset].newOrder }
            let sorted = zip(orders, orders.dropFirst()).allSatisfy { RowOrdering.compare($0, $1) < 0 }
            for offset in run {
                #expect(left.contains(offset) == !sorted, "seed \(seed): run at \(run.map { newIDs[$0].position })")
            }
        }
        // In place: the index stays sorted, adopted results where they were under their new IDs.
        let entries = core.index.allEntries
        #expect(zip(entries, entries.dropFirst()).allSatisfy { RowOrdering.compare($0.order, $1.order) < 0 })
        for (offset, newID) in newIDs.enumerated() {
            #expect(entries[newID.position].placed == (left.contains(offset) ? newID.placed : newID.newPlaced))
        }
        // The others re-placed as a batch: the model's order, and changes that apply.
        // (The rows as the index holds them now, by token: adopted results under their new IDs, the others not.)
        var anyTokenByPlaced = tokenByPlaced
        for (token, item) in items { anyTokenByPlaced[item.placed] = token }
        var oldRows: [[Int]] = []
        var lastSection: Int32?
        for entry in entries {
            if entry.section != lastSection { oldRows.append([]) }
            oldRows[oldRows.count - 1].append(anyTokenByPlaced[entry.placed] ?? -1)
            lastSection = entry.section
        }
        var batch = ResultsBatch<Int>()
        for offset in left {
            let newID = newIDs[offset]
            let section = entries[newID.position].section
            guard let item = items[tokens[offset]] else { continue }
            batch.replaced.append(.init(leaving: .init(subject: tokens[offset], placed: newID.placed, section: section,
                oldIndex: newID.position), entry: item.entry, identityOnly: true))
        }
        let tokenNow = Dictionary(uniqueKeysWithValues: items.map { ($0.value.placed, $0.key) })
        let change = core.apply(batch, reporting: true) { tokenNow[$0] }
        let newRows = Self.rows(items)
        #expect(core.index.allEntries.map(\.placed) == newRows.flatMap { $0 }.compactMap { items[$0]?.placed })
        if let change {
            let changeset = ResultsReport(change, newRuns: core.runs).sectionedChangeset()
            #expect(changeset.applied(to: oldRows) { _ in nil } == newRows, "seed \(seed): \(changeset)")
            #expect(change.changes.allSatisfy { $0.type == .move || ($0.type == .update && $0.identityOnly) })
        } else {
            #expect(left.isEmpty)
        }
    }
}
