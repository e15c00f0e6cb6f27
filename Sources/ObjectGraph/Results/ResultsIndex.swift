/// One fetched object as the controller keeps it: its compact ID plus the place (order bytes) and section
/// it was placed by, so the controller can find it again after its values change — without holding the
/// object itself, nor its sort keys (the order bytes encode them).
struct ResultsEntry: Sendable {
    /// The object's ID, in the controller's compact form (see ``IDNamespaces``).
    private(set) var placed: PlacedID
    /// The section's name, interned in the controller's ``SectionNames``.
    let section: Int32
    /// The entry's place as bytes (``RowOrdering/orderBytes(_:_:)``): what the index compares.
    private(set) var order: [UInt8]
    /// The first 8 bytes of ``order``, kept inline so that most comparisons in a search touch no other
    /// memory.
    private(set) var orderPrefix: UInt64

    /// An entry for the object `id` (whose compact form is `placed`) with sort keys `keys`.
    init(id: ManagedObjectID, placed: PlacedID, keys: [AttributeValue], section: Int32, ordering: RowOrdering) {
        self.init(placed: placed, order: ordering.orderBytes(keys, id), section: section)
    }

    /// An entry whose order bytes are known (read from a section cache, or re-keyed).
    init(placed: PlacedID, order: [UInt8], section: Int32) {
        self.placed = placed
        self.section = section
        self.order = order
        self.orderPrefix = Self.prefix(of: order)
    }

    /// The first 8 bytes of `order`, big-endian, padded with zeros.
    static func prefix(of order: [UInt8]) -> UInt64 {
        var value: UInt64 = 0
        for offset in 0..<8 { value = value << 8 | UInt64(offset < order.count ? order[offset] : 0) }
        return value
    }

    /// Whether this entry sorts before the place `order` (whose prefix is `prefix`).
    func precedes(_ order: [UInt8], prefix: UInt64) -> Bool {
        if orderPrefix != prefix { return orderPrefix < prefix }
        return RowOrdering.compare(self.order, order) < 0
    }
}

/// The fetched results in order: a sorted sequence of entries split into chunks of one to two hundred, so
/// that finding, inserting and removing an entry costs O(log n) comparisons plus a short in-chunk move,
/// and reading the entry at a position costs O(log n).
///
/// Chunk start offsets are recomputed lazily (one pass over the chunks, n / 128 additions) the first time
/// a position is asked for after a change, so a batch of k changes pays for it once.
struct ResultsIndex: Sendable {
    private(set) var chunks: [[ResultsEntry]] = []
    /// Each chunk's last entry's ``ResultsEntry/orderPrefix``, side by side: finding the chunk for an order
    /// searches this one small array (64 KB for a million results) instead of touching one chunk buffer per
    /// step — at a million results, each such touch is a cache miss.
    private var lastPrefixes: [UInt64] = []
    private var chunkStarts: [Int] = []
    private var startsAreCurrent = true
    private(set) var count = 0

    /// Chunks split in two when they grow past this size. Inserting or removing moves half a chunk of
    /// entries on average, so smaller chunks make each change cheaper; the chunk offsets grow as n / 128.
    static let maximumChunkSize = 256
    /// The size of the chunks of a freshly built index.
    static let initialChunkSize = 128

    init() {}

    /// An index of `sorted`, which must already be in order.
    init(sorted: [ResultsEntry]) {
        var start = 0
        while start < sorted.count {
            let end = min(start + Self.initialChunkSize, sorted.count)
            chunks.append(Array(sorted[start..<end]))
            lastPrefixes.append(sorted[end - 1].orderPrefix)
            start = end
        }
        count = sorted.count
        startsAreCurrent = false
    }

    var isEmpty: Bool { count == 0 }

    /// The entry at `position` (0 ..< count).
    subscript(position: Int) -> ResultsEntry {
        mutating get {
            let (chunk, offset) = locate(position)
            return chunks[chunk][offset]
        }
    }

    /// The entry at `position` without updating the chunk offsets; for use when they are current.
    func entry(at position: Int) -> ResultsEntry {
        precondition(startsAreCurrent, "Read an unprepared results index (call prepareForReading() first).")
        let (chunk, offset) = locateCurrent(position)
        return chunks[chunk][offset]
    }

    /// Every entry in order (a linear copy; for snapshots, caches and tests).
    var allEntries: [ResultsEntry] { Array(chunks.joined()) }

    /// The entries at `range`, in order.
    mutating func entries(in range: Range<Int>) -> [ResultsEntry] {
        guard !range.isEmpty else { return [] }
        var result: [ResultsEntry] = []
        result.reserveCapacity(range.count)
        var (chunk, offset) = locate(range.lowerBound)
        while result.count < range.count, chunk < chunks.count {
            let take = min(chunks[chunk].count - offset, range.count - result.count)
            result.append(contentsOf: chunks[chunk][offset..<(offset + take)])
            chunk += 1
            offset = 0
        }
        return result
    }

    // MARK: - Searching

    /// The first chunk whose last entry does not precede `order`; `chunks.count` when none.
    private func chunkIndex(for order: [UInt8]) -> Int {
        let prefix = ResultsEntry.prefix(of: order)
        return lastPrefixes.withUnsafeBufferPointer { lastPrefixes in
            var low = 0
            var high = lastPrefixes.count
            while low < high {
                let mid = (low + high) / 2
                let precedesTarget: Bool
                if lastPrefixes[mid] != prefix {
                    precedesTarget = lastPrefixes[mid] < prefix
                } else {
                    precedesTarget = chunks[mid].last.map { $0.precedes(order, prefix: prefix) } ?? false
                }
                if precedesTarget { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    /// The first offset in `chunk` whose entry does not precede `order`.
    private func offset(in chunk: Int, for order: [UInt8]) -> Int {
        let prefix = ResultsEntry.prefix(of: order)
        return chunks[chunk].withUnsafeBufferPointer { entries in
            var low = 0
            var high = entries.count
            while low < high {
                let mid = (low + high) / 2
                if entries[mid].precedes(order, prefix: prefix) { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    /// Where the entry with `id`, placed at `order`, is: (chunk, offset), or nil when it is not there.
    private func find(_ order: [UInt8], _ id: PlacedID) -> (Int, Int)? {
        let chunk = chunkIndex(for: order)
        if chunk < chunks.count {
            let offset = offset(in: chunk, for: order)
            if offset < chunks[chunk].count, chunks[chunk][offset].placed == id { return (chunk, offset) }
        }
        // Keys that no longer order consistently (a comparison that changed under us): look everywhere.
        for (chunkIndex, entries) in chunks.enumerated() {
            if let offset = entries.firstIndex(where: { $0.placed == id }) { return (chunkIndex, offset) }
        }
        return nil
    }

    /// The position of the entry with `id` that was placed at `order`, or nil.
    mutating func position(of id: PlacedID, order: [UInt8]) -> Int? {
        guard let (chunk, offset) = find(order, id) else { return nil }
        refreshStarts()
        return chunkStarts[chunk] + offset
    }

    /// The entry with `id` placed at `order` and its position, or nil.
    mutating func locate(_ id: PlacedID, order: [UInt8]) -> (entry: ResultsEntry, position: Int)? {
        guard let (chunk, offset) = find(order, id) else { return nil }
        refreshStarts()
        return (chunks[chunk][offset], chunkStarts[chunk] + offset)
    }

    // MARK: - Changing

    /// Inserts `entry` at its place in the order.
    mutating func insert(_ entry: ResultsEntry) {
        startsAreCurrent = false
        count += 1
        guard !chunks.isEmpty else {
            chunks = [[entry]]
            lastPrefixes = [entry.orderPrefix]
            return
        }
        let chunk = min(chunkIndex(for: entry.order), chunks.count - 1)
        let offset = offset(in: chunk, for: entry.order)
        chunks[chunk].insert(entry, at: offset)
        if chunks[chunk].count > Self.maximumChunkSize {
            let upper = Array(chunks[chunk][(Self.maximumChunkSize / 2)...])
            chunks[chunk].removeSubrange((Self.maximumChunkSize / 2)...)
            chunks.insert(upper, at: chunk + 1)
            lastPrefixes.insert(0, at: chunk + 1)
            refreshLastPrefix(of: chunk + 1)
        }
        refreshLastPrefix(of: chunk)
    }

    private mutating func refreshLastPrefix(of chunk: Int) {
        if let last = chunks[chunk].last { lastPrefixes[chunk] = last.orderPrefix }
    }

    /// Removes the entries at `positions` (distinct, current positions), without comparing keys.
    mutating func remove(atPositions positions: [Int]) {
        refreshStarts()
        // From the back, so the chunk offsets in front of each removal stay right.
        for position in positions.sorted(by: >) where position >= 0 && position < count {
            let chunk = chunkStarts.indexOfLastStart(atOrBefore: position)
            chunks[chunk].remove(at: position - chunkStarts[chunk])
            if chunks[chunk].isEmpty {
                chunks.remove(at: chunk)
                lastPrefixes.remove(at: chunk)
                chunkStarts.remove(at: chunk)
            } else {
                refreshLastPrefix(of: chunk)
            }
            count -= 1
        }
        startsAreCurrent = false
    }

    /// Gives the entry with `oldID` placed at `order` the ID `newID` and the order bytes `newOrder` in
    /// place (a temporary ID that became permanent); the caller checks that the order is unchanged.
    mutating func replaceID(_ oldID: PlacedID, order: [UInt8], with newID: PlacedID, newOrder: [UInt8]) -> Bool {
        guard let (chunk, offset) = find(order, oldID) else { return false }
        chunks[chunk][offset] = ResultsEntry(placed: newID, order: newOrder, section: chunks[chunk][offset].section)
        refreshLastPrefix(of: chunk)
        return true
    }

    // MARK: - Positions

    private mutating func refreshStarts() {
        guard !startsAreCurrent else { return }
        chunkStarts.removeAll(keepingCapacity: true)
        chunkStarts.reserveCapacity(chunks.count)
        var start = 0
        for chunk in chunks {
            chunkStarts.append(start)
            start += chunk.count
        }
        startsAreCurrent = true
    }

    private mutating func locate(_ position: Int) -> (Int, Int) {
        refreshStarts()
        return locateCurrent(position)
    }

    private func locateCurrent(_ position: Int) -> (Int, Int) {
        precondition(position >= 0 && position < count, "Position \(position) is outside the \(count) results.")
        let chunk = chunkStarts.indexOfLastStart(atOrBefore: position)
        return (chunk, position - chunkStarts[chunk])
    }

    /// Makes positions readable without mutation (``entry(at:)``).
    mutating func prepareForReading() { refreshStarts() }
}
