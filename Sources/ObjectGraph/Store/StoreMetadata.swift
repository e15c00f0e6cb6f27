import Foundation

/// What a store says about itself: the counterpart of Core Data's store metadata dictionary
/// (`NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes`, …), read without opening the store for use.
public struct StoreMetadata: Sendable, Hashable {
    /// `"SQLite"` or `"InMemory"`.
    public var storeType: String
    /// The store's UUID.
    public var storeUUID: String
    /// The entity version hashes of the model the store was written for, by entity name.
    public var entityVersionHashes: [String: Data]
    /// The version identifiers of that model.
    public var versionIdentifiers: [String]
    /// The framework version that wrote the store.
    public var frameworkVersion: Int
    /// The name of the model version the store was last written (created or migrated) with (`People 2`), when
    /// that model came from a versioned bundle; kept under the key `ObjectGraphModelVersionName`. The version
    /// hashes, not this name, decide compatibility.
    public var modelVersionName: String?
    /// The app's own keys (Core Data's custom metadata keys), kept in the same property list as the system
    /// keys above; set them with ``PersistentStoreCoordinator/setMetadata(_:for:)``. Keys the framework does
    /// not know when reading a store (including ones another framework wrote) land here and are kept.
    public var userInfo: [String: MetadataValue]

    /// Creates metadata.
    public init(
        storeType: String, storeUUID: String, entityVersionHashes: [String: Data], versionIdentifiers: [String] = [],
        frameworkVersion: Int = StoreMetadata.objectGraphFrameworkVersion, userInfo: [String: MetadataValue] = [:], modelVersionName: String? = nil
    ) {
        self.modelVersionName = modelVersionName
        self.storeType = storeType
        self.storeUUID = storeUUID
        self.entityVersionHashes = entityVersionHashes
        self.versionIdentifiers = versionIdentifiers
        self.frameworkVersion = frameworkVersion
        self.userInfo = userInfo
    }

    /// The property-list keys the framework writes itself; every other key is ``userInfo``.
    static let systemKeys: Set<String> = [
        "NSStoreType", "NSStoreUUID", "NSPersistenceFrameworkVersion", "NSStoreModelVersionHashes",
        "NSStoreModelVersionHashesVersion", "NSStoreModelVersionIdentifiers", "_NSAutoVacuumLevel",
        "ObjectGraphModelVersionName",
    ]

    /// The `NSPersistenceFrameworkVersion` every ObjectGraph version writes. Core Data writes its own build
    /// number there (241 in 2009's stores, 1344 in 2023's), never a number this small.
    public static let objectGraphFrameworkVersion = 1

    /// Who wrote the store, as ``frameworkVersion`` says: ObjectGraph keeps a store of its own in its own way
    /// (WAL journal, its indexes); a store Core Data (or anything else) wrote is kept as it is.
    public var writer: StoreWriter {
        switch frameworkVersion {
        case Self.objectGraphFrameworkVersion: .objectGraph
        case 0: .unknown
        default: .coreData(frameworkVersion: frameworkVersion)
        }
    }

    /// The version hash of the model the store was written for (see ``ManagedObjectModel/versionHash``).
    public var modelVersionHash: Data { ManagedObjectModel.versionHash(ofEntityHashes: entityVersionHashes) }

    /// The binary property list kept in `Z_METADATA.Z_PLIST` (the UUID lives in `Z_UUID`, as in Core Data): how
    /// any store may keep its metadata.
    public func propertyList() throws -> Data {
        var dictionary: [String: Any] = [:]
        for (key, value) in userInfo where !Self.systemKeys.contains(key) { dictionary[key] = value.propertyListObject }
        dictionary["NSStoreType"] = storeType
        dictionary["NSPersistenceFrameworkVersion"] = frameworkVersion
        dictionary["NSStoreModelVersionHashes"] = entityVersionHashes
        dictionary["NSStoreModelVersionHashesVersion"] = 3
        dictionary["NSStoreModelVersionIdentifiers"] = versionIdentifiers
        dictionary["_NSAutoVacuumLevel"] = "2"
        if let modelVersionName { dictionary["ObjectGraphModelVersionName"] = modelVersionName }
        return try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
    }

    /// Reads the property list of `Z_METADATA` (``propertyList()``); nil when it is not a dictionary.
    public init?(propertyList data: Data, storeUUID: String) {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil),
            let dictionary = plist as? [String: Any]
        else { return nil }
        self.storeUUID = storeUUID
        storeType = dictionary["NSStoreType"] as? String ?? "SQLite"
        entityVersionHashes = dictionary["NSStoreModelVersionHashes"] as? [String: Data] ?? [:]
        versionIdentifiers = dictionary["NSStoreModelVersionIdentifiers"] as? [String] ?? []
        frameworkVersion = dictionary["NSPersistenceFrameworkVersion"] as? Int ?? 0
        modelVersionName = dictionary["ObjectGraphModelVersionName"] as? String
        var userInfo: [String: MetadataValue] = [:]
        for (key, value) in dictionary where !Self.systemKeys.contains(key) {
            if let converted = MetadataValue(propertyListObject: value) { userInfo[key] = converted }
        }
        self.userInfo = userInfo
    }
}

/// Who wrote a store (``StoreMetadata/writer``).
public enum StoreWriter: Sendable, Hashable, CustomStringConvertible {
    /// ObjectGraph created the store (`NSPersistenceFrameworkVersion` 1).
    case objectGraph
    /// Core Data wrote it, with this `NSPersistenceFrameworkVersion` (for example 1344).
    case coreData(frameworkVersion: Int)
    /// The metadata names no framework version.
    case unknown

    /// "written by ObjectGraph", "written by Core Data (framework version 1344)", or "written by an unknown framework".
    public var description: String {
        switch self {
        case .objectGraph: "written by ObjectGraph"
        case .coreData(let version): "written by Core Data (framework version \(version))"
        case .unknown: "written by an unknown framework (no NSPersistenceFrameworkVersion)"
        }
    }
}
