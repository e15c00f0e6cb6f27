extension ManagedObjectContext {
    /// Forgets the registered objects among `ids` that have no unsaved changes and that nothing outside
    /// the context holds — what Core Data's weakly held registrations do by themselves. A batched
    /// fetched-results controller calls it for batches scrolled out of use, so walking a million rows
    /// keeps only a few batches of objects in memory. A forgotten object comes back as a fresh fault when
    /// asked for again.
    func releaseUnreferencedObjects(_ ids: [ManagedObjectID]) {
        for id in ids {
            let releasable = registry[id].map { !$0.insertedFlag && !$0.deletedFlag && !$0.hasChanges } ?? false
            guard releasable else { continue }
            // The registry's entry is the only reference: no object, relationship, undo step or caller
            // holds the object, so nobody can observe that it is gone.
            if isKnownUniquelyReferenced(&registry[id]!) { registry[id] = nil }
        }
    }
}
