import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph codegen`: writes a Swift class per entity of a model.
struct CodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Generate a ManagedObject subclass per entity of a model.",
        discussion: """
            Writes <ClassName>.swift for each entity (the class name is the entity's \
            representedClassName, else its name), with an @Attribute property per own attribute and a \
            comment per relationship, and ModelClasses.swift declaring <model>ModelClasses (for example \
            peopleModelClasses) to pass to ManagedObjectModel.load(contentsOf:classes:). Existing files \
            of the same names in DIR are replaced.
            """)

    @Argument(help: ArgumentHelp("The model file (.xcdatamodeld or .xcdatamodel).", valueName: "model"))
    var model: String

    @Option(name: .long, help: ArgumentHelp("The folder to write the Swift files to.", valueName: "dir"))
    var out: String

    func run() throws {
        let loaded = try ModelFile.load(model)
        let generator = CodeGenerator(model: loaded, modelName: ModelFile.name(of: model),
            sourceName: URL(fileURLWithPath: model).lastPathComponent)
        let (files, warnings) = try generator.files()
        for warning in warnings { printError("warning: \(warning)") }
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create the folder \(out): \((error as NSError).localizedDescription)")
        }
        for file in files {
            let url = directory.appendingPathComponent(file.name)
            do {
                try Data(file.contents.utf8).write(to: url, options: .atomic)
            } catch {
                throw CommandFailure("cannot write \(url.path): \((error as NSError).localizedDescription)")
            }
            print(url.path)
        }
    }
}
