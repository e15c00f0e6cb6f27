/// The coordinator's cache of saved rows (Core Data's row cache): the last known ``RowSnapshot`` of each
/// object, so that firing a fault or refreshing an object another context just saved costs no store read.
///
/// Bounded by ``capacity`` with an O(1) approximation of least-recently-used eviction: entries live in two
/// generations; new and recently read entries go to the young one, and when it reaches half the capacity
/// the old generation is dropped and the young one takes its place. A read that hits the old generation
/// moves the entry back to the young one. So the cache never holds more than ``capacity`` rows, and the
/// rows used within the last half-capacity insertions are always kept.
///
/// Not thread-safe by itself: the coordinator keeps it behind a mutex.
struct RowCache {
    /// Default bound on the number of cached rows: enough for several saves' worth of merges and a few
    /// screens of faults, while a row of a dozen values costs about 1 KB (so ~10 MB at most) — a
    /// bound of 100,000 held ~100 MB while scrolling a large store.
    static let defaultCapacity = 10_000

    /// The most rows kept; 0 turns caching off. Lowering it below the current count empties the cache.
    var capacity: Int = RowCache.defaultCapacity {
        didSet {
            if count > capacity { removeAll() }
        }
    }
    private var young: [ManagedObjectID: RowSnapshot] = [:]
    private var old: [ManagedObjectID: RowSnapshot] = [:]
    /// Advances whenever rows leave the cache because they were deleted (or their store removed). A store
    /// read that started before a change of epoch may have returned rows that no longer exist, so it must
    /// not be cached (``insert(_:ifEpoch:)``).
    private(set) var epoch: UInt64 = 0

    /// How many rows are cached.
    var count: Int { young.count + old.count }

    /// The cached row of `id`, marking it as recently used.
    mutating func snapshot(for id: ManagedObjectID) -> RowSnapshot? {
        if let row = young[id] { return row }
        guard let row = old.removeValue(forKey: id) else { return nil }
        add(row, for: id)
        return row
    }

    /// Caches `row` unless a newer version of it is already cached (an equal version replaces it: the
    /// values are the same, and the newer snapshot may know more to-one destinations).
    mutating func insert(_ row: RowSnapshot) {
        let id = row.objectID
        // One lookup per generation (an entry is in at most one of them), none in an empty old generation.
        if let index = young.index(forKey: id) {
            if young.values[index].version > row.version { return }
            young.values[index] = row
            rotateIfFull()
            return
        }
        if !old.isEmpty, let index = old.index(forKey: id) {
            if old.values[index].version > row.version { return }
            old.remove(at: index)
        }
        add(row, for: id)
    }

    /// Caches rows read from a store, unless rows were deleted since the read began (`epoch` then differs).
    mutating func insert(_ rows: [RowSnapshot], ifEpoch expected: UInt64) {
        guard epoch == expected else { return }
        for row in rows { insert(row) }
    }

    /// Replaces the cached rows that `rows`, just read from a store, show to be older; adds none. What a fetch
    /// read is the newest known state of the objects it found, so a fault fired afterwards (say after
    /// `refresh(_:mergeChanges: false)`) must not go back to an older cached row, as Core Data's fetches update
    /// its row cache too. Rows that are not cached stay out, so a large fetch evicts nothing that faults use.
    mutating func replaceOlder(with rows: [RowSnapshot], ifEpoch expected: UInt64) {
        guard epoch == expected, count > 0 else { return }
        for row in rows {
            if let index = young.index(forKey: row.objectID) {
                if young.values[index].version < row.version { young.values[index] = row }
            } else if !old.isEmpty, let index = old.index(forKey: row.objectID), old.values[index].version < row.version {
                old.values[index] = row
            }
        }
    }

    /// Records what a committed transaction wrote: rows it carries replace older versions; rows of objects it
    /// changed without carrying their values (batch requests, other writers) and deleted rows leave.
    mutating func apply(_ event: StoreCommitEvent) {
        for row in event.rows { insert(row) }
        if event.needsRowsFromStore {
            let carried = Set(event.rows.lazy.map(\.objectID))
            remove(Array(event.insertedObjectIDs.filter { !carried.contains($0) })
                + event.updatedObjectIDs.keys.filter { !carried.contains($0) })
        }
        remove(event.changes.deleted)
    }

    /// Forgets the rows of deleted objects.
    mutating func remove(_ ids: some Collection<ManagedObjectID>) {
        guard !ids.isEmpty else { return }
        epoch &+= 1
        for id in ids {
            young[id] = nil
            old[id] = nil
        }
    }

    /// Forgets the rows of one store (which was removed from the coordinator).
    mutating func removeAll(inStore identifier: String) {
        epoch &+= 1
        young = young.filter { $0.key.storeIdentifier != identifier }
        old = old.filter { $0.key.storeIdentifier != identifier }
    }

    /// Forgets every row.
    mutating func removeAll() {
        epoch &+= 1
        young = [:]
        old = [:]
    }

    private mutating func add(_ row: RowSnapshot, for id: ManagedObjectID) {
        guard capacity > 0 else { return }
        young[id] = row
        rotateIfFull()
    }

    /// Makes the young generation the old one once it holds half the capacity.
    private mutating func rotateIfFull() {
        let half = max(capacity / 2, 1)
        if young.count >= half {
            old = young
            // It will fill up to `half` again: room for that (up to a bound, for very large capacities) at once,
            // instead of growing and rehashing in steps.
            young = Dictionary(minimumCapacity: min(half, 16_384))
        }
    }
}
