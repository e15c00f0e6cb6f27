import Foundation

/// A saved value of an external-storage attribute that lives in a file of the store's `_EXTERNAL_DATA` folder
/// and has not been read: what a fetch puts in the row snapshot instead of the bytes, so that fetching an object
/// (or a thousand) reads no file, and the file is read only when the attribute is (``ManagedObject``).
///
/// Inside the framework such a reference travels in the attribute's value slot as ``AttributeValue/uri(_:)``,
/// with the scheme `x-objectgraph-external` and the file's absolute path:
/// `x-objectgraph-external:/…/.People_SUPPORT/_EXTERNAL_DATA/<UUID>`. A Binary or Transformable attribute never
/// accepts a URL from the app (``ManagedObject/setValue(_:forKey:)`` traps), so in the slot of such an attribute
/// a `.uri` can only be a reference; every public accessor hands out the bytes instead. Being a plain value, the
/// reference is `Sendable` and can be copied into snapshots, undo records, save requests and other contexts on
/// other threads; reading it only opens a file, so it is safe from any thread.
///
/// Files are never rewritten: a new value always gets a new file, so two equal references always name the same
/// bytes, and an unchanged value saved again keeps its file.
///
/// A store that keeps large values on a server (PostgreSQL) puts a ``StoredValueReference`` in the slot instead
/// (scheme `x-objectgraph-stored`); this type reads both kinds, the latter through the store that owns it.
struct ExternalBinaryReference: Sendable, Hashable {
    /// Where the bytes are.
    enum Location: Sendable, Hashable {
        /// A file of an SQLite store's `_EXTERNAL_DATA` folder.
        case file(URL)
        /// A value a store keeps on a server, read through the store (see ``StoredValueReference``).
        case stored(StoredValueReference)
    }

    /// The URL scheme that marks a reference to a file.
    static let scheme = "x-objectgraph-external"

    /// Where the bytes are.
    let location: Location

    /// A reference to `fileURL`.
    init(fileURL: URL) {
        location = .file(fileURL)
    }

    /// A reference to a value a store keeps.
    init(stored: StoredValueReference) {
        location = .stored(stored)
    }

    /// The reference `value` holds (to a file or to a store's value), or nil when it is not one.
    init?(_ value: AttributeValue) {
        guard case .uri(let url) = value else { return nil }
        if url.scheme == Self.scheme {
            self.init(fileURL: URL(fileURLWithPath: url.path))
        } else if let stored = StoredValueReference(url: url) {
            self.init(stored: stored)
        } else {
            return nil
        }
    }

    /// The reference to the file `fileName` of the folder whose ``encodedFolder(_:)`` is `encodedFolder`, as it
    /// travels in a value slot; built without parsing the folder's path again (a fetch builds one per row).
    static func attributeValue(encodedFolder: String, fileName: String) -> AttributeValue? {
        URL(string: encodedFolder + fileName).map(AttributeValue.uri)
    }

    /// `scheme:` + the percent-encoded absolute path of `folder`, ending in `/`: the fixed start of every
    /// reference to a file in it.
    static func encodedFolder(_ folder: URL) -> String {
        let path = folder.path.hasSuffix("/") ? folder.path : folder.path + "/"
        return scheme + ":" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)
    }

    /// The reference as a value slot holds it.
    var attributeValue: AttributeValue {
        switch location {
        case .file(let fileURL):
            Self.attributeValue(encodedFolder: Self.encodedFolder(fileURL.deletingLastPathComponent()),
                fileName: fileURL.lastPathComponent) ?? .null
        case .stored(let stored):
            stored.attributeValue
        }
    }

    /// The file holding the bytes; nil for a store's value.
    var fileURL: URL? {
        guard case .file(let url) = location else { return nil }
        return url
    }

    /// The file's name (a UUID); nil for a store's value.
    var fileName: String? { fileURL?.lastPathComponent }

    /// The value's size in bytes without reading it: a file's from the file system (nil when the file is gone), a
    /// store's value's from the reference.
    var size: Int? {
        switch location {
        case .file(let fileURL): StoreFiles.size(of: fileURL)
        case .stored(let stored): stored.byteCount
        }
    }

    /// Reads the bytes: from the file, or through the store that holds the value (``ExternalValueReaders``).
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` when the file is missing or unreadable,
    ///   or the store cannot give the value (replaced or deleted since, the store closed or unreachable).
    func read() throws(ObjectGraphError) -> Data {
        switch location {
        case .file(let fileURL):
            do {
                return try Data(contentsOf: fileURL)
            } catch {
                let missing = !FileManager.default.fileExists(atPath: fileURL.path)
                throw .externalDataUnavailable(path: fileURL.path,
                    reason: missing ? "the file does not exist (deleted since the row was read?)" : "\(error)")
            }
        case .stored(let stored):
            return try ExternalValueReaders.read(stored)
        }
    }

    /// Reads the bytes as ``read()`` does, taking a store's value from `prefetched` when it was read there.
    func read(prefetched: [StoredValueReference: Result<Data, ObjectGraphError>]) throws(ObjectGraphError) -> Data {
        if case .stored(let stored) = location, let outcome = prefetched[stored] { return try outcome.get() }
        return try read()
    }
}

extension AttributeDescription {
    /// Whether values of this attribute may live in files beside an SQLite store: a stored Binary or
    /// Transformable attribute with ``allowsExternalBinaryDataStorage``.
    var storesBinaryExternally: Bool {
        allowsExternalBinaryDataStorage && !isTransient && (attributeType == .binary || attributeType == .transformable)
    }
}

extension ExternalBinaryReference {
    /// `values` (of `entity`, in attribute order) with every external reference replaced by the bytes it names:
    /// what stores that keep everything inline (in-memory, and copies into them) store.
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` when a file cannot be read.
    /// Values of stores read beforehand (``prefetch(_:keeping:)``) are taken from `prefetched`.
    static func inlined(_ values: [AttributeValue], of entity: EntityDescription,
        keeping keep: (StoredValueReference) -> Bool = { _ in false },
        prefetched: [StoredValueReference: Result<Data, ObjectGraphError>] = [:]) throws(ObjectGraphError)
        -> [AttributeValue]
    {
        var result = values
        for index in entity.externalBinaryAttributeIndexes where index < values.count {
            if let reference = ExternalBinaryReference(values[index]), !reference.isKept(by: keep) {
                result[index] = .binary(try reference.read(prefetched: prefetched))
            }
        }
        return result
    }

    /// The bytes of every store's value referenced among `rows` (values of an entity each) that `keep` does not
    /// keep, read a batch per store (``ExternalValueReaders/read(_:)``) rather than a round trip per value: what
    /// ``inlined(_:of:keeping:prefetched:)`` then takes. Each reference's outcome is its own, so a value that
    /// cannot be read still fails naming itself when it is inlined.
    static func prefetch(_ rows: [(values: [AttributeValue], entity: EntityDescription)],
        keeping keep: (StoredValueReference) -> Bool = { _ in false })
        -> [StoredValueReference: Result<Data, ObjectGraphError>]
    {
        var references: [StoredValueReference] = []
        for (values, entity) in rows {
            for index in entity.externalBinaryAttributeIndexes where index < values.count {
                if let stored = StoredValueReference(values[index]), !keep(stored) { references.append(stored) }
            }
        }
        return references.isEmpty ? [:] : ExternalValueReaders.read(references)
    }

    /// Whether `keep` keeps this reference (a store's value it accepts; never a file).
    func isKept(by keep: (StoredValueReference) -> Bool) -> Bool {
        guard case .stored(let stored) = location else { return false }
        return keep(stored)
    }

    /// `request` with every external reference in its inserts and updates replaced by its bytes (see
    /// ``inlined(_:of:)``); returned as it is, without copying, when no value is a reference.
    static func inlined(_ request: StoreSaveRequest, keeping keep: (StoredValueReference) -> Bool = { _ in false })
        throws(ObjectGraphError) -> StoreSaveRequest
    {
        func holdsReference(_ values: [AttributeValue], _ entity: EntityDescription) -> Bool {
            entity.externalBinaryAttributeIndexes.contains {
                $0 < values.count && ExternalBinaryReference(values[$0]).map { !$0.isKept(by: keep) } == true
            }
        }
        guard request.inserts.contains(where: { holdsReference($0.values, $0.entity) })
            || request.updates.contains(where: { holdsReference($0.values, $0.entity) })
        else { return request }
        let rows = request.inserts.map { ($0.values, $0.entity) } + request.updates.map { ($0.values, $0.entity) }
        let prefetched = prefetch(rows, keeping: keep)
        var result = request
        for (position, insert) in request.inserts.enumerated() where holdsReference(insert.values, insert.entity) {
            result.inserts[position] = StoreSaveRequest.Insert(temporaryID: insert.temporaryID, entity: insert.entity,
                values: try inlined(insert.values, of: insert.entity, keeping: keep, prefetched: prefetched),
                toOne: insert.toOne, permanentID: insert.permanentID)
        }
        for (position, update) in request.updates.enumerated() where holdsReference(update.values, update.entity) {
            result.updates[position] = StoreSaveRequest.Update(objectID: update.objectID, entity: update.entity,
                values: try inlined(update.values, of: update.entity, keeping: keep, prefetched: prefetched),
                expectedVersion: update.expectedVersion,
                toOne: update.toOne)
        }
        return result
    }
}
