import Foundation

/// The atomic store's file format: everything the store holds, as one binary property list (format version 1).
///
/// A binary property list rather than JSON because it holds every attribute type as itself: Binary and
/// Transformable bytes stay raw bytes (JSON would need base64, a third larger), doubles round-trip exactly,
/// NaN and infinities included (JSON has no such numbers), integers stay 64-bit integers, and the store's
/// metadata is already a binary property list (the one the SQLite store keeps in `Z_METADATA.Z_PLIST`) that
/// the file embeds as it is. Core Data's own atomic "Binary" store is a binary property list too.
///
/// The top level is a dictionary:
///
/// | key | value |
/// | --- | --- |
/// | `format` | `"ObjectGraph atomic store"` |
/// | `formatVersion` | `1` |
/// | `uuid` | the store's UUID (what permanent object IDs name) |
/// | `metadata` | the metadata property list: store type `Binary`, UUID, entity version hashes, … |
/// | `primaryKeys` | the highest key used or reserved per root entity (Core Data's `Z_PRIMARYKEY.Z_MAX`) |
/// | `entities` | per concrete entity with rows: `name`, `attributes` and `relationships` (names in model order), `rows` |
/// | `toMany` | the lists a row's values cannot say: many-to-many members and the order of ordered relationships |
/// | `history`, `nextTransaction` | optional: the persistent history and its next transaction number (see `AtomicStoreArchive+History.swift`) |
///
/// A row is one flat array `[key, version, n, value₁ … valueₙ, m, slot₁, entity₁, key₁ …]`: its primary key, its
/// version (`Z_OPT`), its n values (one per attribute, in the entity's order), and its m set to-one relationships
/// (slot = the relationship's index in the entity). A value is its tag, then its payload: 0 nil (no payload),
/// 1 integer, 2 double, 3 decimal (its text), 4 string, 5 Boolean, 6 date (seconds since 2001-01-01 UTC, a
/// double), 7 bytes, 8 UUID (its text), 9 URL (its absolute text). A `toMany` entry is `entity`, `relationship`, `owner` (a
/// key), `isOrder` and `members` (`[entity, key]` pairs). One-to-many relationships are not listed: the
/// destinations' to-one values say them, as foreign keys do in SQLite.
struct AtomicStoreArchive: Codable, Sendable {
    /// The value of `format`, which tells the file from other property lists.
    static let formatName = "ObjectGraph atomic store"
    /// The format version this framework writes and reads.
    static let currentFormatVersion = 1

    var format = formatName
    var formatVersion = currentFormatVersion
    var uuid: String
    /// The store's metadata as a binary property list (``StoreMetadata/propertyList()``).
    var metadata: Data
    var primaryKeys: [String: Int64]
    var entities: [Entity]
    var toMany: [ToManyList]
    /// The persistent history, when the store records it (see `AtomicStoreArchive+History.swift`).
    var history: [HistoryTransaction]? = nil
    /// The next history transaction number.
    var nextTransaction: Int64? = nil

    /// The rows of one concrete entity, with the names their values and slots follow.
    struct Entity: Codable, Sendable {
        var name: String
        var attributes: [String]
        var relationships: [String]
        var rows: [Row]
    }

    /// One row, encoded flat (one array per row, which keeps encoding and decoding fast):
    /// `[key, version, n, value₁ … valueₙ, m, slot₁, entity₁, key₁, … slotₘ, entityₘ, keyₘ]`, where each value
    /// is its tag, then its payload unless it is nil.
    struct Row: Codable, Sendable {
        var key: Int64
        var version: Int64
        var values: [Value]
        var toOne: [ToOne]

        init(key: Int64, version: Int64, values: [Value], toOne: [ToOne]) {
            self.key = key
            self.version = version
            self.values = values
            self.toOne = toOne
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            key = try container.decode(Int64.self)
            version = try container.decode(Int64.self)
            let valueCount = try container.decode(Int.self)
            guard (0...100_000).contains(valueCount) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(valueCount) values")
            }
            values = []
            values.reserveCapacity(valueCount)
            for _ in 0..<valueCount { values.append(try Value.decode(from: &container)) }
            let toOneCount = try container.decode(Int.self)
            guard (0...100_000).contains(toOneCount) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(toOneCount) to-one links")
            }
            toOne = []
            for _ in 0..<toOneCount {
                let slot = try container.decode(Int.self)
                let destination = Reference(entity: try container.decode(String.self), key: try container.decode(Int64.self))
                toOne.append(ToOne(slot: slot, destination: destination))
            }
            guard container.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "extra elements after the row")
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(key)
            try container.encode(version)
            try container.encode(values.count)
            for value in values { try value.encode(into: &container) }
            try container.encode(toOne.count)
            for link in toOne {
                try container.encode(link.slot)
                try container.encode(link.destination.entity)
                try container.encode(link.destination.key)
            }
        }
    }

    /// A set to-one relationship of a row: the relationship's index and the destination's entity and key.
    struct ToOne: Sendable {
        var slot: Int
        var destination: Reference
    }

    /// Another row of the same store: its concrete entity and its key.
    struct Reference: Codable, Sendable, Hashable {
        var entity: String
        var key: Int64

        init(entity: String, key: Int64) {
            self.entity = entity
            self.key = key
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            entity = try container.decode(String.self)
            key = try container.decode(Int64.self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(entity)
            try container.encode(key)
        }
    }

    /// The members of one row's to-many relationship (`isOrder` false: a many-to-many relationship's members),
    /// or the order of an ordered one (`isOrder` true).
    struct ToManyList: Codable, Sendable {
        var entity: String
        var relationship: String
        var owner: Int64
        var isOrder: Bool
        var members: [Reference]
    }

    /// One attribute value, tagged with its kind (inside a row: its tag, then its payload unless nil).
    struct Value: Sendable {
        var value: AttributeValue

        init(_ value: AttributeValue) {
            self.value = value
        }

        static func decode(from container: inout any UnkeyedDecodingContainer) throws -> Value {
            let tag = try container.decode(Int.self)
            func damaged(_ what: String) -> DecodingError {
                .dataCorrupted(DecodingError.Context(codingPath: container.codingPath, debugDescription: what))
            }
            switch tag {
            case 0: return Value(.null)
            case 1: return Value(.integer(try container.decode(Int64.self)))
            case 2: return Value(.double(try container.decode(Double.self)))
            case 3:
                let text = try container.decode(String.self)
                guard let decimal = text == "NaN" ? Decimal.nan : Decimal(string: text) else {
                    throw damaged("'\(text)' is not a decimal number")
                }
                return Value(.decimal(decimal))
            case 4: return Value(.string(try container.decode(String.self)))
            case 5: return Value(.boolean(try container.decode(Bool.self)))
            case 6: return Value(.date(Date(timeIntervalSinceReferenceDate: try container.decode(Double.self))))
            case 7: return Value(.binary(try container.decode(Data.self)))
            case 8:
                let text = try container.decode(String.self)
                guard let uuid = UUID(uuidString: text) else { throw damaged("'\(text)' is not a UUID") }
                return Value(.uuid(uuid))
            case 9:
                let text = try container.decode(String.self)
                guard let url = URL(string: text) else { throw damaged("'\(text)' is not a URL") }
                return Value(.uri(url))
            default: throw damaged("unknown value tag \(tag)")
            }
        }

        func encode(into container: inout any UnkeyedEncodingContainer) throws {
            switch value {
            case .null: try container.encode(0)
            case .integer(let number):
                try container.encode(1)
                try container.encode(number)
            case .double(let number):
                try container.encode(2)
                try container.encode(number)
            case .decimal(let number):
                try container.encode(3)
                try container.encode(number.isNaN ? "NaN" : number.description)
            case .string(let text):
                try container.encode(4)
                try container.encode(text)
            case .boolean(let flag):
                try container.encode(5)
                try container.encode(flag)
            case .date(let date):
                try container.encode(6)
                try container.encode(date.timeIntervalSinceReferenceDate)
            case .binary(let bytes):
                try container.encode(7)
                try container.encode(bytes)
            case .uuid(let uuid):
                try container.encode(8)
                try container.encode(uuid.uuidString)
            case .uri(let url):
                try container.encode(9)
                try container.encode(url.absoluteString)
            }
        }
    }
}

extension AtomicStoreArchive {
    /// The archive as the bytes of the file.
    ///
    /// - Throws: ``ObjectGraphError/fileOperationFailed(path:reason:)`` when the encoder refuses (it should not).
    func encoded(path: String) throws(ObjectGraphError) -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        do {
            return try encoder.encode(self)
        } catch {
            throw .fileOperationFailed(path: path, reason: "the store could not be encoded (\(error))")
        }
    }

    /// Reads the bytes of an atomic store file, checking that they are one (without a model: the caller checks
    /// the rows against its model).
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` for a file that is not an atomic store
    ///   (an SQLite database, another property list, anything else), ``ObjectGraphError/damagedStore(path:reason:)``
    ///   for an atomic store file that is truncated or damaged, ``ObjectGraphError/incompatibleStore(path:reason:)``
    ///   for a newer format version.
    static func decode(_ data: Data, path: String) throws(ObjectGraphError) -> AtomicStoreArchive {
        if data.starts(with: Array("SQLite format 3\u{0}".utf8)) {
            throw .notAnObjectGraphStore(path: path, reason: "it is an SQLite database, not an atomic store (add it as .sqlite)")
        }
        guard data.starts(with: Array("bplist00".utf8)) else {
            throw .notAnObjectGraphStore(path: path, reason: "it is not an atomic store file (no binary property list header)")
        }
        let header: Header
        do {
            header = try PropertyListDecoder().decode(Header.self, from: data)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw .notAnObjectGraphStore(path: path, reason: "it is a property list, but not an atomic store file")
        } catch {
            throw .damagedStore(path: path, reason: "its property list cannot be read (\(Self.describe(error)))")
        }
        guard header.format == formatName, let version = header.formatVersion else {
            throw .notAnObjectGraphStore(path: path, reason: "it is a property list, but not an atomic store file")
        }
        guard version == currentFormatVersion else {
            throw .incompatibleStore(path: path, reason: "its atomic store format version is \(version); "
                + "this framework reads version \(currentFormatVersion)")
        }
        do {
            return try PropertyListDecoder().decode(AtomicStoreArchive.self, from: data)
        } catch {
            throw .damagedStore(path: path, reason: "its contents cannot be read (\(Self.describe(error)))")
        }
    }

    /// The two keys that say what the file is, read before the rest.
    private struct Header: Decodable {
        var format: String?
        var formatVersion: Int?
    }

    /// A decoding error in a sentence: what was wrong and where.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found),
            .dataCorrupted(let found):
            context = found
        @unknown default:
            return "\(error)"
        }
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return context.debugDescription + (path.isEmpty ? "" : " at \(path)")
    }
}
