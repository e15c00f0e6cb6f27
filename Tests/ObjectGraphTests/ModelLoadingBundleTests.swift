import Foundation
import Testing

@testable import ObjectGraph

/// Writes an `.xcdatamodeld` bundle with one version per name (each with one entity named after it, spaces
/// removed) and, when given, an `.xccurrentversion` file with `currentVersion` as its whole text.
private func writeBundle(in directory: TemporaryDirectory, versions: [String], currentVersion: String?) throws -> URL {
    let bundle = directory.file("People.xcdatamodeld")
    for version in versions {
        let folder = bundle.appendingPathComponent(version + ".xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let entity = version.replacingOccurrences(of: " ", with: "")
        try Data(modelXML("<entity name=\"\(entity)\"/>", identifier: version).utf8)
            .write(to: folder.appendingPathComponent("contents"))
    }
    if let currentVersion {
        try Data(currentVersion.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
    }
    return bundle
}

/// `.xccurrentversion` as Xcode writes it.
private func currentVersionPlist(_ name: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \t<key>_XCCurrentVersionName</key>
    \t<string>\(name)</string>
    </dict>
    </plist>
    """
}

@Suite struct ModelLoadingBundleTests {
    @Test func currentVersionNamedInXCCurrentVersion() throws {
        let directory = TemporaryDirectory()
        let url = try writeBundle(in: directory, versions: ["People", "People 2", "People 3"],
            currentVersion: currentVersionPlist("People 2.xcdatamodel"))
        let bundle = try ModelBundle(contentsOf: url)
        #expect(bundle.versionNames == ["People", "People 2", "People 3"])
        #expect(bundle.currentVersionName == "People 2")
        let model = try ManagedObjectModel.load(contentsOf: url)
        #expect(model.versionName == "People 2")
        #expect(model.entities.map(\.name) == ["People2"])
        #expect(model.versionIdentifiers == ["People 2"])
    }

    @Test func emptyXCCurrentVersionMeansTheLastVersionByName() throws {
        let directory = TemporaryDirectory()
        let url = try writeBundle(in: directory, versions: ["Model 9", "Model 10", "Model", "Model 2"], currentVersion: "  \n")
        let bundle = try ModelBundle(contentsOf: url)
        #expect(bundle.versionNames == ["Model", "Model 2", "Model 9", "Model 10"], "numbers compare by value")
        #expect(bundle.currentVersionName == "Model 10")
        #expect(try ManagedObjectModel.load(contentsOf: url).versionName == "Model 10")
    }

    @Test func missingXCCurrentVersionMeansTheLastVersionByName() throws {
        let directory = TemporaryDirectory()
        let url = try writeBundle(in: directory, versions: ["B", "A"], currentVersion: nil)
        #expect(try ModelBundle(contentsOf: url).currentVersionName == "B")
        let other = TemporaryDirectory()
        let plistWithoutKey = try writeBundle(in: other, versions: ["B", "A"],
            currentVersion: "<plist version=\"1.0\"><dict><key>other</key><string>A</string></dict></plist>")
        #expect(try ModelBundle(contentsOf: plistWithoutKey).currentVersionName == "B")
    }

    @Test func everyVersionLoadsByName() throws {
        let directory = TemporaryDirectory()
        let url = try writeBundle(in: directory, versions: ["V1", "V2"], currentVersion: currentVersionPlist("V2.xcdatamodel"))
        let bundle = try ModelBundle(contentsOf: url)
        #expect(try bundle.model(named: "V1").entities.map(\.name) == ["V1"])
        #expect(try bundle.model(named: "V1.xcdatamodel").versionName == "V1")
        #expect(bundle.url(ofVersion: "V3") == nil)
        #expect(throws: ModelLoadError(file: url.path, reason: .unknownVersion("V3"))) { try bundle.model(named: "V3") }
    }

    @Test func xcCurrentVersionNamingAMissingVersionIsAnError() throws {
        let directory = TemporaryDirectory()
        let url = try writeBundle(in: directory, versions: ["V1"], currentVersion: currentVersionPlist("V7.xcdatamodel"))
        #expect(throws: ModelLoadError(file: url.appendingPathComponent(".xccurrentversion").path,
            reason: .unknownVersion("V7"))) { try ModelBundle(contentsOf: url) }
    }

    @Test func malformedXCCurrentVersionIsAnErrorWithItsLine() throws {
        let directory = TemporaryDirectory()
        let url = try writeBundle(in: directory, versions: ["V1"], currentVersion: "<plist>\n<dict>\n<key>")
        let error = try #require(throwsError { try ModelBundle(contentsOf: url) })
        #expect(error.file.hasSuffix(".xccurrentversion"))
        #expect(error.line == 3)
        if case .malformedXML = error.reason {} else { Issue.record("\(error.reason)") }
    }

    @Test func entityDeclarationsInXCCurrentVersionAreRefused() throws {
        let directory = TemporaryDirectory()
        let plist = "<!DOCTYPE plist [ <!ENTITY v \"V1.xcdatamodel\"> ]>\n"
            + "<plist><dict><key>_XCCurrentVersionName</key><string>&v;</string></dict></plist>"
        let url = try writeBundle(in: directory, versions: ["V1"], currentVersion: plist)
        let error = try #require(throwsError { try ModelBundle(contentsOf: url) })
        #expect(error.reason == .malformedXML("Entity declarations are not allowed."))
    }

    @Test func versionFolderAndContentsFileLoadDirectly() throws {
        let directory = TemporaryDirectory()
        let url = try writeBundle(in: directory, versions: ["Shop 4"], currentVersion: nil)
        let folder = url.appendingPathComponent("Shop 4.xcdatamodel")
        #expect(try ManagedObjectModel.load(contentsOf: folder).versionName == "Shop 4")
        let contents = folder.appendingPathComponent("contents")
        #expect(try ManagedObjectModel.load(contentsOf: contents).entities.map(\.name) == ["Shop4"])
        #expect(try ManagedObjectModel.load(contentsOf: contents).versionName == "Shop 4")
        let loose = directory.file("model.xml")
        try Data(modelXML("<entity name=\"Loose\"/>").utf8).write(to: loose)
        #expect(try ManagedObjectModel.load(contentsOf: loose).versionName == nil)
    }

    @Test func errorsNameTheFileLoaded() throws {
        let directory = TemporaryDirectory()
        let url = try writeBundle(in: directory, versions: ["V1"], currentVersion: nil)
        let contents = url.appendingPathComponent("V1.xcdatamodel/contents")
        try Data("<model>\n<entity name=\"A\">\n<attribute name=\"a\" attributeType=\"Money\"/>\n</entity>\n</model>".utf8)
            .write(to: contents)
        let error = try #require(throwsError { try ManagedObjectModel.load(contentsOf: url) })
        #expect(error.file == contents.path && error.line == 3)
        #expect(error.description.hasPrefix(contents.path + ":3: "))
    }

    @Test func foldersThatAreNotModels() throws {
        let directory = TemporaryDirectory()
        let missing = directory.file("Missing.xcdatamodeld")
        #expect(throws: ModelLoadError(file: missing.path, reason: .unreadable("no such file or folder"))) {
            try ManagedObjectModel.load(contentsOf: missing)
        }
        let empty = directory.file("Empty.xcdatamodeld")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: ModelLoadError(file: empty.path, reason: .notAModel("the folder holds no .xcdatamodel version"))) {
            try ManagedObjectModel.load(contentsOf: empty)
        }
        let xcode3 = directory.file("Old.xcdatamodel")
        try FileManager.default.createDirectory(at: xcode3, withIntermediateDirectories: true)
        try Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74]).write(to: xcode3.appendingPathComponent("elements"))
        let error = try #require(throwsError { try ManagedObjectModel.load(contentsOf: xcode3) })
        if case .notAModel(let message) = error.reason { #expect(message.contains("Xcode 3")) } else {
            Issue.record("\(error.reason)")
        }
        let device = URL(fileURLWithPath: "/dev/zero")
        let deviceError = try #require(throwsError { try ManagedObjectModel.load(contentsOf: device) })
        #expect(deviceError.reason == .unreadable("not a regular file"), "a device must not be read forever")
    }
}

/// The error `body` throws, or nil (recorded as an issue) when it returns or throws something else.
func throwsError<T>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) -> ModelLoadError? {
    do {
        let value = try body()
        Issue.record("returned \(value)", sourceLocation: sourceLocation)
        return nil
    } catch let error as ModelLoadError {
        return error
    } catch {
        Issue.record("threw \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
