import CSQLiteRaw
import Foundation

/// Workload 3's raw baseline: what a change batch into a sorted, sectioned list costs with nothing between the
/// SQLite C API and a sorted array of keys.
///
/// The same store, the same batch shape as ``ControllerWorkload`` (500 inserts, 250 deletes, 250 sort- or
/// section-key updates, 1000 other updates), written to the file before the clock starts. Timed: every changed
/// row (all but the deleted) read by primary key with one prepared statement, its sort key made from the bytes
/// SQLite returns, and placed — removed from its old place and inserted at its new one in a chunked sorted array
/// of keys (a two-level B-tree: a directory of chunks of at most 128 keys), with the primary key → key table a
/// controller must keep to find an object's old place — and finally every change's row index found, as a
/// delegate is told them. No objects, no strings, no change records: the floor the controller is held to.
public enum ControllerRawBaseline {
    /// A row's place: the first sixteen bytes of `lastName NUL firstName` as two big-endian words, then the
    /// primary key (the tie-breaker, as in ObjectGraph's order).
    struct Key: Comparable, Hashable {
        var high: UInt64
        var low: UInt64
        var pk: Int64

        static func < (a: Key, b: Key) -> Bool { (a.high, a.low, a.pk) < (b.high, b.low, b.pk) }

        /// The key of `lastName` and `firstName` given as C strings of `lastLength` and `firstLength` bytes.
        init(last: UnsafePointer<UInt8>?, lastLength: Int, first: UnsafePointer<UInt8>?, firstLength: Int,
            pk: Int64)
        {
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { bytes in
                var cursor = 0
                if let last {
                    for offset in 0..<min(lastLength, 16) { bytes[offset] = last[offset] }
                    cursor = min(lastLength, 16)
                }
                cursor += 1  // the separator, a zero byte
                if let first, cursor < 16 {
                    for offset in 0..<min(firstLength, 16 - cursor) { bytes[cursor + offset] = first[offset] }
                }
            }
            high = UInt64(bigEndian: words.0)
            low = UInt64(bigEndian: words.1)
            self.pk = pk
        }

        init(high: UInt64, low: UInt64, pk: Int64) {
            self.high = high
            self.low = low
            self.pk = pk
        }
    }

    /// Keys in order, in chunks of at most `capacity`; each chunk's first position is refreshed once per batch.
    struct SortedKeys {
        static let capacity = 128
        var chunks: [[Key]] = []
        var starts: [Int] = []

        init(sorted keys: [Key]) {
            var offset = 0
            while offset < keys.count {
                let end = min(offset + Self.capacity / 2, keys.count)
                chunks.append(Array(keys[offset..<end]))
                offset = end
            }
            if chunks.isEmpty { chunks = [[]] }
            refreshStarts()
        }

        /// The chunk `key` belongs in: the last whose first key is not above it.
        func chunk(for key: Key) -> Int {
            var low = 0
            var high = chunks.count
            while high - low > 1 {
                let mid = (low + high) / 2
                if let first = chunks[mid].first, key < first { high = mid } else { low = mid }
            }
            return low
        }

        mutating func insert(_ key: Key) {
            let number = chunk(for: key)
            let at = chunks[number].partitioningIndex { !($0 < key) }
            chunks[number].insert(key, at: at)
            if chunks[number].count > Self.capacity {
                let upper = Array(chunks[number][(Self.capacity / 2)...])
                chunks[number].removeSubrange((Self.capacity / 2)...)
                chunks.insert(upper, at: number + 1)
            }
        }

        @discardableResult
        mutating func remove(_ key: Key) -> Bool {
            let number = chunk(for: key)
            let at = chunks[number].partitioningIndex { !($0 < key) }
            guard at < chunks[number].count, chunks[number][at] == key else { return false }
            chunks[number].remove(at: at)
            if chunks[number].isEmpty, chunks.count > 1 { chunks.remove(at: number) }
            return true
        }

        mutating func refreshStarts() {
            starts.removeAll(keepingCapacity: true)
            var total = 0
            for chunk in chunks {
                starts.append(total)
                total += chunk.count
            }
        }

        /// The position of `key` (present) among all keys.
        func position(of key: Key) -> Int {
            let number = chunk(for: key)
            return starts[number] + chunks[number].partitioningIndex { !($0 < key) }
        }
    }

    /// Runs `rounds` batches against a copy of the store of `count` people; seconds per round, timed as above.
    public static func run(count: Int, rounds: Int) throws -> [Double] {
        let file = try StoreFile.filled("people-\(count)", index: .name, count: count).copy(as: "controller-raw-\(count)")
        defer { file.remove() }
        let connection = try RawConnection(path: file.path)
        let select = try connection.prepare("SELECT ZLASTNAME, ZFIRSTNAME FROM ZPERSON WHERE Z_PK = ?")

        // The list as a controller holds it after its fetch: keys in order, and each row's key by primary key.
        var keyOf: [Int64: Key] = [:]
        keyOf.reserveCapacity(count + rounds * ControllerWorkload.inserts)
        var initial: [Key] = []
        initial.reserveCapacity(count)
        let all = try connection.prepare("SELECT Z_PK, ZLASTNAME, ZFIRSTNAME FROM ZPERSON")
        while all.step() {
            let key = rowKey(all, lastColumn: 1, firstColumn: 2, pk: all.int(0))
            keyOf[key.pk] = key
            initial.append(key)
        }
        initial.sort()
        var keys = SortedKeys(sorted: initial)
        initial = []
        var pks = Array(keyOf.keys)

        let inserter = try RawInserter(connection)
        let deleteRow = try connection.prepare("DELETE FROM ZPERSON WHERE Z_PK = ?")
        let renameRow = try connection.prepare("UPDATE ZPERSON SET ZLASTNAME = ?, ZSECTION = ? WHERE Z_PK = ?")
        let ageRow = try connection.prepare("UPDATE ZPERSON SET ZAGE = ZAGE + 1 WHERE Z_PK = ?")
        var generator = PersonGenerator(seed: 7)
        var times: [Double] = []
        var positions: [Int] = []
        for _ in 0..<rounds {
            // The batch, committed before the clock starts (as the worker's save is in the engine's run).
            let plain = ControllerWorkload.plainUpdates(among: pks.count)
            var victims: [Int64] = []
            for _ in 0..<(ControllerWorkload.deletes + ControllerWorkload.keyUpdates + plain) {
                let index = generator.below(pks.count)
                victims.append(pks[index])
                pks.swapAt(index, pks.count - 1)
                pks.removeLast()
            }
            let deleted = victims[0..<ControllerWorkload.deletes]
            let renamed = victims[ControllerWorkload.deletes..<(ControllerWorkload.deletes + ControllerWorkload.keyUpdates)]
            let aged = victims[(ControllerWorkload.deletes + ControllerWorkload.keyUpdates)...]
            try connection.exec("BEGIN IMMEDIATE")
            for pk in deleted { try run(deleteRow, pk: pk, connection) }
            for pk in renamed {
                let name = generator.lastName()
                renameRow.bind(name, at: 1)
                renameRow.bind(String(name.prefix(1)), at: 2)
                try run(renameRow, pk: pk, at: 3, connection)
            }
            for pk in aged { try run(ageRow, pk: pk, connection) }
            try connection.exec("COMMIT")
            let firstNew = try connection.int("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'") + 1
            try inserter.insert(generator.people(ControllerWorkload.inserts), batchSize: ControllerWorkload.inserts)
            let inserted = firstNew..<(firstNew + Int64(ControllerWorkload.inserts))

            let changed = Array(renamed) + Array(aged)
            let start = Measure.now()
            var placed: [Key] = []
            placed.reserveCapacity(ControllerWorkload.inserts + renamed.count + aged.count)
            for pk in deleted {
                if let old = keyOf.removeValue(forKey: pk) { keys.remove(old) }
            }
            for pk in inserted {
                let key = try read(select, pk: pk)
                keyOf[pk] = key
                keys.insert(key)
                placed.append(key)
            }
            for pk in changed {
                let key = try read(select, pk: pk)
                if let old = keyOf[pk], old != key {
                    keys.remove(old)
                    keys.insert(key)
                    keyOf[pk] = key
                }
                placed.append(key)
            }
            keys.refreshStarts()
            positions.removeAll(keepingCapacity: true)
            for key in placed { positions.append(keys.position(of: key)) }
            times.append(Double(Measure.now() - start) / 1e9)

            guard positions.count == placed.count else { throw RawSQLiteError(description: "lost a placement") }
            pks.append(contentsOf: renamed)
            pks.append(contentsOf: aged)
            pks.append(contentsOf: inserted)
        }
        let held = keys.chunks.reduce(0) { $0 + $1.count }
        let expected = count + rounds * (ControllerWorkload.inserts - ControllerWorkload.deletes)
        guard held == expected else { throw RawSQLiteError(description: "raw list holds \(held), expected \(expected)") }
        return times
    }

    private static func run(_ statement: RawStatement, pk: Int64, at index: Int32 = 1, _ connection: RawConnection) throws {
        statement.bind(pk, at: index)
        if sqlite3_step(statement.handle) != SQLITE_DONE {
            throw RawSQLiteError(description: "write: \(String(cString: sqlite3_errmsg(connection.db)))")
        }
        statement.reset()
    }

    /// The key of row `pk` read with `select` (last name, first name).
    private static func read(_ select: RawStatement, pk: Int64) throws -> Key {
        select.bind(pk, at: 1)
        defer { select.reset() }
        guard select.step() else { throw RawSQLiteError(description: "row \(pk) is missing") }
        return rowKey(select, lastColumn: 0, firstColumn: 1, pk: pk)
    }

    private static func rowKey(_ statement: RawStatement, lastColumn: Int32, firstColumn: Int32, pk: Int64) -> Key {
        let last = sqlite3_column_text(statement.handle, lastColumn)
        let lastLength = Int(sqlite3_column_bytes(statement.handle, lastColumn))
        let first = sqlite3_column_text(statement.handle, firstColumn)
        let firstLength = Int(sqlite3_column_bytes(statement.handle, firstColumn))
        return Key(last: last, lastLength: lastLength, first: first, firstLength: firstLength, pk: pk)
    }
}

extension Array {
    /// The first index whose element satisfies `belongs`, for a predicate false then true along the array.
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if belongs(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
