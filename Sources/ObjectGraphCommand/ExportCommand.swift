import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph export`: writes the objects of a query as a JSON array, JSON Lines or CSV that
/// `objectgraph import` reads back, a batch of objects at a time.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the objects of an entity (or of a query) as JSON, JSON Lines or CSV.",
        discussion: """
            Writes every stored attribute of each matching object, in model order, in the format that \
            import reads back: a JSON array of objects, JSON Lines (one object per line) or CSV with a \
            header row. Dates are ISO 8601 in UTC with the fractional digits needed to read back the same \
            instant, binary data Base64; in CSV no value is an empty field and an empty string "". \
            --where, --arg, --var, --template and --sort select and order the objects as in query. The \
            objects are fetched and written a batch at a time, so memory stays flat.

            --format picks the format; without it, --output's extension (.json, .jsonl, .ndjson, .csv) \
            does, else JSON. Without --output the file goes to standard output.

            Recreating a store for a model that cannot be migrated automatically: export each entity, \
            move the store aside, then import each file into a new store with the new model.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var filter: ObjectFilterOptions

    @OptionGroup var templateAndSort: TemplateAndSortOptions

    @Option(name: .long, help: ArgumentHelp("json, jsonl or csv.", valueName: "format"))
    var format: String?

    @Option(name: [.short, .long], help: ArgumentHelp("The file to write (default: standard output).",
        valueName: "file"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Objects fetched per batch.", valueName: "n"))
    var batchSize: Int = 1000

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1 (got \(batchSize))") }
        if let format, Self.format(named: format) == nil {
            throw ValidationError("--format must be json, jsonl or csv (got \(format))")
        }
    }

    static func format(named name: String) -> ImportFileReader.Format? {
        name.lowercased() == "ndjson" ? .jsonLines : ImportFileReader.Format(pathExtension: name)
    }

    func run() throws {
        let model = try storeOptions.loadModel()
        let runner = try QueryRunner(model: model, options: QueryRunner.Options(
            entityName: filter.entity, whereFormat: filter.whereFormat, arguments: filter.arguments,
            template: templateAndSort.template, variables: templateAndSort.variables, sortKeys: templateAndSort.sort))
        let chosen = format.flatMap(Self.format(named:))
            ?? output.flatMap { ImportFileReader.Format(pathExtension: URL(fileURLWithPath: $0).pathExtension) } ?? .json
        let context = try storeOptions.openContext(model: model, creating: false)
        let handle: FileHandle
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil) else {
                throw CommandFailure("cannot create \(output)")
            }
            guard let opened = FileHandle(forWritingAtPath: output) else { throw CommandFailure("cannot write \(output)") }
            handle = opened
        } else {
            handle = FileHandle.standardOutput
        }
        defer { if output != nil { try? handle.close() } }
        let exporter = ObjectExporter(context: context, entity: runner.entity, request: runner.request,
            batchSize: batchSize)
        do {
            let count = try exporter.write(format: chosen) { data in try handle.write(contentsOf: data) }
            if output != nil {
                print("Exported \(count) \(runner.entity.name) object\(count == 1 ? "" : "s") to \(output ?? "") "
                    + "(\(chosen.rawValue)).")
            }
        } catch {
            throw CommandFailure("the export failed: \(error)")
        }
    }
}
