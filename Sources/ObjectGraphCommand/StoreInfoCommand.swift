import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph store-info`: describes a store and checks it against a model.
struct StoreInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-info",
        abstract: "Describe a store: type, UUID, who wrote it, version hashes, whether it matches the model, rows per entity.",
        discussion: """
            The store's metadata is read without the model, so it is shown even when the model does not \
            match; then the entities whose version hashes differ are marked, rows are not counted, and \
            the exit status is 1. A store Core Data wrote carries Apple's version hashes, which ObjectGraph \
            cannot compute: it matches when its tables and columns are the model's, and the report says so \
            (or names the first table or column that differs). Rows are counted per entity, not including sub-entities' rows. Hashes \
            are printed in hexadecimal. A PostgreSQL store (--store postgresql://…) is described the same way, \
            its metadata read from its Z_METADATA table.
            """)

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        let model = try storeOptions.loadModel()
        let report = try StoreInspector.inspect(storeURL: storeOptions.storeURL, model: model,
            modelPath: storeOptions.model)
        print(report.rendered())
        if !report.matches {
            printError("Error: the store \(storeOptions.displayName) does not match the model \(storeOptions.model)")
            throw ExitCode(1)
        }
        if let problem = report.countProblem {
            printError("Error: \(problem)")
            throw ExitCode(1)
        }
    }
}
