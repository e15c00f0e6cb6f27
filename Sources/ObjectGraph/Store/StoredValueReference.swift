import Foundation

/// A large value that a store keeps apart from its rows (on a server) and has not handed out: what a store puts in
/// the value slot of an external-storage attribute instead of the bytes, so that loading, fetching and following
/// other clients' commits transfer none, and the bytes are read only when the attribute is (``ManagedObject``).
///
/// It names the store (by its UUID, and the opening of it that made the reference), the row and attribute that own
/// the value, and the value itself (an ID the store gives every value it writes, never reused), so that a reference
/// to a value that has since been replaced is never answered with the newer bytes. It also carries the value's
/// size, so that sizes are known without a read.
///
/// Inside the framework it travels in the value slot as ``AttributeValue/uri(_:)`` with the scheme
/// `x-objectgraph-stored` (`x-objectgraph-stored:<store UUID>/<opening>/<value ID>/<bytes>/<attribute>/<owner>`,
/// the last two percent-encoded), next to the file references of SQLite stores (see ``ExternalBinaryReference``); every public
/// accessor hands out the bytes instead. The store that made it reads it through ``ExternalValueReaders``.
///
/// For store implementations (`@_spi(StoreImplementation) import ObjectGraph`); not a stable public API.
@_spi(StoreImplementation)
public struct StoredValueReference: Sendable, Hashable, CustomStringConvertible {
    /// The URL scheme that marks a reference in a value slot.
    public static let scheme = "x-objectgraph-stored"

    /// The UUID of the store holding the value (``IncrementalStore/identifier``).
    public let storeIdentifier: String
    /// Which opening of the store made the reference (an ID of the store object's own), which reads it while it is
    /// open; another opening of the same store reads it after that.
    public let opening: String
    /// The row that owns the value, as the store names it (a PostgreSQL store: `Entity/pk`).
    public let owner: String
    /// The attribute the value belongs to.
    public let attribute: String
    /// The value's ID in its store: a new value always gets a new ID.
    public let valueID: Int64
    /// The value's size in bytes.
    public let byteCount: Int

    /// A reference to value `valueID` of `owner`'s `attribute` in the store `storeIdentifier`, made by `opening`.
    public init(storeIdentifier: String, opening: String, owner: String, attribute: String, valueID: Int64,
        byteCount: Int)
    {
        self.storeIdentifier = storeIdentifier
        self.opening = opening
        self.owner = owner
        self.attribute = attribute
        self.valueID = valueID
        self.byteCount = byteCount
    }

    /// The reference `value` holds, or nil when it holds none.
    public init?(_ value: AttributeValue) {
        guard case .uri(let url) = value else { return nil }
        self.init(url: url)
    }

    /// The reference `url` spells, or nil when it spells none.
    init?(url: URL) {
        guard url.scheme == Self.scheme else { return nil }
        let text = url.absoluteString.dropFirst(Self.scheme.count + 1)
        let parts = text.split(separator: "/", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, !parts[0].isEmpty, let valueID = Int64(parts[2]), let byteCount = Int(parts[3]),
            byteCount >= 0, let attribute = parts[4].removingPercentEncoding, let owner = parts[5].removingPercentEncoding
        else { return nil }
        self.init(storeIdentifier: String(parts[0]), opening: String(parts[1]), owner: owner, attribute: attribute,
            valueID: valueID, byteCount: byteCount)
    }

    /// The reference as a value slot holds it.
    public var attributeValue: AttributeValue {
        func encoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? text
        }
        let text = "\(Self.scheme):\(storeIdentifier)/\(opening)/\(valueID)/\(byteCount)/\(encoded(attribute))/\(encoded(owner))"
        return URL(string: text).map(AttributeValue.uri) ?? .null
    }

    /// How errors name the value: owner, attribute and value ID.
    public var description: String { "\(owner).\(attribute) (value \(valueID))" }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

/// A store that reads the bytes of the ``StoredValueReference``s it hands out.
///
/// For store implementations (`@_spi(StoreImplementation) import ObjectGraph`); not a stable public API.
@_spi(StoreImplementation)
public protocol ExternalValueReading: AnyObject, Sendable {
    /// The bytes `reference` names, read from where the store keeps them.
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` naming the store and value, saying
    ///   why (the value was replaced or deleted since the reference was made, or the store cannot be reached).
    func readExternalValue(_ reference: StoredValueReference) throws(ObjectGraphError) -> Data

    /// The bytes of each of `references`, each reference's outcome on its own (as ``readExternalValue(_:)`` throws
    /// it): how backups, migrations and exports read many values without a round trip each. The default reads them
    /// one at a time.
    func readExternalValues(_ references: [StoredValueReference]) -> [StoredValueReference: Result<Data, ObjectGraphError>]
}

extension ExternalValueReading {
    /// The bytes of each of `references`, read one at a time with ``readExternalValue(_:)`` (equal references once):
    /// for stores that cannot read many in one go.
    public func readExternalValues(_ references: [StoredValueReference])
        -> [StoredValueReference: Result<Data, ObjectGraphError>]
    {
        var outcomes: [StoredValueReference: Result<Data, ObjectGraphError>] = [:]
        for reference in references where outcomes[reference] == nil {
            outcomes[reference] = Result { () throws(ObjectGraphError) in try readExternalValue(reference) }
        }
        return outcomes
    }
}

/// The stores of this process that read ``StoredValueReference``s, by store UUID: how a reference in any context,
/// snapshot, undo record or save request finds the store that owns it. A store registers when it opens and is
/// held weakly, so a store that is gone simply stops answering. Two openings of one database (two coordinators)
/// share the UUID: the opening that made a reference reads it, and while that one is gone, another opening of the
/// same store does.
///
/// For store implementations (`@_spi(StoreImplementation) import ObjectGraph`); not a stable public API.
@_spi(StoreImplementation)
public enum ExternalValueReaders {
    private struct Entry: @unchecked Sendable {
        weak var reader: (any ExternalValueReading)?
        let opening: String
    }

    private static let readers = Locked([String: [Entry]]())

    /// Makes `reader` answer references to the store `identifier` (those it made as `opening` first).
    public static func register(_ reader: any ExternalValueReading, forStore identifier: String, opening: String) {
        readers.withLock { readers in
            var entries = readers[identifier, default: []].filter { $0.reader != nil }
            entries.append(Entry(reader: reader, opening: opening))
            readers[identifier] = entries
        }
    }

    /// Stops `reader` answering references to the store `identifier`.
    public static func unregister(_ reader: any ExternalValueReading, forStore identifier: String) {
        readers.withLock { readers in
            let entries = readers[identifier, default: []].filter { $0.reader != nil && $0.reader !== reader }
            readers[identifier] = entries.isEmpty ? nil : entries
        }
    }

    /// The bytes `reference` names, read by a registered store with its UUID.
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` when no such store is open, or the
    ///   store's own read error.
    static func read(_ reference: StoredValueReference) throws(ObjectGraphError) -> Data {
        guard let reader = reader(for: reference) else { throw noReader(reference) }
        return try reader.readExternalValue(reference)
    }

    /// The bytes of each of `references`, read by the stores that own them, a batch per store
    /// (``ExternalValueReading/readExternalValues(_:)``); each reference's outcome on its own, as ``read(_:)``
    /// throws it.
    static func read(_ references: [StoredValueReference]) -> [StoredValueReference: Result<Data, ObjectGraphError>] {
        var byReader: [ObjectIdentifier: (reader: any ExternalValueReading, references: [StoredValueReference])] = [:]
        var outcomes: [StoredValueReference: Result<Data, ObjectGraphError>] = [:]
        for reference in references {
            guard let reader = reader(for: reference) else {
                outcomes[reference] = .failure(noReader(reference))
                continue
            }
            byReader[ObjectIdentifier(reader), default: (reader, [])].references.append(reference)
        }
        for (reader, group) in byReader.values {
            outcomes.merge(reader.readExternalValues(group)) { first, _ in first }
        }
        return outcomes
    }

    /// The store that reads `reference`: the opening that made it, else another opening of its store.
    private static func reader(for reference: StoredValueReference) -> (any ExternalValueReading)? {
        readers.withLock { readers -> (any ExternalValueReading)? in
            let entries = readers[reference.storeIdentifier] ?? []
            return entries.first { $0.opening == reference.opening }?.reader ?? entries.last { $0.reader != nil }?.reader
        }
    }

    private static func noReader(_ reference: StoredValueReference) -> ObjectGraphError {
        .externalDataUnavailable(path: "store \(reference.storeIdentifier), \(reference)",
            reason: "no store with that UUID is open in this process any more (it was removed from its coordinator)")
    }
}

@_spi(StoreImplementation)
extension StoreSaveRequest {
    /// The request with every reference to a large value kept elsewhere (a file beside an SQLite store, another
    /// store's ``StoredValueReference``) in its inserts and updates replaced by the bytes, except the references
    /// `keep` accepts: what a store saves when it can only keep references it made itself.
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` when a value cannot be read.
    public func readingExternalValues(keeping keep: (StoredValueReference) -> Bool) throws(ObjectGraphError)
        -> StoreSaveRequest
    {
        try ExternalBinaryReference.inlined(self, keeping: keep)
    }
}
