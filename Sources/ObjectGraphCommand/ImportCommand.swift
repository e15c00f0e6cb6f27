import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph import`: inserts the rows of a JSON, JSON Lines or CSV file as objects of one entity, as
/// the file is read (see ``BatchImporter``).
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Insert the objects in a JSON, JSON Lines or CSV file into a store.",
        discussion: """
            FILE is a JSON array of objects whose keys are attribute names, JSON Lines (one such object \
            per line: .jsonl, .ndjson), or a CSV file whose header row names the attributes (RFC 4180: \
            fields with commas, quotes or line breaks are quoted, quotes inside are doubled). The format \
            comes from the extension (.json, .jsonl, .ndjson, .csv), else from the content ([ for a JSON \
            array, { for JSON Lines). Dates are ISO 8601 (2024-03-01T12:30:00Z, fractional seconds \
            allowed, or a bare date); Booleans are true/false; binary data is Base64. In CSV an empty \
            field is no value (the default, else nil) and "" an empty string for a String attribute. \
            An objectID key (which query --json and export --object-ids print) is ignored.

            The file is read as it is imported: rows are saved in batches of --batch-size, each batch in \
            one transaction, and memory holds about one batch. A bad row (an unknown key, a value of the \
            wrong type, a missing required value, an unparsable date…) is reported on standard error \
            with its 0-based row index (and line, for CSV and JSON Lines) and the reason; its batch is \
            not written, the import goes on with the next batch, and the exit status is 1. Malformed \
            JSON or CSV stops the import where it is found (with its line and column); the batches \
            before it stay written. A missing store file is created.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The entity to insert objects of.", valueName: "entity"))
    var entity: String

    @Option(name: .long, help: ArgumentHelp("Rows per batch (one save each).", valueName: "n"))
    var batchSize: Int = 1000

    @Argument(help: ArgumentHelp("The JSON, JSON Lines or CSV file to import.", valueName: "file"))
    var file: String

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1 (got \(batchSize))") }
    }

    func run() throws {
        let model = try storeOptions.loadModel()
        guard let entityDescription = model.entity(named: entity) else {
            throw CommandFailure("the model has no entity named '\(entity)' (it has "
                + model.entities.map(\.name).joined(separator: ", ") + ")")
        }
        guard !entityDescription.isAbstract else {
            throw CommandFailure("entity '\(entity)' is abstract; import into one of its sub-entities instead")
        }
        let reader: ImportFileReader
        do {
            reader = try ImportFileReader(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CommandFailure(error.message)
        }
        let context = try storeOptions.openContext(model: model, creating: true, writing: true)
        let importer = BatchImporter(context: context, entity: entityDescription, batchSize: batchSize,
            converter: ImportRowConverter(entity: entityDescription, ignoredKeys: ["objectID"]))
        let summary = importer.run(reader) { printError("\(file): \($0)") }
        let format = reader.format.rawValue
        print("Inserted \(summary.inserted) \(entity) object\(summary.inserted == 1 ? "" : "s") "
            + "from \(summary.rows) \(format) row\(summary.rows == 1 ? "" : "s")"
            + (summary.readError == nil ? "." : " read before the error."))
        if let error = summary.readError {
            switch error.kind {
            case .layout: throw CommandFailure("\(file): \(error.message)")
            case .unreadable: throw CommandFailure(error.message)
            case .malformed, .rowTooLarge: throw CommandFailure("\(file) is not valid \(format): \(error)")
            }
        }
        if summary.rejectedRows > 0 {
            printError("Rejected \(summary.rejectedRows) row\(summary.rejectedRows == 1 ? "" : "s"); "
                + "\(summary.failedBatches) batch\(summary.failedBatches == 1 ? "" : "es") "
                + "(\(summary.skippedRows) row\(summary.skippedRows == 1 ? "" : "s")) not written.")
            throw ExitCode(1)
        }
    }
}
