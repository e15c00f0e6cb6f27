/// The permanent IDs that temporary ones became, kept while somebody may still name an object by its
/// temporary ID: a child context that has not yet taken up the permanent IDs (its next push still uses the
/// old ones), or code holding an object this context still has registered.
///
/// Mappings come in generations — one per save, merge or `obtainPermanentIDs(for:)` that made IDs
/// permanent. Once every child has taken up a generation, its mappings of objects this context no longer
/// holds are forgotten, so a long-lived parent (the view context of a nested stack, which every import
/// passes through) does not keep one for every object ever imported.
struct TemporaryIDMemory {
    private struct Entry {
        let permanent: ManagedObjectID
        let generation: Int
    }
    private var entries: [ManagedObjectID: Entry] = [:]
    /// The size at which the next tidy-up runs: twice what the last one kept, so each mapping is looked at
    /// a bounded number of times on average.
    private var tidiesAt = TemporaryIDMemory.smallestTidySize
    /// Below this many mappings nothing is tidied.
    static let smallestTidySize = 1_024

    /// How many mappings are remembered.
    var count: Int { entries.count }

    /// The permanent ID `temporary` became, if it is remembered.
    subscript(temporary: ManagedObjectID) -> ManagedObjectID? { entries[temporary]?.permanent }

    /// Whether enough mappings have come in since the last tidy-up to look again.
    var isDueForTidying: Bool { entries.count >= tidiesAt }

    /// Remembers `permanent` for `temporary`, made in mapping generation `generation`.
    mutating func remember(_ temporary: ManagedObjectID, as permanent: ManagedObjectID, generation: Int) {
        entries[temporary] = Entry(permanent: permanent, generation: generation)
    }

    /// Forgets the mappings of generations up to `adoptedGeneration` (which every child has taken up)
    /// whose objects are not registered any more.
    mutating func tidy(adoptedGeneration: Int, isRegistered: (ManagedObjectID) -> Bool) {
        // Into a table of the same capacity: the mappings will come back at the same rate, and growing
        // the table again each time would rehash them over and over.
        var kept = [ManagedObjectID: Entry](minimumCapacity: entries.capacity)
        for (temporary, entry) in entries where entry.generation > adoptedGeneration || isRegistered(entry.permanent) {
            kept[temporary] = entry
        }
        entries = kept
        tidiesAt = max(Self.smallestTidySize, 2 * entries.count)
    }
}
