import Foundation
import Testing
import TestSupport

/// Runs the `objectgraph` executable that SwiftPM built next to the test bundle.
enum ObjectGraphTool {
    /// The folder the test bundle is in (`.build/debug`), where SwiftPM also puts executables and, under
    /// `Modules`, the built Swift modules.
    static var buildDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
            .deletingLastPathComponent().standardizedFileURL
    }

    /// `OBJECTGRAPH_BINARY` when set, else the `objectgraph` executable next to the test bundle (or in
    /// one of its parent folders).
    static func locate() -> URL? {
        if let override = ProcessInfo.processInfo.environment["OBJECTGRAPH_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var directory = buildDirectory
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("objectgraph")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// Runs `objectgraph` with `arguments` and returns what it wrote and its exit status.
    static func run(_ arguments: [String]) throws -> ChildProcess.Result {
        guard let binary = locate() else {
            throw ToolNotFound(description: "the objectgraph executable was not found next to the test bundle "
                + "(\(buildDirectory.path)); set OBJECTGRAPH_BINARY to its path")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = "C.UTF-8"
        return try ChildProcess.run(binary.path, arguments, environment: environment)
    }

    /// Runs `objectgraph` and requires exit status 0; returns standard output.
    @discardableResult
    static func succeed(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(arguments)
        #expect(result.status == 0, """
            objectgraph \(arguments.joined(separator: " ")) ended with \(result.statusDescription); stderr:
            \(result.standardError)
            """, sourceLocation: sourceLocation)
        return result.standardOutput
    }
}

/// The `objectgraph` executable is missing.
struct ToolNotFound: Error, CustomStringConvertible {
    let description: String
}

/// Model files written into a test's temporary folder.
enum ModelFixtures {
    /// The package's root folder, found from this file's place in it.
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The app's model, `Resources/People.xcdatamodeld`.
    static var people: URL { packageRoot.appendingPathComponent("Resources/People.xcdatamodeld") }

    /// Writes `contents` as `<name>.xcdatamodeld/<name>.xcdatamodel/contents` in `folder` (with a
    /// current-version file) and returns the bundle.
    static func write(_ contents: String, named name: String, in folder: URL) throws -> URL {
        let bundle = folder.appendingPathComponent("\(name).xcdatamodeld")
        let version = bundle.appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: version.appendingPathComponent("contents"))
        let current = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \t<key>_XCCurrentVersionName</key>
            \t<string>\(name).xcdatamodel</string>
            </dict>
            </plist>
            """
        try Data(current.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
        return bundle
    }

    /// A model with every attribute type, inheritance (an abstract parent with two sub-entities, one of
    /// which has a sub-entity itself), all delete rules, fetch requests and configurations.
    static func catalog(in folder: URL) throws -> URL {
        try write(catalogContents, named: "Catalog", in: folder)
    }

    /// The `contents` of ``catalog(in:)``; `extraShelfAttribute` adds a line to Shelf (to change its hash).
    static func catalogContents(extraShelfAttribute: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" \
        systemVersion="23D60" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Item" representedClassName="CatalogItem" isAbstract="YES" syncable="YES">
                <attribute name="title" attributeType="String"/>
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>
                <attribute name="sku" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" \
        inverseName="items" inverseEntity="Shelf"/>
            </entity>
            <entity name="Book" representedClassName=".Book" parentEntity="Item" syncable="YES">
                <attribute name="pages" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="isbn" optional="YES" attributeType="String"/>
                <attribute name="published" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <relationship name="related" optional="YES" toMany="YES" deletionRule="No Action" destinationEntity="Book"/>
            </entity>
            <entity name="Ebook" parentEntity="Book" syncable="YES">
                <attribute name="fileSize" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            </entity>
            <entity name="Gadget" parentEntity="Item" syncable="YES">
                <attribute name="weight" optional="YES" attributeType="Float" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="inStock" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
            </entity>
            <entity name="Shelf" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <attribute name="capacity" attributeType="Integer 32" defaultValueString="10" usesScalarValueType="YES"/>
                <attribute name="rating" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="addedAt" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="photo" optional="YES" attributeType="Binary"/>
                <attribute name="homepage" optional="YES" attributeType="URI"/>
                <attribute name="default" optional="YES" attributeType="String"/>
                <attribute name="extra" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"/>
                <attribute name="note" optional="YES" transient="YES" attributeType="String"/>
                \(extraShelfAttribute)
                <relationship name="items" optional="YES" toMany="YES" minCount="1" maxCount="50" deletionRule="Cascade" \
        ordered="YES" destinationEntity="Item" inverseName="shelf" inverseEntity="Item"/>
                <relationship name="neighbour" optional="YES" maxCount="1" deletionRule="Deny" destinationEntity="Shelf"/>
            </entity>
            <fetchRequest name="LongBooks" entity="Book" predicateString="pages &gt; 300"/>
            <fetchRequest name="AllShelves" entity="Shelf"/>
            <configuration name="Books">
                <memberEntity name="Book"/>
                <memberEntity name="Ebook"/>
            </configuration>
            <configuration name="Furniture">
                <memberEntity name="Shelf"/>
            </configuration>
        </model>
        """
    }

    static var catalogContents: String { catalogContents() }
}

/// A temporary folder with a file written into it.
extension TemporaryDirectory {
    /// Writes `text` to the file `name` in the folder and returns its URL.
    func write(_ text: String, to name: String) throws -> URL {
        let url = file(name)
        try Data(text.utf8).write(to: url)
        return url
    }
}

/// Parses JSON output for field-by-field checks.
func jsonObject(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}
