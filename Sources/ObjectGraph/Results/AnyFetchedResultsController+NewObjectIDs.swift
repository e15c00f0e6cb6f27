/// How results placed under temporary IDs follow their objects' new IDs (a save, `obtainPermanentIDs(for:)`, a
/// parent's save reaching a child).
///
/// An ID is the last sort key (temporary IDs after permanent ones), so a new ID can change an object's place
/// among objects whose sort keys tie with its own. Results whose IDs changed are taken in runs of adjacent
/// results: a run whose new IDs keep it in order, between the same neighbours, takes them in place (nothing
/// moves); any other run is re-placed as a whole with the change batch, and the moves are reported.
extension AnyFetchedResultsController {
    /// One result whose object's ID changed since it was placed.
    private struct NewID {
        let key: ObjectIdentifier
        let object: ManagedObject
        let placed: PlacedID
        let order: [UInt8]
        let position: Int
        let newID: ManagedObjectID
        let newOrder: [UInt8]
    }

    /// Gives results whose objects took new IDs those IDs where that moves nothing (see the type's
    /// comment); the others wait for the change event that announces the new IDs. Cheap when no ID changed.
    func adoptNewObjectIDs() {
        let generation = managedObjectContext.objectIDGeneration
        guard generation != seenObjectIDGeneration else { return }
        seenObjectIDGeneration = generation
        if !temporaryPlacements.isEmpty { _ = objectsWithNewPermanentIDs(reporting: true) }
    }

    /// Results whose objects took new IDs since they were placed: runs of adjacent ones that stay in order
    /// with their new IDs take them in place; the objects of the other runs are returned, to be re-placed
    /// (and reported) by the caller.
    ///
    /// When `reporting` and the delegate knows results by ID (a snapshot or difference delegate), every such
    /// result is returned: its new ID is a change that delegate must hear of.
    func objectsWithNewPermanentIDs(reporting: Bool) -> [ManagedObject] {
        var changed: [NewID] = []
        for (key, placement) in temporaryPlacements.byObject where placement.object.objectID != placement.id {
            let newID = placement.object.objectID
            guard let placed = namespaces.existingPlacedID(for: placement.id), let order = placedOrders[placed],
                let position = index.position(of: placed, order: order)
            else { continue }
            changed.append(NewID(key: key, object: placement.object, placed: placed, order: order,
                position: position, newID: newID,
                newOrder: ordering.replacingID(in: order, old: placement.id, new: newID)))
        }
        guard !changed.isEmpty else { return [] }
        let knowsResultsByID = delegate is any FetchedResultsControllerSnapshotDelegate
            || (sectionNaming == nil && delegate is any FetchedResultsControllerDifferenceDelegate)
        if reporting, knowsResultsByID { return changed.map(\.object) }

        changed.sort { $0.position < $1.position }
        var replace: [ManagedObject] = []
        var start = 0
        while start < changed.count {
            var end = start + 1
            while end < changed.count, changed[end].position == changed[end - 1].position + 1 { end += 1 }
            let run = changed[start..<end]
            if keepsOrder(run) {
                for member in run { adopt(member) }
            } else {
                replace.append(contentsOf: run.map(\.object))
            }
            start = end
        }
        return replace
    }

    /// Whether a run of adjacent results, given their new order bytes, stays in order among themselves and
    /// between the results around it.
    private func keepsOrder(_ run: ArraySlice<NewID>) -> Bool {
        guard let first = run.first, let last = run.last else { return true }
        if first.position > 0, RowOrdering.compare(index[first.position - 1].order, first.newOrder) >= 0 {
            return false
        }
        if last.position + 1 < index.count, RowOrdering.compare(last.newOrder, index[last.position + 1].order) >= 0 {
            return false
        }
        return zip(run, run.dropFirst()).allSatisfy { RowOrdering.compare($0.newOrder, $1.newOrder) < 0 }
    }

    /// Gives one result its object's new ID in place.
    private func adopt(_ member: NewID) {
        let newPlaced = namespaces.placedID(for: member.newID)
        guard index.replaceID(member.placed, order: member.order, with: newPlaced, newOrder: member.newOrder) else {
            return
        }
        placedOrders[member.placed] = nil
        placedOrders[newPlaced] = member.newOrder
        temporaryPlacements[member.key] = member.newID.isTemporaryID ? (member.object, member.newID) : nil
    }
}
