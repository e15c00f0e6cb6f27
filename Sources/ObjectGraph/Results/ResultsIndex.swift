/// The fetched results in order: a sorted sequence of entries split into chunks of about thirty to sixty, so
/// that finding, inserting and removing an entry costs O(log n) comparisons plus a short in-chunk move,
/// and reading the entry at a position costs O(log n).
///
/// Searching touches little memory, because at a million results every touch is a cache miss: the chunk
/// is found in one small side array of the chunks' last prefixes, and inside a chunk the search compares
/// 8-byte words in a side array (``Chunk/keys``) — each entry's order bytes after the bytes every entry of
/// the chunk shares (sorted neighbours share a lot: the same section and surname). Only a tie between such
/// words reads the entry's own order bytes.
///
/// Chunk start offsets are recomputed lazily (one pass over the chunks, n / 32 additions) the first time
/// a position is asked for after a change, so a batch of k changes pays for it once.
struct ResultsIndex: Sendable {
    /// A run of consecutive entries with its search words.
    struct Chunk: Sendable {
        var entries: [ResultsEntry]
        /// How many leading order bytes all the entries share (those of the first and the last, since they
        /// are sorted). May be less than they share now (it is recomputed when the chunk splits), never more.
        var shared: Int
        /// For each entry, ``ResultsEntry/prefix(of:from:)`` of its order bytes from ``shared``.
        var keys: [UInt64]
        /// The shared bytes as two words (zero after them), when there are at most 16: a target is compared
        /// with them without reading any entry's order bytes.
        var sharedWords: (UInt64, UInt64) = (0, 0)

        /// A chunk of `entries`, with room for ``ResultsIndex/chunkHeadroom`` more: the first insertions into a
        /// chunk then move half of it instead of copying all of it into a larger buffer (at a million results,
        /// a batch's arrivals mostly land in chunks nothing was inserted into yet).
        init(_ entries: some Collection<ResultsEntry>) {
            self.entries = []
            self.entries.reserveCapacity(entries.count + ResultsIndex.chunkHeadroom)
            self.entries.append(contentsOf: entries)
            shared = 0
            keys = []
            keys.reserveCapacity(entries.count + ResultsIndex.chunkHeadroom)
            rekey()
        }

        /// Masks that keep the first `count` bytes (at most 16) of two big-endian words.
        static func masks(keeping count: Int) -> (UInt64, UInt64) {
            func mask(_ bytes: Int) -> UInt64 { bytes <= 0 ? 0 : bytes >= 8 ? ~0 : ~0 << UInt64(64 - 8 * bytes) }
            return (mask(count), mask(count - 8))
        }

        /// Recomputes ``shared`` and ``keys`` from the entries (reads every entry's order bytes).
        mutating func rekey() {
            if let first = entries.first, let last = entries.last {
                shared = ResultsEntry.sharedPrefixCount(first.order, last.order)
            } else {
                shared = 0
            }
            let from = shared
            keys.removeAll(keepingCapacity: true)
            for entry in entries { keys.append(ResultsEntry.prefix(of: entry.order, from: from)) }
            let words = entries.first.map { ResultsIndex.leadingWords(of: $0.order) } ?? (0, 0)
            let masks = Self.masks(keeping: shared)
            sharedWords = (words.0 & masks.0, words.1 & masks.1)
        }

        /// The first offset whose entry does not precede `order`, whose ``ResultsIndex/leadingWords(of:)``
        /// are `words`.
        func offset(for order: [UInt8], words: (UInt64, UInt64)) -> Int {
            guard !entries.isEmpty else { return 0 }
            // Outside the bytes every entry shares, the target sorts before or after all of them.
            let sharedOrder: Int
            if shared <= 16 {
                let masks = Self.masks(keeping: shared)
                let target = (words.0 & masks.0, words.1 & masks.1)
                // (A target shorter than the shared bytes, equal as far as it goes, is a prefix: it sorts first.)
                sharedOrder = target != sharedWords ? (target < sharedWords ? -1 : 1) : (order.count < shared ? -1 : 0)
            } else {
                sharedOrder = order.withUnsafeBufferPointer { target in
                    entries[0].order.withUnsafeBufferPointer { bytes in
                        compareBytes(UnsafeBufferPointer(rebasing: target.prefix(shared)),
                            UnsafeBufferPointer(rebasing: bytes.prefix(shared)))
                    }
                }
            }
            if sharedOrder < 0 { return 0 }
            if sharedOrder > 0 { return entries.count }
            let key = ResultsEntry.prefix(of: order, from: shared)
            return keys.withUnsafeBufferPointer { keys in
                entries.withUnsafeBufferPointer { entries in
                    var low = 0
                    var high = keys.count
                    while low < high {
                        let mid = (low + high) / 2
                        let precedes = keys[mid] != key ? keys[mid] < key
                            : RowOrdering.compare(entries[mid].order, order) < 0
                        if precedes { low = mid + 1 } else { high = mid }
                    }
                    return low
                }
            }
        }

        /// Inserts `entry` at `offset` (its place), widening nothing unless it becomes the first or last
        /// entry with fewer shared bytes.
        mutating func insert(_ entry: ResultsEntry, at offset: Int) {
            entries.insert(entry, at: offset)
            if entries.count > 1, offset == 0 || offset == entries.count - 1 {
                let neighbour = offset == 0 ? entries[entries.count - 1] : entries[0]
                let nowShared = ResultsEntry.sharedPrefixCount(entry.order, neighbour.order)
                if nowShared < shared {
                    rekey()
                    return
                }
            }
            keys.insert(ResultsEntry.prefix(of: entry.order, from: shared), at: offset)
        }

        mutating func remove(at offset: Int) {
            entries.remove(at: offset)
            keys.remove(at: offset)
        }

        /// Splits off and returns the entries from `offset` on; both halves get their shared bytes anew.
        mutating func split(at offset: Int) -> Chunk {
            let upper = Chunk(entries[offset...])
            entries.removeSubrange(offset...)
            rekey()
            return upper
        }
    }

    private(set) var chunks: [Chunk] = []
    /// Each chunk's last entry's first 16 order bytes as two words, side by side: finding the chunk for an
    /// order searches this one small array (half a megabyte for a million results) instead of touching one chunk per
    /// step; only a tie on both words reads the last entry's bytes.
    private var lastPrefixes: [(UInt64, UInt64)] = []
    /// Each chunk's entry count, side by side, so that summing them for ``chunkStarts`` reads one array.
    private var chunkCounts: [Int] = []
    private var chunkStarts: [Int] = []
    private var startsAreCurrent = true
    private(set) var count = 0

    /// Chunks split in two when they grow past this size. Inserting or removing moves half a chunk of
    /// entries, and finding one searches a chunk: at a million results each is a run of cache misses, so
    /// chunks are small (measured with a simulated 2 MB cache, 300k results: from 128–256 entries to 32–64,
    /// a quarter fewer misses per change batch); the chunk offsets grow as n / 32, refreshed once a batch.
    static let maximumChunkSize = 64
    /// The size of the chunks of a freshly built index.
    static let initialChunkSize = 32
    /// How many entries a new chunk has room for beyond those it starts with (see ``Chunk/init(_:)``): a
    /// quarter more memory for the entries, against copying the chunk at its first insertion.
    static let chunkHeadroom = 8

    init() {}

    /// An index of `sorted`, which must already be in order.
    init(sorted: [ResultsEntry]) {
        var start = 0
        while start < sorted.count {
            let end = min(start + Self.initialChunkSize, sorted.count)
            chunks.append(Chunk(sorted[start..<end]))
            chunkCounts.append(end - start)
            lastPrefixes.append(Self.leadingWords(of: sorted[end - 1].order))
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
            return chunks[chunk].entries[offset]
        }
    }

    /// The entry at `position` without updating the chunk offsets; for use when they are current.
    func entry(at position: Int) -> ResultsEntry {
        precondition(startsAreCurrent, "Read an unprepared results index (call prepareForReading() first).")
        let (chunk, offset) = locateCurrent(position)
        return chunks[chunk].entries[offset]
    }

    /// Every entry in order (a linear copy; for snapshots, caches and tests).
    var allEntries: [ResultsEntry] { Array(chunks.map(\.entries).joined()) }

    /// The entries at `range`, in order.
    mutating func entries(in range: Range<Int>) -> [ResultsEntry] {
        guard !range.isEmpty else { return [] }
        var result: [ResultsEntry] = []
        result.reserveCapacity(range.count)
        var (chunk, offset) = locate(range.lowerBound)
        while result.count < range.count, chunk < chunks.count {
            let take = min(chunks[chunk].entries.count - offset, range.count - result.count)
            result.append(contentsOf: chunks[chunk].entries[offset..<(offset + take)])
            chunk += 1
            offset = 0
        }
        return result
    }

    // MARK: - Searching

    /// The first chunk whose last entry does not precede `order` (whose leading words are `prefix`);
    /// `chunks.count` when none.
    private func chunkIndex(for order: [UInt8], words prefix: (UInt64, UInt64)) -> Int {
        lastPrefixes.withUnsafeBufferPointer { lastPrefixes in
            var low = 0
            var high = lastPrefixes.count
            while low < high {
                let mid = (low + high) / 2
                let precedesTarget: Bool
                if lastPrefixes[mid] != prefix {
                    precedesTarget = lastPrefixes[mid] < prefix
                } else {
                    precedesTarget = chunks[mid].entries.last.map { RowOrdering.compare($0.order, order) < 0 } ?? false
                }
                if precedesTarget { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    /// Where the entry with `id`, placed at `order`, is: (chunk, offset), or nil when it is not there.
    private func find(_ order: [UInt8], _ id: ResultID) -> (Int, Int)? {
        let words = Self.leadingWords(of: order)
        let chunk = chunkIndex(for: order, words: words)
        if chunk < chunks.count {
            let offset = chunks[chunk].offset(for: order, words: words)
            if offset < chunks[chunk].entries.count, chunks[chunk].entries[offset].placed == id { return (chunk, offset) }
        }
        // Keys that no longer order consistently (a comparison that changed under us): look everywhere.
        for (chunkIndex, chunk) in chunks.enumerated() {
            if let offset = chunk.entries.firstIndex(where: { $0.placed == id }) { return (chunkIndex, offset) }
        }
        return nil
    }

    /// The position of the entry with `id` that was placed at `order`, or nil.
    mutating func position(of id: ResultID, order: [UInt8]) -> Int? {
        guard let (chunk, offset) = find(order, id) else { return nil }
        refreshStarts()
        return chunkStarts[chunk] + offset
    }

    /// The section of the entry with `id` placed at `order` and its position, or nil. (Not the entry itself:
    /// copying it would touch its order bytes, a cache miss per changed object in a large index.)
    mutating func locate(_ id: ResultID, order: [UInt8]) -> (section: Int32, position: Int)? {
        guard let (chunk, offset) = find(order, id) else { return nil }
        refreshStarts()
        return (chunks[chunk].entries[offset].section, chunkStarts[chunk] + offset)
    }

    // MARK: - Changing

    /// Inserts `entry` at its place in the order.
    mutating func insert(_ entry: ResultsEntry) {
        _ = insert(sorted: [entry])
    }

    /// Inserts `entries` — in ascending order, none already present — and returns their positions
    /// afterwards, in the same order.
    ///
    /// One search per entry: each entry's place among the entries already there is found first, its final
    /// position follows from that place plus the number of new entries before it, and the entries go in
    /// from the back (so that the places found for earlier ones stay right); chunks that grew too large
    /// are split at the end.
    mutating func insert(sorted entries: [ResultsEntry]) -> [Int] {
        guard !entries.isEmpty else { return [] }
        guard !chunks.isEmpty else {
            self = ResultsIndex(sorted: entries)
            return Array(entries.indices)
        }
        var places: [(chunk: Int, offset: Int)] = []
        places.reserveCapacity(entries.count)
        // Chunks whose last entry changes (something goes after it): their last prefixes are refreshed.
        var lastChanges: Set<Int> = []
        for entry in entries {
            let words = Self.leadingWords(of: entry.order)
            let chunk = min(chunkIndex(for: entry.order, words: words), chunks.count - 1)
            let offset = chunks[chunk].offset(for: entry.order, words: words)
            if offset == chunks[chunk].entries.count { lastChanges.insert(chunk) }
            places.append((chunk, offset))
        }
        refreshStarts()
        let positions = places.enumerated().map { number, place in chunkStarts[place.chunk] + place.offset + number }
        for (entry, place) in zip(entries, places).reversed() {
            chunks[place.chunk].insert(entry, at: place.offset)
            chunkCounts[place.chunk] += 1
        }
        count += entries.count
        startsAreCurrent = false
        // Refresh the touched chunks' last prefixes and split the large ones, from the back so that the chunk
        // numbers still to visit stay valid.
        var previous = -1
        for place in places.reversed() where place.chunk != previous {
            previous = place.chunk
            var chunk = place.chunk
            var lastChanged = lastChanges.contains(chunk)
            while chunks[chunk].entries.count > Self.maximumChunkSize {
                let upper = chunks[chunk].split(at: Self.maximumChunkSize / 2)
                chunks.insert(upper, at: chunk + 1)
                chunkCounts[chunk] = chunks[chunk].entries.count
                chunkCounts.insert(upper.entries.count, at: chunk + 1)
                lastPrefixes.insert(lastPrefixes[chunk], at: chunk + 1)
                refreshLastPrefix(of: chunk)
                chunk += 1
                lastChanged = true
            }
            if lastChanged { refreshLastPrefix(of: chunk) }
        }
        return positions
    }

    private mutating func refreshLastPrefix(of chunk: Int) {
        if let last = chunks[chunk].entries.last { lastPrefixes[chunk] = Self.leadingWords(of: last.order) }
    }

    /// The first 16 bytes of `order` as two big-endian words, zero-padded (see ``lastPrefixes``).
    static func leadingWords(of order: [UInt8]) -> (UInt64, UInt64) {
        (ResultsEntry.prefix(of: order), ResultsEntry.prefix(of: order, from: 8))
    }

    /// Removes the entries at `positions` (distinct, current positions), without comparing keys.
    mutating func remove(atPositions positions: [Int]) {
        refreshStarts()
        // From the back, so the chunk offsets in front of each removal stay right.
        for position in positions.sorted(by: >) where position >= 0 && position < count {
            let chunk = chunkStarts.indexOfLastStart(atOrBefore: position)
            let offset = position - chunkStarts[chunk]
            let wasLast = offset == chunks[chunk].entries.count - 1
            chunks[chunk].remove(at: offset)
            chunkCounts[chunk] -= 1
            if chunks[chunk].entries.isEmpty {
                chunks.remove(at: chunk)
                chunkCounts.remove(at: chunk)
                lastPrefixes.remove(at: chunk)
                chunkStarts.remove(at: chunk)
            } else if wasLast {
                refreshLastPrefix(of: chunk)
            }
            count -= 1
        }
        startsAreCurrent = false
    }

    /// Gives the entry with `oldID` placed at `order` the ID `newID` and the order bytes `newOrder` in
    /// place (a temporary ID that became permanent); the caller checks that the order is unchanged.
    mutating func replaceID(_ oldID: ResultID, order: [UInt8], with newID: ResultID, newOrder: [UInt8]) -> Bool {
        guard let (chunk, offset) = find(order, oldID) else { return false }
        chunks[chunk].entries[offset] = ResultsEntry(placed: newID, order: newOrder,
            section: chunks[chunk].entries[offset].section)
        // The ID is part of the order bytes, which the chunk's shared bytes may reach into.
        chunks[chunk].rekey()
        refreshLastPrefix(of: chunk)
        return true
    }

    // MARK: - Positions

    private mutating func refreshStarts() {
        guard !startsAreCurrent else { return }
        chunkStarts.removeAll(keepingCapacity: true)
        chunkStarts.reserveCapacity(chunks.count)
        var start = 0
        for count in chunkCounts {
            chunkStarts.append(start)
            start += count
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
