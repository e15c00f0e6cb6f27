import Foundation

/// Writing the metadata of a store another framework wrote (Core Data): its own keys stay exactly as the store
/// has them — `NSStoreModelVersionHashes`, `NSStoreModelVersionIdentifiers`, `NSStoreModelVersionHashesDigest`,
/// `NSStoreModelVersionChecksumKey`, `NSPersistenceFrameworkVersion`, `_NSAutoVacuumLevel`, and any `NS…` or
/// `_NS…` key we do not know — and only the app's keys (``StoreMetadata/userInfo``) change, so that Core Data
/// finds its store as it left it.
enum ForeignStoreMetadata {
    /// Whether `key` is the framework's (kept as the store has it) rather than the app's.
    static func isFrameworkKey(_ key: String) -> Bool {
        key.hasPrefix("NS") || key.hasPrefix("_NS") || StoreMetadata.systemKeys.contains(key)
    }

    /// The property list `original` with its app keys replaced by `userInfo`'s app keys, or nil when that
    /// changes nothing (the file is then not written at all).
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when `original` is not a dictionary.
    static func merged(_ original: Data, userInfo: [String: MetadataValue], path: String) throws -> Data? {
        guard let dictionary = try? PropertyListSerialization.propertyList(from: original, format: nil) as? [String: Any]
        else { throw ObjectGraphError.notAnObjectGraphStore(path: path, reason: "its Z_METADATA plist is unreadable") }
        let oldAppKeys = dictionary.filter { !isFrameworkKey($0.key) }
        let newAppKeys = userInfo.filter { !isFrameworkKey($0.key) }
        let unchanged = oldAppKeys.count == newAppKeys.count && oldAppKeys.allSatisfy { key, value in
            MetadataValue(propertyListObject: value).map { newAppKeys[key] == $0 } ?? false
        }
        if unchanged { return nil }
        var result = dictionary.filter { isFrameworkKey($0.key) }
        for (key, value) in newAppKeys { result[key] = value.propertyListObject }
        return try PropertyListSerialization.data(fromPropertyList: result, format: .binary, options: 0)
    }
}
