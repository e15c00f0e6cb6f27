import Foundation

extension AnyFetchedResultsController {
    /// Re-chooses which objects move when the fast classification produced a move that starts and ends
    /// at the same index path (an object that changed order while rows around it came and went, landing
    /// on its old coordinates). UIKit accepts such a move, but the contract is stricter: an object whose
    /// index path is unchanged is reported as an update, never as a move to the same place.
    ///
    /// Every object present before and after (a survivor) either keeps its place — the kept ones must be
    /// in the same relative order before and after, and in the same section — or is reported as a move.
    /// This picks the heaviest such set by weighted longest-increasing-subsequence: survivors whose index
    /// path is unchanged must stay, unchanged objects prefer staying over changed ones. An unchanged
    /// object that has to make room is then reported as a move (it is reported once, like every other).
    ///
    /// Cost O(n log n) over all survivors, paid only in the rare batch that needs it.
    func avoidingSamePathMoves(
        _ changes: [ResultsObjectChange], oldRuns: SectionRuns, oldCount: Int
    ) -> [ResultsObjectChange] {
        guard changes.contains(where: { $0.type == .move && $0.oldPath == $0.newPath }) else { return changes }
        var deletedOld = Set<Int>()
        var insertedNew = Set<Int>()
        var changedOld = Set<Int>()
        var changedByNew: [Int: Int] = [:]
        for (offset, change) in changes.enumerated() {
            switch change.type {
            case .delete: if let old = change.oldIndex { deletedOld.insert(old) }
            case .insert: if let new = change.newIndex { insertedNew.insert(new) }
            case .move, .update:
                guard let old = change.oldIndex, let new = change.newIndex else { continue }
                changedOld.insert(old)
                changedByNew[new] = offset
            }
        }
        // Survivors in new order, with their old positions.
        var unchangedOld: [Int] = []
        for old in 0..<oldCount where !deletedOld.contains(old) && !changedOld.contains(old) { unchangedOld.append(old) }
        var survivors: [(old: Int, new: Int, change: Int?)] = []
        var cursor = 0
        for new in 0..<index.count where !insertedNew.contains(new) {
            if let offset = changedByNew[new], let old = changes[offset].oldIndex {
                survivors.append((old, new, offset))
            } else if cursor < unchangedOld.count {
                survivors.append((unchangedOld[cursor], new, nil))
                cursor += 1
            }
        }
        var scratchOldRuns = oldRuns
        let big = 4 * (survivors.count + 1)
        let weights = survivors.map { survivor -> Int in
            let (oldSection, oldRow) = scratchOldRuns.locate(survivor.old)
            let (newSection, newRow) = runs.locate(survivor.new)
            guard oldRuns.sections[oldSection] == runs.sections[newSection] else { return 0 }  // must move
            if oldSection == newSection, oldRow == newRow { return big }
            return survivor.change == nil ? 2 : 1
        }
        let kept = Self.heaviestIncreasingRun(survivors.map(\.old), weights: weights, domain: oldCount)

        var result = changes.filter { $0.type == .delete || $0.type == .insert }
        for (position, survivor) in survivors.enumerated() {
            let stays = kept.contains(position)
            if let offset = survivor.change {
                var change = changes[offset]
                change = ResultsObjectChange(object: change.object, type: stays ? .update : .move, oldID: change.oldID,
                    newID: change.newID, oldIndex: change.oldIndex, newIndex: change.newIndex,
                    oldPath: change.oldPath, newPath: change.newPath)
                result.append(change)
            } else if !stays {
                let id = namespaces.id(for: index[survivor.new].placed)
                guard let object = try? managedObjectContext.object(with: id) else { continue }
                let (oldSection, oldRow) = scratchOldRuns.locate(survivor.old)
                result.append(ResultsObjectChange(object: object, type: .move, oldID: id, newID: id,
                    oldIndex: survivor.old, newIndex: survivor.new, oldPath: IndexPath(row: oldRow, section: oldSection),
                    newPath: indexPath(forGlobalIndex: survivor.new)))
            }
        }
        return result
    }

    /// Positions of a strictly increasing subsequence of `values` (distinct, in 0..<domain) with the
    /// greatest total weight; zero-weight elements are never chosen.
    static func heaviestIncreasingRun(_ values: [Int], weights: [Int], domain: Int) -> Set<Int> {
        // best[i]: the heaviest run ending at position i; a Fenwick tree gives the best run ending below
        // a value.
        var tree = [(weight: Int, position: Int)](repeating: (0, -1), count: domain + 1)
        var previous = [Int](repeating: -1, count: values.count)
        var best = [Int](repeating: 0, count: values.count)
        func query(_ value: Int) -> (weight: Int, position: Int) {  // best over values < value
            var result = (weight: 0, position: -1)
            var node = value
            while node > 0 {
                if tree[node].weight > result.weight { result = tree[node] }
                node -= node & -node
            }
            return result
        }
        func update(_ value: Int, _ entry: (weight: Int, position: Int)) {
            var node = value + 1
            while node <= domain {
                if entry.weight > tree[node].weight { tree[node] = entry }
                node += node & -node
            }
        }
        var top = (weight: 0, position: -1)
        for (position, value) in values.enumerated() where weights[position] > 0 && value < domain {
            let below = query(value)
            best[position] = below.weight + weights[position]
            previous[position] = below.position
            update(value, (best[position], position))
            if best[position] > top.weight { top = (best[position], position) }
        }
        var chosen: Set<Int> = []
        var cursor = top.position
        while cursor >= 0 {
            chosen.insert(cursor)
            cursor = previous[cursor]
        }
        return chosen
    }
}
