/// How results placed under temporary IDs follow their objects' new IDs (a save, `obtainPermanentIDs(for:)`, a
/// parent's save reaching a child): runs of adjacent results that stay in order under their new IDs take them
/// in place (``ResultsCore/adoptInPlace(_:)``); the others are re-placed with the change batch, which reports
/// their moves.
extension AnyFetchedResultsController {
    /// Gives results whose objects took new IDs those IDs where that moves nothing; the others wait for the
    /// change event that announces the new IDs. Cheap when no ID changed.
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
        var objects: [(key: ObjectIdentifier, object: ManagedObject, newID: ManagedObjectID)] = []
        var changed: [ResultsCore.NewID] = []
        for (key, placement) in temporaryPlacements.byObject where placement.object.objectID != placement.id {
            let newID = placement.object.objectID
            guard let placed = namespaces.existingResultID(for: placement.id), let order = orderBytesByID[placed],
                let position = index.position(of: placed, order: order)
            else { continue }
            objects.append((key, placement.object, newID))
            changed.append(ResultsCore.NewID(position: position, placed: placed, order: order,
                newPlaced: namespaces.resultID(for: newID),
                newOrder: ordering.replacingID(in: order, old: placement.id, new: newID)))
        }
        guard !changed.isEmpty else { return [] }
        if reporting, let delegate, ResultsDelegateKind(delegate, sectioned: sectionNaming != nil).knowsResultsByID {
            return objects.map(\.object)
        }

        let left = core.adoptInPlace(changed)
        var adopted = [Bool](repeating: true, count: objects.count)
        for offset in left { adopted[offset] = false }
        for (offset, entry) in objects.enumerated() where adopted[offset] {
            temporaryPlacements[entry.key] = entry.newID.isTemporaryID ? (entry.object, entry.newID) : nil
        }
        return left.map { objects[$0].object }
    }
}
