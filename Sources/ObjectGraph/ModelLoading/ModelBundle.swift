import Foundation

/// A versioned Xcode model (`Name.xcdatamodeld`) or a compiled one (`Name.momd`): its versions and which one is
/// current.
///
/// Xcode keeps one `Version.xcdatamodel` folder per model version and names the current one in a
/// property list, `.xccurrentversion`, under `_XCCurrentVersionName`. Its model compiler writes one `Version.mom`
/// per version into a `.momd` folder, with a `VersionInfo.plist` naming the current version and carrying Core
/// Data's entity version hashes for each, which the loaded models keep
/// (``ManagedObjectModel/compiledEntityVersionHashes``). Migration needs the older versions
/// as well as the current one, so the bundle lists them all and loads any of them.
public struct ModelBundle: Sendable, Hashable {
    /// The bundle folder.
    public let url: URL
    /// The versions' names (folder names without `.xcdatamodel`), oldest first: sorted by name, with runs
    /// of digits compared by value, so `Model 10` comes after `Model 9`.
    public let versionNames: [String]
    /// The version `.xccurrentversion` names; when that file is missing, empty or names no version, the last
    /// of ``versionNames``.
    public let currentVersionName: String

    /// The largest `.xccurrentversion` accepted (Xcode's is a few hundred bytes).
    private static let currentVersionFileLimit = 1 << 20
    /// For a compiled bundle (`.momd`): its `VersionInfo.plist` (Core Data's version hashes per version); nil for
    /// an `.xcdatamodeld` source bundle.
    let compiledVersionInfo: CompiledModels.VersionInfo?

    /// Whether the bundle is compiled (`.momd`: `.mom` files) rather than Xcode source (`.xcdatamodeld`).
    public var isCompiled: Bool { compiledVersionInfo != nil }

    /// Reads the bundle's version list and current version.
    ///
    /// - Throws: ``ModelLoadError`` when the folder cannot be read or holds no `.xcdatamodel` version, when
    ///   `.xccurrentversion` is malformed, or when it names a version the bundle does not have.
    public init(contentsOf url: URL) throws(ModelLoadError) {
        self.url = url
        if CompiledModels.isCompiled(url, isDirectory: true) {
            let info = try CompiledModels.versionInfo(in: url)
            versionNames = try CompiledModels.versionNames(in: url).sorted(by: Self.versionOrder)
            guard let last = versionNames.last else {
                throw ModelLoadError(file: url.path, reason: .notAModel("the folder holds no .mom version"))
            }
            if let named = info.currentVersionName, !versionNames.contains(named) {
                throw ModelLoadError(file: url.appendingPathComponent("VersionInfo.plist").path,
                    reason: .unknownVersion(named))
            }
            currentVersionName = info.currentVersionName ?? last
            compiledVersionInfo = info
            return
        }
        compiledVersionInfo = nil
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw ModelLoadError(file: url.path, reason: .unreadable(error.localizedDescription))
        }
        var versions: [String] = []
        for name in names where name.hasSuffix(".xcdatamodel") && !name.hasPrefix(".") {
            var isDirectory: ObjCBool = false
            let path = url.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                versions.append(String(name.dropLast(".xcdatamodel".count)))
            }
        }
        versionNames = versions.sorted(by: Self.versionOrder)
        guard let last = versionNames.last else {
            throw ModelLoadError(file: url.path, reason: .notAModel("the folder holds no .xcdatamodel version"))
        }
        let named = try Self.currentVersionName(in: url)
        if let named, !versionNames.contains(named) {
            throw ModelLoadError(file: url.appendingPathComponent(".xccurrentversion").path,
                reason: .unknownVersion(named))
        }
        currentVersionName = named ?? last
    }

    /// The folder of version `name` (with or without `.xcdatamodel`), if the bundle has it.
    public func url(ofVersion name: String) -> URL? {
        let suffix = isCompiled ? ".mom" : ".xcdatamodel"
        let bare = name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : name
        guard versionNames.contains(bare) else { return nil }
        return url.appendingPathComponent(bare + suffix)
    }

    /// Loads version `name` (with or without `.xcdatamodel`).
    ///
    /// - Throws: ``ModelLoadError/Reason/unknownVersion(_:)`` when the bundle has no such version, or any
    ///   error from loading it.
    public func model(named name: String, classes: [ManagedObject.Type] = []) throws(ModelLoadError)
        -> ManagedObjectModel
    {
        guard let folder = url(ofVersion: name) else {
            throw ModelLoadError(file: url.path, reason: .unknownVersion(name))
        }
        let versionName = folder.deletingPathExtension().lastPathComponent
        if let info = compiledVersionInfo {
            return try CompiledModels.loadMom(folder, versionName: versionName, hashes: info.versionHashes[versionName],
                bundleURL: url, classes: classes)
        }
        let contents = folder.appendingPathComponent("contents")
        guard FileManager.default.fileExists(atPath: contents.path) else {
            let model = try CompiledModels.loadXcode3(folder, versionName: versionName, classes: classes)
            return ManagedObjectModel(copying: model, bundleURL: url)
        }
        let model = try ManagedObjectModel.load(file: contents, versionName: versionName, classes: classes)
        return ManagedObjectModel(copying: model, bundleURL: url)
    }

    /// Loads the current version.
    public func currentModel(classes: [ManagedObject.Type] = []) throws(ModelLoadError) -> ManagedObjectModel {
        try model(named: currentVersionName, classes: classes)
    }

    /// The version `.xccurrentversion` names, without `.xcdatamodel`; nil when the file is missing or empty,
    /// or names nothing.
    private static func currentVersionName(in bundle: URL) throws(ModelLoadError) -> String? {
        let file = bundle.appendingPathComponent(".xccurrentversion")
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let data = try ModelFileReading.read(file, limit: currentVersionFileLimit)
        guard !String(decoding: data, as: UTF8.self).trimmingXMLSpace().isEmpty else { return nil }
        guard !data.starts(with: Array("bplist".utf8)) else {
            throw ModelLoadError(file: file.path, reason: .malformedXML("binary property lists are not supported"))
        }
        let root: XMLTreeElement
        do {
            root = try XMLTreeReader.read(data, allowsDocumentType: true)
        } catch {
            throw ModelLoadError(file: file.path, line: error.line, column: error.column,
                reason: error.kind == .tooLarge ? .tooLarge(error.message) : .malformedXML(error.message))
        }
        guard root.name == "plist", let dictionary = root.children.first, dictionary.name == "dict" else {
            throw ModelLoadError(file: file.path, line: root.line > 0 ? root.line : nil,
                reason: .malformedXML("expected a property list holding a dictionary"))
        }
        let entries = dictionary.children
        guard let keyIndex = entries.firstIndex(where: { $0.name == "key" && $0.text == "_XCCurrentVersionName" })
        else { return nil }
        guard keyIndex + 1 < entries.count, entries[keyIndex + 1].name == "string" else {
            let line = entries[keyIndex].line
            throw ModelLoadError(file: file.path, line: line > 0 ? line : nil,
                reason: .malformedXML("_XCCurrentVersionName is not followed by a <string>"))
        }
        var name = entries[keyIndex + 1].text.trimmingXMLSpace()
        if name.hasSuffix(".xcdatamodel") { name.removeLast(".xcdatamodel".count) }
        return name.isEmpty ? nil : name
    }

    /// Orders version names by their text, comparing runs of digits by value (`Model 9` < `Model 10`).
    static func versionOrder(_ lhs: String, _ rhs: String) -> Bool {
        let left = chunks(lhs)
        let right = chunks(rhs)
        for (a, b) in zip(left, right) where a != b {
            if a.isNumber, b.isNumber {
                let x = a.text.drop(while: { $0 == "0" })
                let y = b.text.drop(while: { $0 == "0" })
                if x.count != y.count { return x.count < y.count }
                if x != y { return x < y }
                continue
            }
            return a.text < b.text
        }
        if left.count != right.count { return left.count < right.count }
        return lhs < rhs
    }

    /// `name` cut into runs of digits and runs of other characters.
    private static func chunks(_ name: String) -> [(text: Substring, isNumber: Bool)] {
        var result: [(text: Substring, isNumber: Bool)] = []
        var start = name.startIndex
        while start < name.endIndex {
            let isNumber = name[start].isASCIIDigit
            let end = name[start...].firstIndex { $0.isASCIIDigit != isNumber } ?? name.endIndex
            result.append((name[start..<end], isNumber))
            start = end
        }
        return result
    }
}

extension Character {
    /// Whether the character is one of `0`–`9`.
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber && ("0"..."9").contains(self) }
}
