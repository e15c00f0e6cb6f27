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
struct ExternalBinaryReference: Sendable, Hashable {
    /// The URL scheme that marks a reference.
    static let scheme = "x-objectgraph-external"

    /// The file holding the bytes.
    let fileURL: URL

    /// A reference to `fileURL`.
    init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The reference `value` holds, or nil when it is not one.
    init?(_ value: AttributeValue) {
        guard case .uri(let url) = value, url.scheme == Self.scheme else { return nil }
        self.init(fileURL: URL(fileURLWithPath: url.path))
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
        Self.attributeValue(encodedFolder: Self.encodedFolder(fileURL.deletingLastPathComponent()),
            fileName: fileURL.lastPathComponent) ?? .null
    }

    /// The file's name (a UUID).
    var fileName: String { fileURL.lastPathComponent }

    /// The file's size in bytes, from the file system (nothing is read); nil when the file is gone.
    var size: Int? { StoreFiles.size(of: fileURL) }

    /// Reads the bytes.
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` when the file is missing or unreadable.
    func read() throws(ObjectGraphError) -> Data {
        do {
            return try Data(contentsOf: fileURL)
        } catch {
            let missing = !FileManager.default.fileExists(atPath: fileURL.path)
            throw .externalDataUnavailable(path: fileURL.path,
                reason: missing ? "the file does not exist (deleted since the row was read?)" : "\(error)")
        }
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
    static func inlined(_ values: [AttributeValue], of entity: EntityDescription) throws(ObjectGraphError)
        -> [AttributeValue]
    {
        var result = values
        for index in entity.externalBinaryAttributeIndexes where index < values.count {
            if let reference = ExternalBinaryReference(values[index]) { result[index] = .binary(try reference.read()) }
        }
        return result
    }

    /// `request` with every external reference in its inserts and updates replaced by its bytes (see
    /// ``inlined(_:of:)``); returned as it is, without copying, when no value is a reference.
    static func inlined(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveRequest {
        func holdsReference(_ values: [AttributeValue], _ entity: EntityDescription) -> Bool {
            entity.externalBinaryAttributeIndexes.contains { $0 < values.count && ExternalBinaryReference(values[$0]) != nil }
        }
        guard request.inserts.contains(where: { holdsReference($0.values, $0.entity) })
            || request.updates.contains(where: { holdsReference($0.values, $0.entity) })
        else { return request }
        var result = request
        for (position, insert) in request.inserts.enumerated() where holdsReference(insert.values, insert.entity) {
            result.inserts[position] = StoreSaveRequest.Insert(temporaryID: insert.temporaryID, entity: insert.entity,
                values: try inlined(insert.values, of: insert.entity), toOne: insert.toOne,
                permanentID: insert.permanentID)
        }
        for (position, update) in request.updates.enumerated() where holdsReference(update.values, update.entity) {
            result.updates[position] = StoreSaveRequest.Update(objectID: update.objectID, entity: update.entity,
                values: try inlined(update.values, of: update.entity), expectedVersion: update.expectedVersion,
                toOne: update.toOne)
        }
        return result
    }
}
