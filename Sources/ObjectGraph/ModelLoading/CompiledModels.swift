import Foundation

/// Loading compiled Core Data models: a single `.mom` file (a keyed archive), a `.momd` folder (one `.mom` per
/// version and a `VersionInfo.plist` naming the current version and carrying Core Data's version hashes), and a
/// store's `Z_MODELCACHE`. Xcode 3's `elements` files are recognised and refused with a clear error.
enum CompiledModels {
    /// The largest `.mom` or `VersionInfo.plist` read.
    static let maximumFileBytes = 64 << 20

    /// `VersionInfo.plist` of a `.momd` folder.
    struct VersionInfo: Sendable, Hashable {
        /// `NSManagedObjectModel_CurrentVersionName`.
        var currentVersionName: String?
        /// `NSManagedObjectModel_VersionHashes`: per version, per entity, Core Data's 32-byte version hash.
        var versionHashes: [String: [String: Data]]
    }

    /// Whether `url` is a compiled model: a `.mom` file, or a `.momd` folder (or a folder holding `.mom` files
    /// and a `VersionInfo.plist`).
    static func isCompiled(_ url: URL, isDirectory: Bool) -> Bool {
        if isDirectory {
            return url.pathExtension == "momd"
                || FileManager.default.fileExists(atPath: url.appendingPathComponent("VersionInfo.plist").path)
        }
        return url.pathExtension == "mom"
    }

    /// Loads the `.mom` file at `url`.
    static func loadMom(
        _ url: URL, versionName: String?, hashes: [String: Data]?, bundleURL: URL?, classes: [ManagedObject.Type]
    ) throws(ModelLoadError) -> ManagedObjectModel {
        let data = try ModelFileReading.read(url, limit: maximumFileBytes)
        let model = try decode(data, source: url.path, versionName: versionName, classes: classes)
        guard hashes != nil || bundleURL != nil else { return model }
        return ManagedObjectModel(copying: model, bundleURL: bundleURL, compiledEntityVersionHashes: hashes)
    }

    /// Decodes the keyed archive of a compiled model.
    static func decode(_ data: Data, source: String, versionName: String?, classes: [ManagedObject.Type])
        throws(ModelLoadError) -> ManagedObjectModel
    {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: data)
        } catch {
            throw ModelLoadError(file: source, reason: .notAModel("a compiled model must be a keyed archive, and "
                + error.message))
        }
        return try CompiledModelDecoder(archive: archive, source: source).decode(versionName: versionName,
            classes: classes)
    }

    /// The `.mom` version names in the `.momd` folder `url`.
    static func versionNames(in url: URL) throws(ModelLoadError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw ModelLoadError(file: url.path, reason: .unreadable(error.localizedDescription))
        }
        return names.filter { $0.hasSuffix(".mom") && !$0.hasPrefix(".") }.map { String($0.dropLast(4)) }
    }

    /// Reads `VersionInfo.plist` in the `.momd` folder `url`; an empty value when there is none.
    static func versionInfo(in url: URL) throws(ModelLoadError) -> VersionInfo {
        let file = url.appendingPathComponent("VersionInfo.plist")
        guard FileManager.default.fileExists(atPath: file.path) else { return VersionInfo(versionHashes: [:]) }
        let data = try ModelFileReading.read(file, limit: maximumFileBytes)
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw ModelLoadError(file: file.path, reason: .notAModel("VersionInfo.plist is not a property list"))
        }
        guard let top = plist as? [String: Any] else {
            throw ModelLoadError(file: file.path, reason: .notAModel("VersionInfo.plist is not a dictionary"))
        }
        var hashes: [String: [String: Data]] = [:]
        for (version, entities) in top["NSManagedObjectModel_VersionHashes"] as? [String: Any] ?? [:] {
            var perEntity: [String: Data] = [:]
            for (entity, hash) in entities as? [String: Any] ?? [:] {
                if let bytes = hash as? Data { perEntity[entity] = bytes }
            }
            hashes[version] = perEntity
        }
        return VersionInfo(currentVersionName: top["NSManagedObjectModel_CurrentVersionName"] as? String,
            versionHashes: hashes)
    }

    /// The error for an Xcode 3 model folder (binary `elements` and `layout` files): loaded when `elements` is a
    /// keyed archive of a Core Data model, otherwise explained.
    static func loadXcode3(_ folder: URL, versionName: String?, classes: [ManagedObject.Type]) throws(ModelLoadError)
        -> ManagedObjectModel
    {
        let elements = folder.appendingPathComponent("elements")
        guard FileManager.default.fileExists(atPath: elements.path) else {
            throw ModelLoadError(file: folder.path, reason: .notAModel("the folder has no contents file"))
        }
        let data = try ModelFileReading.read(elements, limit: maximumFileBytes)
        if let archive = try? KeyedArchive(data: data), let root = archive.root,
            root.classes.contains("NSManagedObjectModel") || root.className == "NSManagedObjectModel"
        {
            return try CompiledModelDecoder(archive: archive, source: elements.path).decode(versionName: versionName,
                classes: classes)
        }
        throw ModelLoadError(file: elements.path, reason: .notAModel("this is a model last saved by Xcode 3: its "
            + "elements file is an archive of Xcode's own design classes, not of a Core Data model. Open the model "
            + "in a newer Xcode and save it (that writes a contents XML file), or load its compiled .mom/.momd"))
    }
}

extension ManagedObjectModel {
    /// Loads a compiled model from the bytes of a `.mom` file (a keyed archive), as ``load(contentsOf:classes:)``
    /// loads one from a file.
    ///
    /// - Throws: ``ModelLoadError`` naming `source` when the bytes are not a keyed archive of a Core Data model or
    ///   the model contradicts itself. Bad input never crashes.
    public static func load(compiled data: Data, source: String, classes: [ManagedObject.Type] = [])
        throws(ModelLoadError) -> ManagedObjectModel
    {
        guard data.count <= CompiledModels.maximumFileBytes else {
            throw ModelLoadError(file: source, reason: .tooLarge("\(data.count) bytes"))
        }
        return try CompiledModels.decode(data, source: source, versionName: nil, classes: classes)
    }
}
