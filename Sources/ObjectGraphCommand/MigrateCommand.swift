import ArgumentParser
import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// `objectgraph migrate`: migrates a store written with an earlier version of a model to its current version
/// (lightweight migration, in place, in one transaction), or with `--dry-run` only reports the steps.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to the current version of a versioned model (.xcdatamodeld).",
        discussion: """
            The store's version is found by its entity version hashes among the model's versions; each later \
            version is one step, inferred from renaming identifiers, types, optionality, relationships and \
            indexes. Every step runs in one SQLite transaction: a failure leaves the store as it was. With \
            --dry-run nothing is written. A change that cannot be inferred is reported with its reason, and \
            the exit status is 1.

            With --store postgresql://… the PostgreSQL store is migrated the same way, all steps in ONE \
            server transaction that other clients wait for (schema and values; a failure leaves the \
            database as it was); clients still open with the old model are told, and their saves refused.
            """)

    @Option(name: .long, help: ArgumentHelp("The versioned model (.xcdatamodeld).", valueName: "model"))
    var model: String

    @Option(name: .long, help: ArgumentHelp("The SQLite store file, or a PostgreSQL database as postgresql://user@host:port/db.",
        valueName: "store"))
    var store: String

    @Flag(name: .long, help: "Report the inferred steps without changing the store.")
    var dryRun = false

    func validate() throws {
        try StoreOpener.checkConnectionURI(store, option: "--store")
    }

    func run() throws {
        let server = PostgresStore.isConnectionURI(store) ? URL(string: store) : nil
        let storeURL = server ?? URL(fileURLWithPath: store)
        // (A server is named without its password.)
        let name = server.map(StoreURL.redacted) ?? store
        guard server != nil || FileManager.default.fileExists(atPath: storeURL.path) else {
            throw CommandFailure("cannot migrate the store \(store): no such file")
        }
        var migrator: LightweightMigrator
        do {
            migrator = try LightweightMigrator(bundleURL: URL(fileURLWithPath: model))
            migrator.transactionAuthor = "objectgraph"
        } catch {
            throw CommandFailure("cannot load the model \(model): \(error)")
        }
        do {
            let plan: MigrationPlan
            if let server {
                plan = dryRun ? try PostgresStore.migrationPlan(at: server, migrator: migrator)
                    : try PostgresStore.migrate(at: server, migrator: migrator)
            } else {
                plan = dryRun ? try migrator.plan(storeAt: storeURL) : try migrator.migrate(storeAt: storeURL)
            }
            if plan.isEmpty {
                print("The store \(name) is already at model version \(plan.destinationVersion); nothing to do.")
                return
            }
            print(dryRun ? "Would migrate \(name) from \(plan.sourceVersion) to \(plan.destinationVersion):"
                : "Migrated \(name) from \(plan.sourceVersion) to \(plan.destinationVersion):")
            print(plan.description)
        } catch {
            throw CommandFailure("cannot migrate the store \(name): \(error)")
        }
    }
}
