import Foundation

extension ManagedObjectModel {
    /// Loads a model from an Xcode model file, as Core Data loads a compiled `.momd`.
    ///
    /// `url` may be an `.xcdatamodeld` bundle (its current version is loaded, see ``ModelBundle``), one
    /// `.xcdatamodel` version folder, or the `contents` XML file inside one — or a compiled model: a `.momd`
    /// folder (its current version, with Core Data's version hashes from `VersionInfo.plist`, see
    /// ``compiledEntityVersionHashes``) or a single `.mom` file. The model's
    /// ``versionName`` is the version folder's name without its extension (`People 2`).
    ///
    /// - Parameters:
    ///   - url: the bundle, version folder or `contents` file.
    ///   - classes: subclasses to instantiate, matched by the entity's `representedClassName` (its last
    ///     part, so `.Person` and `App.Person` both match `Person`) or by ``ManagedObject/entityName``.
    /// - Throws: ``ModelLoadError`` with the file, line and column at fault. Bad input never crashes:
    ///   malformed XML, invalid UTF-8, unknown types, inconsistent models and oversized files all come back
    ///   as errors.
    public static func load(contentsOf url: URL, classes: [ManagedObject.Type] = []) throws(ModelLoadError)
        -> ManagedObjectModel
    {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ModelLoadError(file: path, reason: .unreadable("no such file or folder"))
        }
        if CompiledModels.isCompiled(url, isDirectory: isDirectory.boolValue) {
            if isDirectory.boolValue { return try ModelBundle(contentsOf: url).currentModel(classes: classes) }
            return try CompiledModels.loadMom(url, versionName: url.deletingPathExtension().lastPathComponent,
                hashes: nil, bundleURL: nil, classes: classes)
        }
        guard isDirectory.boolValue else {
            let folder = url.deletingLastPathComponent()
            let versionName =
                folder.pathExtension == "xcdatamodel" ? folder.deletingPathExtension().lastPathComponent : nil
            return try load(file: url, versionName: versionName, classes: classes)
        }
        let contents = url.appendingPathComponent("contents")
        var contentsIsDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: contents.path, isDirectory: &contentsIsDirectory),
            !contentsIsDirectory.boolValue
        {
            let versionName = url.pathExtension == "xcdatamodel" ? url.deletingPathExtension().lastPathComponent : nil
            return try load(file: contents, versionName: versionName, classes: classes)
        }
        if url.pathExtension == "xcdatamodel" {
            return try CompiledModels.loadXcode3(url, versionName: url.deletingPathExtension().lastPathComponent,
                classes: classes)
        }
        return try ModelBundle(contentsOf: url).currentModel(classes: classes)
    }

    /// Loads a model from the XML of a `contents` file.
    ///
    /// - Parameters:
    ///   - xml: the bytes of the file (UTF-8; at most 16 MiB).
    ///   - source: the name to use in errors, usually the file's path.
    ///   - classes: subclasses to instantiate, as for ``load(contentsOf:classes:)``.
    /// - Throws: ``ModelLoadError`` naming `source`, with line and column where known.
    public static func load(xml: Data, source: String, classes: [ManagedObject.Type] = []) throws(ModelLoadError)
        -> ManagedObjectModel
    {
        try load(xml: xml, source: source, versionName: nil, classes: classes)
    }

    /// Loads the model in `xml`, giving it `versionName`.
    static func load(xml: Data, source: String, versionName: String?, classes: [ManagedObject.Type])
        throws(ModelLoadError) -> ManagedObjectModel
    {
        let root: XMLTreeElement
        do {
            root = try XMLTreeReader.read(xml)
        } catch {
            throw ModelLoadError(file: source, line: error.line, column: error.column,
                reason: error.kind == .tooLarge ? .tooLarge(error.message) : .malformedXML(error.message))
        }
        var decoder = ModelContentsDecoder(source: source)
        return try decoder.decode(root, versionName: versionName, classes: classes)
    }

    /// Reads and loads the `contents` file at `url`.
    static func load(file url: URL, versionName: String?, classes: [ManagedObject.Type]) throws(ModelLoadError)
        -> ManagedObjectModel
    {
        let data = try ModelFileReading.read(url, limit: XMLTreeReader.Limits().maxBytes)
        return try load(xml: data, source: url.path, versionName: versionName, classes: classes)
    }
}

/// Reads model files from disk within a size limit.
enum ModelFileReading {
    /// The bytes of the regular file at `url`, refusing anything larger than `limit` (and devices, pipes and
    /// folders, which could block or never end).
    static func read(_ url: URL, limit: Int) throws(ModelLoadError) -> Data {
        let path = url.path
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw ModelLoadError(file: path, reason: .unreadable(error.localizedDescription))
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw ModelLoadError(file: path, reason: .unreadable("not a regular file"))
        }
        if let size = (attributes[.size] as? NSNumber)?.intValue, size > limit {
            throw ModelLoadError(file: path,
                reason: .tooLarge("the file has \(size) bytes; at most \(limit) are accepted"))
        }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else {
                throw ModelLoadError(file: path, reason: .tooLarge("the file has more than \(limit) bytes"))
            }
            return data
        } catch let error as ModelLoadError {
            throw error
        } catch {
            throw ModelLoadError(file: path, reason: .unreadable(error.localizedDescription))
        }
    }
}
