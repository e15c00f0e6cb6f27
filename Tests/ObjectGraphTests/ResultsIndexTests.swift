import Foundation
import Testing
@testable import ObjectGraph

/// The controller's ordered index on its own: bulk insertion against a sorted array.
@Suite struct ResultsIndexTests {
    private static let ordering = RowOrdering(criteria: [SortCriterion("rank")], tieBreaksByStore: false)
    private static let namespace = ObjectIDNamespace.permanent(entityName: "Item", storeIdentifier: "S")

    private static func entry(key: Int64, rank: Int64) -> ResultsEntry {
        let id = ManagedObjectID(namespace: namespace, key: key)
        return ResultsEntry(id: id, placed: ResultID(key: key, namespace: 0), keys: [.integer(rank)], section: 0,
            ordering: ordering)
    }

    /// An entry keyed by text that is often a prefix of another's (so order bytes differ in length).
    private static func entry(key: Int64, text: String) -> ResultsEntry {
        let id = ManagedObjectID(namespace: namespace, key: key)
        return ResultsEntry(id: id, placed: ResultID(key: key, namespace: 0), keys: [.string(text)], section: 0,
            ordering: RowOrdering(criteria: [SortCriterion("name")], tieBreaksByStore: false))
    }

    private static func sorted(_ entries: [ResultsEntry]) -> [ResultsEntry] {
        entries.sorted { RowOrdering.compare($0.order, $1.order) < 0 }
    }

    /// Seeded random lists, with ranks that tie and sometimes many arrivals into few chunks (so that a chunk
    /// splits several times in one call): the index equals the sorted union, and each returned position
    /// holds its entry.
    @Test func insertingSortedEntriesGivesTheSortedUnionAndTheirPositions() {
        for seed in UInt64(1)...30 {
            var rng = SeededRandom(seed: seed)
            let rankSpread = Int64.random(in: 1...2_000, using: &rng)
            var all = (0..<Int.random(in: 0..<3_000, using: &rng)).map {
                Self.entry(key: Int64($0), rank: Int64.random(in: 0..<rankSpread, using: &rng))
            }
            all.shuffle(using: &rng)
            let split = Int.random(in: 0...all.count, using: &rng)
            var index = ResultsIndex(sorted: Self.sorted(Array(all[..<split])))
            let arriving = Self.sorted(Array(all[split...]))
            let positions = index.insert(sorted: arriving)
            let expected = Self.sorted(all)
            #expect(index.count == expected.count, "seed \(seed)")
            #expect(index.allEntries.map(\.placed) == expected.map(\.placed), "seed \(seed)")
            index.prepareForReading()
            for (entry, position) in zip(arriving, positions) {
                #expect(index.entry(at: position).placed == entry.placed, "seed \(seed)")
            }
            #expect(index.allEntries.count == index.count)
            Self.checkChunks(index, "seed \(seed)")
        }
    }

    /// A search word is the eight order bytes from a start, big-endian, zero-padded past the end — whether it
    /// is read in one load (eight bytes there) or byte by byte (fewer).
    @Test func searchWordsAreTheBytesFromTheirStartPaddedWithZeros() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...24 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for start in 0...(length + 2) {
                var expected: UInt64 = 0
                for offset in start..<(start + 8) { expected = expected << 8 | UInt64(offset < length ? bytes[offset] : 0) }
                #expect(ResultsEntry.prefix(of: bytes, from: start) == expected, "length \(length), start \(start)")
            }
        }
        #expect(ResultsEntry.prefix(of: [1, 2, 3, 4, 5, 6, 7, 8, 9]) == 0x0102_0304_0506_0708)
        #expect(ResultsEntry.prefix(of: [0xAB], from: 0) == 0xAB00_0000_0000_0000)
    }

    @Test func insertingIntoAnEmptyIndexAndOntoTheEnd() {
        var index = ResultsIndex()
        let first = (0..<600).map { Self.entry(key: Int64($0), rank: Int64($0)) }
        #expect(index.insert(sorted: first) == Array(0..<600))
        let more = (600..<1_200).map { Self.entry(key: Int64($0), rank: Int64($0)) }
        #expect(index.insert(sorted: more) == Array(600..<1_200))
        #expect(index.allEntries.map(\.placed.key) == (0..<1_200).map(Int64.init))
        #expect(index.chunks.allSatisfy { $0.entries.count <= ResultsIndex.maximumChunkSize })
        Self.checkChunks(index, "in order")
    }

    /// Each chunk's search words are its entries' bytes after the bytes they all share, and searching a
    /// chunk for an entry's own bytes finds that entry (not through any fallback).
    private static func checkChunks(_ index: ResultsIndex, _ label: String) {
        for (number, chunk) in index.chunks.enumerated() {
            guard let first = chunk.entries.first else {
                Issue.record("\(label): chunk \(number) is empty")
                continue
            }
            for (offset, entry) in chunk.entries.enumerated() {
                #expect(ResultsEntry.sharedPrefixCount(first.order, entry.order) >= chunk.shared,
                    "\(label): chunk \(number) entry \(offset) does not share \(chunk.shared) bytes")
                #expect(chunk.keys[offset] == ResultsEntry.prefix(of: entry.order, from: chunk.shared),
                    "\(label): chunk \(number) key \(offset)")
                #expect(chunk.offset(for: entry.order, words: ResultsIndex.leadingWords(of: entry.order)) == offset,
                    "\(label): chunk \(number) search for \(offset)")
            }
            // Entries of the neighbouring chunks sort wholly before or after this one's; a search says so.
            let neighbours = [number - 1, number + 1].filter { index.chunks.indices.contains($0) }
            for other in neighbours {
                for target in index.chunks[other].entries.enumerated().filter({ $0.offset % 5 == 0 }).map(\.element) {
                    let expected = chunk.entries.filter { RowOrdering.compare($0.order, target.order) < 0 }.count
                    #expect(chunk.offset(for: target.order, words: ResultsIndex.leadingWords(of: target.order)) == expected,
                        "\(label): chunk \(number) search for an entry of chunk \(other)")
                }
            }
        }
    }

    /// Random removals and insertions, one at a time and in sorted runs, against a sorted array; keyed by
    /// numbers, or by short texts over a tiny alphabet (with NUL, which order bytes escape).
    @Test func removalsAndInsertionsKeepTheOrderAndTheSearchWords() {
        for seed in UInt64(1)...20 {
            var rng = SeededRandom(seed: seed)
            let rankSpread = Int64.random(in: 1...300, using: &rng)
            var nextKey: Int64 = 0
            func make(_ count: Int) -> [ResultsEntry] {
                (0..<count).map { _ in
                    nextKey += 1
                    guard seed.isMultiple(of: 2) else {
                        return Self.entry(key: nextKey, rank: Int64.random(in: 0..<rankSpread, using: &rng))
                    }
                    let length = Int.random(in: 0..<12, using: &rng)
                    let text = String((0..<length).map { _ in "aab\u{0}".randomElement(using: &rng) ?? "a" })
                    return Self.entry(key: nextKey, text: text)
                }
            }
            var expected = Self.sorted(make(Int.random(in: 0..<1_500, using: &rng)))
            var index = ResultsIndex(sorted: expected)
            for round in 0..<12 {
                let removals = Array(Set((0..<min(expected.count, Int.random(in: 0..<200, using: &rng))).map { _ in
                    Int.random(in: 0..<expected.count, using: &rng)
                }))
                index.remove(atPositions: removals)
                for position in removals.sorted(by: >) { expected.remove(at: position) }
                let single = make(Int.random(in: 0..<4, using: &rng))
                for entry in single { index.insert(entry) }
                let run = Self.sorted(make(Int.random(in: 0..<400, using: &rng)))
                _ = index.insert(sorted: run)
                expected = Self.sorted(expected + single + run)
                let label = "seed \(seed) round \(round)"
                #expect(index.allEntries.map(\.placed) == expected.map(\.placed), "\(label)")
                Self.checkChunks(index, label)
                for (position, entry) in expected.enumerated() where position.isMultiple(of: 17) {
                    #expect(index.position(of: entry.placed, order: entry.order) == position, "\(label)")
                }
            }
        }
    }
}
