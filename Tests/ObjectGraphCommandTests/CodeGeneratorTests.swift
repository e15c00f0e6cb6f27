import Foundation
import ObjectGraph
import Testing
import TestSupport
@testable import ObjectGraphCommand

/// The code generator on models built in Swift: awkward names still give code that compiles.
@Suite("code generator")
struct CodeGeneratorTests {
    private func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Node", attributes: [
                AttributeDescription(name: "description", type: .string),
                AttributeDescription(name: "class", type: .integer32, isOptional: false, defaultValue: 0),
                AttributeDescription(name: "first-name", type: .string, isOptional: false, defaultValue: "x"),
                AttributeDescription(name: "cache", type: .undefined, isTransient: true),
                AttributeDescription(name: "amount", type: .decimal, isOptional: false),
            ], managedObjectClassName: "App.TreeNode", isAbstract: true),
            EntityDescription(name: "Leaf", attributes: [
                AttributeDescription(name: "weight", type: .double, isOptional: false, defaultValue: 1.5),
            ], parentEntity: "Node"),
        ])
    }

    @Test("keywords get backticks, clashing and invalid names are renamed, module prefixes are dropped")
    func names() throws {
        let generator = CodeGenerator(model: try model(), modelName: "Tree", sourceName: "Tree.xcdatamodeld")
        let (files, warnings) = try generator.files()
        #expect(files.map(\.name) == ["TreeNode.swift", "Leaf.swift", "ModelClasses.swift"])
        let node = files[0].contents
        #expect(node.contains("public class TreeNode: ManagedObject {"))
        #expect(node.contains("@Attribute(\"description\") public var descriptionValue: String?"))
        #expect(node.contains("@Attribute(\"class\") public var `class`: Int32\n"))
        #expect(node.contains("@Attribute(\"first-name\") public var first_name: String\n"))
        #expect(node.contains("@Attribute(\"cache\") public var cache: AttributeValue\n"))
        #expect(node.contains("@Attribute(\"amount\") public var amount: Decimal\n"))
        #expect(node.contains("(abstract)"))
        #expect(files[1].contents.contains("public final class Leaf: TreeNode {"))
        #expect(files[1].contents.contains("public var weight: Double\n"))
        #expect(files[2].contents.contains("public let treeModelClasses: [ManagedObject.Type] = ["))
        #expect(warnings == ["Node.description clashes with a ManagedObject member; its property is named descriptionValue"])
    }

    @Test("two entities with one class name are refused")
    func duplicateClassNames() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "A", attributes: [], managedObjectClassName: "Same"),
            EntityDescription(name: "B", attributes: [], managedObjectClassName: "Other.Same"),
        ])
        #expect(throws: CommandFailure.self) {
            try CodeGenerator(model: model, modelName: "M", sourceName: "M").files()
        }
    }

    @Test("the generated files for awkward names compile",
        .enabled(if: SwiftCompiler.path != nil, "swiftc was not found on PATH or next to swift; cannot type-check"))
    func compiles() throws {
        let folder = TemporaryDirectory(prefix: "objectgraph-codegen-names")
        let (files, _) = try CodeGenerator(model: try model(), modelName: "Tree", sourceName: "Tree").files()
        var paths: [String] = []
        for file in files {
            let url = folder.file(file.name)
            try Data(file.contents.utf8).write(to: url)
            paths.append(url.path)
        }
        let swiftc = try #require(SwiftCompiler.path)
        let result = try ChildProcess.run(swiftc,
            ["-typecheck", "-swift-version", "6", "-module-name", "TreeModel"] + paths + SwiftCompiler.searchPathArguments())
        #expect(result.status == 0, "swiftc -typecheck failed (\(result.statusDescription)):\n\(result.standardError)")
    }
}
