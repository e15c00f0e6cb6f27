import Foundation

/// Results read from a section cache: the section runs and the first entries at once, the other entries
/// (when there are more) still being read on another thread.
struct CachedResults {
    /// How many results there are.
    let count: Int
    /// The sections, with their counts.
    let runs: SectionRuns
    /// The first entries (all of them when ``tail`` is nil).
    let head: [ResultsEntry]
    /// The rest, being read; nil when ``head`` holds every entry.
    let tail: CachedResultsTail?
}

/// The body of a section cache — every entry after its head — read, checked and indexed on another thread,
/// so that a controller over a million results shows its first screen without waiting for it.
///
/// Concurrency: ``outcome`` is written once, by the worker, before it leaves the dispatch group, and read
/// only after waiting on the group, which orders the write before the read. Nothing else is shared.
final class CachedResultsTail: @unchecked Sendable {
    /// What reading the body gave.
    enum Outcome: Sendable {
        /// Every result (head and body), indexed.
        case complete(ResultsIndex)
        /// The body was missing, damaged or inconsistent with the head: the results must be fetched.
        case damaged
    }

    private let group = DispatchGroup()
    private var outcome = Outcome.damaged

    init(_ work: @escaping @Sendable () -> Outcome) {
        group.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            outcome = work()
            group.leave()
        }
    }

    /// Waits until the body is read (at once when it already is).
    func wait() -> Outcome {
        group.wait()
        return outcome
    }
}

/// How a cache's entries name their section and ID namespace: tables read from its head.
private struct CacheEntryTables: Sendable {
    /// The controller's section number for each section name in the file.
    let sections: [Int32]
    /// The namespace of each (entity, store) pair in the file, at `entity * storeCount + store`.
    let namespaces: [UInt32]
    let entityCount: Int
    let storeCount: Int

    /// `count` entries from `reader`; nil when they are malformed.
    func entries(from reader: inout CacheReader, count: Int) -> [ResultsEntry]? {
        var entries: [ResultsEntry] = []
        entries.reserveCapacity(count)
        return append(count, from: &reader, to: &entries) ? entries : nil
    }

    /// Appends `count` entries from `reader` to `entries`; false when they are malformed.
    func append(_ count: Int, from reader: inout CacheReader, to entries: inout [ResultsEntry]) -> Bool {
        for _ in 0..<count {
            guard let entity = reader.count(), entity < entityCount, let store = reader.count(), store < storeCount,
                let key = reader.integer(), let section = reader.count(), section < sections.count,
                let order = reader.byteRun()
            else { return false }
            let namespace = namespaces[entity * storeCount + store]
            entries.append(ResultsEntry(placed: ResultID(key: key, namespace: namespace), order: order,
                section: sections[section]))
        }
        return true
    }
}

/// Where a cache file's head and body are, and their checksums: its preamble.
private struct CacheFileLayout {
    let headOffset: UInt64
    let headLength: Int64
    let bodyLength: Int64
    let headSum: Int64
    let bodySum: Int64

    /// The layout of the file `handle` reads; nil when it is not a cache of this format, or its lengths do not
    /// add up to the file's size.
    init?(reading handle: FileHandle) {
        guard let size = try? handle.seekToEnd(), (try? handle.seek(toOffset: 0)) != nil,
            let start = try? handle.read(upToCount: 256)
        else { return nil }
        var preamble = CacheReader(data: start)
        guard preamble.string() == FetchedResultsCache.formatVersion, let headLength = preamble.integer(),
            let bodyLength = preamble.integer(), let headSum = preamble.integer(), let bodySum = preamble.integer(),
            headLength >= 0, bodyLength >= 0, headLength <= Int64(size), bodyLength <= Int64(size)
        else { return nil }
        headOffset = UInt64(start.count - preamble.remaining)
        guard size == headOffset + UInt64(headLength) + UInt64(bodyLength) else { return nil }
        (self.headLength, self.bodyLength, self.headSum, self.bodySum) = (headLength, bodyLength, headSum, bodySum)
    }

    /// The file's head, when it matches its checksum.
    func head(from handle: FileHandle) -> Data? {
        guard (try? handle.seek(toOffset: headOffset)) != nil,
            let data = try? handle.read(upToCount: Int(headLength)), data.count == Int(headLength),
            CacheChecksum.of(data) == UInt64(bitPattern: headSum)
        else { return nil }
        return data
    }
}

extension FetchedResultsCache {
    /// Whether the cache file was written for the results as they are now (its fingerprint matches), without
    /// reading its entries.
    func isCurrent() -> Bool {
        guard let fingerprint = fingerprint(), let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let layout = CacheFileLayout(reading: handle), let headData = layout.head(from: handle) else {
            return false
        }
        var head = CacheReader(data: headData)
        return head.string() == fingerprint
    }

    /// The cached results, with their section names interned into `names` and their IDs' namespaces into
    /// `namespaces`; nil when there is no valid cache. Reads the file's head only; the body is read by a
    /// ``CachedResultsTail``.
    func load(into names: inout SectionNames, namespaces: inout IDNamespaces) -> CachedResults? {
        guard let fingerprint = fingerprint(), let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let layout = CacheFileLayout(reading: handle), let headData = layout.head(from: handle) else {
            return nil
        }
        let (headOffset, headLength, bodyLength, bodySum) =
            (layout.headOffset, layout.headLength, layout.bodyLength, layout.bodySum)

        var head = CacheReader(data: headData)
        guard head.string() == fingerprint, let nameCount = head.count(), nameCount <= head.remaining else { return nil }
        var numbers: [Int32] = []
        for _ in 0..<nameCount {
            guard let name = head.string() else { return nil }
            numbers.append(names.number(for: name))
        }
        guard let entityCount = head.count(), entityCount <= head.remaining else { return nil }
        // Every entity and store the IDs name must be one the results come from (a file that passes its
        // checksums could still name others: its IDs would name objects that cannot exist).
        var entityNames: [String] = []
        for _ in 0..<entityCount {
            guard let name = head.string(), trackedEntityNames.contains(name) else { return nil }
            entityNames.append(name)
        }
        guard let storeCount = head.count(), storeCount <= head.remaining else { return nil }
        let knownStores = self.storeIdentifiers
        var storeIdentifiers: [String] = []
        for _ in 0..<storeCount {
            guard let identifier = head.string(), knownStores.contains(identifier) else { return nil }
            storeIdentifiers.append(identifier)
        }
        var pairNamespaces: [UInt32] = []
        for entity in entityNames {
            for store in storeIdentifiers {
                pairNamespaces.append(namespaces.namespace(entityName: entity, storeIdentifier: store))
            }
        }
        let tables = CacheEntryTables(sections: numbers, namespaces: pairNamespaces, entityCount: entityCount,
            storeCount: storeCount)

        guard let entryCount = head.count(), let runCount = head.count(), runCount <= head.remaining else { return nil }
        var runSections: [Int32] = []
        var runCounts: [Int] = []
        for _ in 0..<runCount {
            guard let section = head.count(), section < numbers.count, let count = head.count(), count > 0,
                count <= entryCount
            else { return nil }
            runSections.append(numbers[section])
            runCounts.append(count)
        }
        guard runCounts.reduce(0, +) == entryCount else { return nil }
        let runs = SectionRuns(sections: runSections, counts: runCounts)
        guard !runs.hasRepeats else { return nil }
        let headCount = min(entryCount, Self.headEntryCount)
        // An entry takes at least 12 bytes (entity, store, 8-byte key, section, order length): a count the
        // body cannot hold is refused before anything is reserved for it.
        guard entryCount - headCount <= Int(bodyLength) / 12 else { return nil }
        guard let first = tables.entries(from: &head, count: headCount), head.isAtEnd,
            ResultsEntry.areInOrder(first)
        else { return nil }
        if headCount == entryCount {
            guard bodyLength == 0, SectionRuns(of: first).matches(runs) else { return nil }
            return CachedResults(count: entryCount, runs: runs, head: first, tail: nil)
        }
        let url = url
        let bodyOffset = headOffset + UInt64(headLength)
        let tail = CachedResultsTail {
            guard let bytes = CacheReader.bytes(of: url, at: bodyOffset, count: Int(bodyLength)),
                CacheChecksum.of(bytes) == UInt64(bitPattern: bodySum)
            else { return .damaged }
            var body = CacheReader(bytes: bytes)
            // (Appended to the head's entries: a million entries are not copied once more to join them.)
            var all = first
            all.reserveCapacity(entryCount)
            guard tables.append(entryCount - headCount, from: &body, to: &all), body.isAtEnd else { return .damaged }
            guard ResultsEntry.areInOrder(all), SectionRuns(of: all).matches(runs) else { return .damaged }
            return .complete(ResultsIndex(sorted: all))
        }
        return CachedResults(count: entryCount, runs: runs, head: first, tail: tail)
    }
}

extension SectionRuns {
    /// Whether `other` has the same sections with the same counts.
    func matches(_ other: SectionRuns) -> Bool { sections == other.sections && counts == other.counts }
}

extension ResultsEntry {
    /// Whether `entries` are strictly in order.
    static func areInOrder(_ entries: [ResultsEntry]) -> Bool {
        guard entries.count > 1 else { return true }
        for offset in 1..<entries.count
        where RowOrdering.compare(entries[offset - 1].order, entries[offset].order) >= 0 {
            return false
        }
        return true
    }
}
