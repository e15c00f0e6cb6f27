import Foundation
import SectionedChanges

extension AnyFetchedResultsController {
    /// One object's change, with its old and new global positions.
    private struct ObjectChange {
        let object: ManagedObject
        let type: FetchedResultsChangeType
        var oldIndex: Int?
        var newIndex: Int?
    }

    /// Applies a context change to the results and reports it to the delegate.
    ///
    /// Cost: O(changed objects × log n) to classify, plus one linear merge pass over the results.
    func contextDidChange(_ change: ObjectsDidChange) {
        guard hasFetched, let delegate else { return }
        if change.invalidatedAllObjects {
            // Core Data's rule: after a reset, nothing is reported; the client fetches again.
            entries = []
            sectionNames = []
            sectionStarts = []
            placedKeys = [:]
            return
        }
        let model = managedObjectContext.persistentStoreCoordinator?.managedObjectModel
        let entityNames: Set<String> = fetchRequest.includesSubentities
            ? Set(model?.entity(named: fetchRequest.entityName).map { model?.entityAndDescendants(of: $0) ?? [$0] }?
                .map(\.name) ?? [fetchRequest.entityName])
            : [fetchRequest.entityName]
        let predicate = fetchRequest.predicate
        func matches(_ object: ManagedObject) -> Bool {
            !object.isDeleted && (predicate?.evaluate(with: object) ?? true)
        }

        var removed: [ManagedObject] = []
        var added: [ManagedObject] = []
        var replaced: [ManagedObject] = []
        var updatedInPlace: [ManagedObject] = []
        var seen: Set<ObjectIdentifier> = []

        for object in change.deletedObjects where entityNames.contains(object.entity.name) {
            if placedKeys[ObjectIdentifier(object)] != nil, seen.insert(ObjectIdentifier(object)).inserted {
                removed.append(object)
            }
        }
        let changed = change.insertedObjects.union(change.updatedObjects).union(change.refreshedObjects)
        for object in changed where entityNames.contains(object.entity.name) {
            guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
            let placed = placedKeys[ObjectIdentifier(object)]
            switch (placed, matches(object)) {
            case (nil, true):
                added.append(object)
            case (.some, false):
                removed.append(object)
            case (.some(let keys), true):
                let entry = makeEntry(object, ordering: ordering)
                let oldSection = position(of: object).map { entries[$0].sectionName }
                if ordering.compareKeys(keys, entry.keys) == 0, oldSection == entry.sectionName {
                    updatedInPlace.append(object)
                } else {
                    replaced.append(object)
                }
            case (nil, false):
                break
            }
        }
        guard !(removed.isEmpty && added.isEmpty && replaced.isEmpty && updatedInPlace.isEmpty) else { return }

        // Old positions of everything that leaves its place.
        var oldIndex: [ObjectIdentifier: Int] = [:]
        for object in removed + replaced + updatedInPlace {
            if let offset = position(of: object) { oldIndex[ObjectIdentifier(object)] = offset }
        }
        let leaving = Set((removed + replaced).compactMap { oldIndex[ObjectIdentifier($0)] })
        let arriving = (added + replaced).map { makeEntry($0, ordering: ordering) }
            .sorted { ordering.precedes($0.keys, $0.object.objectID, $1.keys, $1.object.objectID) }

        // Merge the survivors (still in order) with the arrivals (sorted) in one pass.
        let oldEntries = entries
        let oldNames = sectionNames
        let oldStarts = sectionStarts
        let watched = Set((replaced + updatedInPlace).map(ObjectIdentifier.init))
        var merged: [ResultsEntry] = []
        merged.reserveCapacity(oldEntries.count - leaving.count + arriving.count)
        var newIndex: [ObjectIdentifier: Int] = [:]
        // For survivors that did not move: (new index, old index), in new order — needed to tell moves apart.
        var survivorTrail: [(newIndex: Int, oldIndex: Int)] = []
        let needsTrail = !replaced.isEmpty
        var arrivalCursor = 0
        for (offset, entry) in oldEntries.enumerated() where !leaving.contains(offset) {
            while arrivalCursor < arriving.count,
                ordering.precedes(arriving[arrivalCursor].keys, arriving[arrivalCursor].object.objectID,
                    entry.keys, entry.object.objectID)
            {
                newIndex[ObjectIdentifier(arriving[arrivalCursor].object)] = merged.count
                merged.append(arriving[arrivalCursor])
                arrivalCursor += 1
            }
            if !watched.isEmpty, watched.contains(ObjectIdentifier(entry.object)) {
                newIndex[ObjectIdentifier(entry.object)] = merged.count
            }
            if needsTrail { survivorTrail.append((merged.count, offset)) }
            merged.append(entry)
        }
        while arrivalCursor < arriving.count {
            newIndex[ObjectIdentifier(arriving[arrivalCursor].object)] = merged.count
            merged.append(arriving[arrivalCursor])
            arrivalCursor += 1
        }

        let (newNames, newStarts) = Self.sectionsAllowingRepeats(of: merged)
        entries = merged
        sectionNames = newNames
        sectionStarts = newStarts
        for object in removed { placedKeys[ObjectIdentifier(object)] = nil }
        for entry in arriving { placedKeys[ObjectIdentifier(entry.object)] = entry.keys }

        // Replaced objects keep their place (an update) when their order among survivors is unchanged
        // and they stay in their section; otherwise they move.
        let inPlace = needsTrail
            ? Self.replacedKeepingOrder(replaced, oldIndex: oldIndex, newIndex: newIndex, trail: survivorTrail)
            : []

        var changes: [ObjectChange] = []
        for object in removed {
            changes.append(ObjectChange(object: object, type: .delete, oldIndex: oldIndex[ObjectIdentifier(object)]))
        }
        for object in added {
            changes.append(ObjectChange(object: object, type: .insert, newIndex: newIndex[ObjectIdentifier(object)]))
        }
        for object in replaced {
            let id = ObjectIdentifier(object)
            let sameSection = oldIndex[id].map { oldEntries[$0].sectionName }
                == newIndex[id].map { merged[$0].sectionName }
            changes.append(ObjectChange(object: object, type: sameSection && inPlace.contains(id) ? .update : .move,
                oldIndex: oldIndex[id], newIndex: newIndex[id]))
        }
        for object in updatedInPlace {
            let id = ObjectIdentifier(object)
            changes.append(ObjectChange(object: object, type: .update, oldIndex: oldIndex[id], newIndex: newIndex[id]))
        }

        report(changes, oldNames: oldNames, oldStarts: oldStarts, oldEntries: oldEntries, to: delegate)
    }

    /// Calls the delegate: will-change, section deletes and inserts, object deletes, inserts, moves,
    /// updates, did-change.
    private func report(
        _ changes: [ObjectChange], oldNames: [String], oldStarts: [Int], oldEntries: [ResultsEntry],
        to delegate: any FetchedResultsControllerDelegate
    ) {
        let newNameSet = Set(sectionNames)
        let oldNameSet = Set(oldNames)
        delegate.controllerWillChangeContent(self)
        for (index, name) in oldNames.enumerated() where !newNameSet.contains(name) {
            let end = index + 1 < oldStarts.count ? oldStarts[index + 1] : oldEntries.count
            let info = FetchedResultsSectionInfo(name: name, indexTitle: resolvedIndexTitle(forSectionName: name),
                slice: oldEntries[oldStarts[index]..<end])
            delegate.controller(self, didChange: info, atSectionIndex: index, for: .delete)
        }
        for (index, name) in sectionNames.enumerated() where !oldNameSet.contains(name) {
            delegate.controller(self, didChange: sectionInfo(at: index), atSectionIndex: index, for: .insert)
        }
        for type in [FetchedResultsChangeType.delete, .insert, .move, .update] {
            let ofType = changes.filter { $0.type == type }.sorted {
                ($0.oldIndex ?? $0.newIndex ?? 0) < ($1.oldIndex ?? $1.newIndex ?? 0)
            }
            for change in ofType {
                let old = change.oldIndex.map { indexPath(forGlobalIndex: $0, starts: oldStarts) }
                let new = change.newIndex.map { indexPath(forGlobalIndex: $0, starts: sectionStarts) }
                delegate.controller(self, didChange: change.object, at: type == .insert ? nil : old, for: type,
                    newIndexPath: type == .delete ? nil : new)
            }
        }
        delegate.controllerDidChangeContent(self)
    }

    /// Section names and starts of sorted entries; a name that comes back later starts a new section
    /// (an inconsistent sort order is reported by ``performFetch()``, not here).
    static func sectionsAllowingRepeats(of entries: [ResultsEntry]) -> ([String], [Int]) {
        var names: [String] = []
        var starts: [Int] = []
        for (offset, entry) in entries.enumerated() where names.last != entry.sectionName || starts.isEmpty {
            names.append(entry.sectionName)
            starts.append(offset)
        }
        return (names, starts)
    }

    /// Which replaced objects kept their order relative to the survivors that did not move.
    ///
    /// Survivors keep their relative order, so a replaced object stays "in place" when its old index lies
    /// between those of the survivors around its new position; among several replaced objects in one such
    /// gap, the longest run in old order stays and the others move (the fewest moves).
    private static func replacedKeepingOrder(
        _ replaced: [ManagedObject], oldIndex: [ObjectIdentifier: Int], newIndex: [ObjectIdentifier: Int],
        trail: [(newIndex: Int, oldIndex: Int)]
    ) -> Set<ObjectIdentifier> {
        // Each replaced object, by new index, with the survivors just before and after it.
        let byNew = replaced.compactMap { object -> (id: ObjectIdentifier, new: Int, old: Int)? in
            let id = ObjectIdentifier(object)
            guard let new = newIndex[id], let old = oldIndex[id] else { return nil }
            return (id, new, old)
        }.sorted { $0.new < $1.new }
        var result: Set<ObjectIdentifier> = []
        var trailCursor = 0
        var gap: [(id: ObjectIdentifier, old: Int)] = []
        var lower = -1
        func closeGap(upper: Int) {
            let fitting = gap.filter { $0.old > lower && $0.old < upper }
            for id in longestIncreasingRun(fitting) { result.insert(id) }
            gap.removeAll()
        }
        for item in byNew {
            while trailCursor < trail.count, trail[trailCursor].newIndex < item.new {
                if !gap.isEmpty { closeGap(upper: trail[trailCursor].oldIndex) }
                lower = trail[trailCursor].oldIndex
                trailCursor += 1
            }
            gap.append((item.id, item.old))
        }
        if !gap.isEmpty {
            closeGap(upper: trailCursor < trail.count ? trail[trailCursor].oldIndex : Int.max)
        }
        return result
    }

    /// The items forming a longest strictly increasing subsequence of `old` (patience sorting).
    private static func longestIncreasingRun(_ items: [(id: ObjectIdentifier, old: Int)]) -> [ObjectIdentifier] {
        guard items.count > 1 else { return items.map(\.id) }
        var tails: [Int] = []  // indexes into items
        var previous = [Int](repeating: -1, count: items.count)
        for (index, item) in items.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if items[tails[mid]].old < item.old { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [ObjectIdentifier] = []
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            run.append(items[cursor].id)
            cursor = previous[cursor]
        }
        return run
    }
}
