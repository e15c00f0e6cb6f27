import Foundation

/// The persistent history of an atomic store (``PersistentStoreOptions/persistentHistoryTracking``), kept in its
/// file next to the rows and rewritten with them by every save, so a transaction and its history are one rename.
///
/// Two optional keys of the archive's top level (files without history, and readers that predate it, skip them):
/// `history`, the transactions oldest first, and `nextTransaction`, the next transaction number (numbers are never
/// reused, even after a purge).
extension AtomicStoreArchive {
    /// One transaction.
    struct HistoryTransaction: Codable, Sendable {
        var number: Int64
        /// Seconds since 2001-01-01 UTC.
        var timestamp: Double
        var author: String?
        var contextName: String?
        var processID: String?
        var bundleID: String?
        var changes: [HistoryChange]
    }

    /// One object's change: `[entity, key, type, n, updated name₁ … nameₙ (n = -1: not known), m, tombstone name₁,
    /// value₁ … nameₘ, valueₘ]`, values tagged as in rows.
    struct HistoryChange: Codable, Sendable {
        var object: Reference
        var type: Int
        var updated: [String]?
        var tombstone: [(name: String, value: Value)]

        init(object: Reference, type: Int, updated: [String]?, tombstone: [(name: String, value: Value)]) {
            self.object = object
            self.type = type
            self.updated = updated
            self.tombstone = tombstone
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            object = Reference(entity: try container.decode(String.self), key: try container.decode(Int64.self))
            type = try container.decode(Int.self)
            let updatedCount = try container.decode(Int.self)
            guard (-1...100_000).contains(updatedCount) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(updatedCount) updated names")
            }
            if updatedCount >= 0 {
                var names: [String] = []
                for _ in 0..<updatedCount { names.append(try container.decode(String.self)) }
                updated = names
            } else {
                updated = nil
            }
            let tombstoneCount = try container.decode(Int.self)
            guard (0...100_000).contains(tombstoneCount) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(tombstoneCount) tombstone values")
            }
            var values: [(name: String, value: Value)] = []
            var nested = container as any UnkeyedDecodingContainer
            for _ in 0..<tombstoneCount {
                let name = try nested.decode(String.self)
                values.append((name, try Value.decode(from: &nested)))
            }
            tombstone = values
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(object.entity)
            try container.encode(object.key)
            try container.encode(type)
            try container.encode(updated?.count ?? -1)
            for name in updated ?? [] { try container.encode(name) }
            try container.encode(tombstone.count)
            for (name, value) in tombstone {
                try container.encode(name)
                try value.encode(into: &container)
            }
        }
    }
}
