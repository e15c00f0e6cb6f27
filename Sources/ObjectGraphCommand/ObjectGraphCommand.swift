import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph`: a command-line tool on the ObjectGraph framework.
///
/// It lists a model's entities, imports JSON, JSON Lines or CSV into a store and exports them back, queries a store with a predicate format
/// string, describes a store's metadata, backs a store up, and generates Swift classes for a model. Each
/// subcommand lives in its own file; the work itself is done by small types (``ModelListing``,
/// ``BatchImporter``, ``QueryRunner``, ``StoreInspector``, ``StoreBackup``, ``CodeGenerator``) that the tests
/// also call directly.
@main
struct ObjectGraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objectgraph",
        abstract: "Inspect, import into, query, back up and generate code for ObjectGraph models and stores.",
        discussion: """
            ObjectGraph is Core Data for Swift on Linux. A model is an Xcode model file \
            (.xcdatamodeld or .xcdatamodel); a store is an SQLite file in Core Data's layout, or a \
            PostgreSQL database given as postgresql://user@host:port/database (the password from PGPASSWORD or \
            ~/.pgpass). Every command that opens a store takes --model and --store.
            """,
        version: "0.2.0",
        subcommands: [
            ModelCommand.self, ImportCommand.self, ExportCommand.self, QueryCommand.self, StoreInfoCommand.self,
            MigrateCommand.self, BackupCommand.self, CodegenCommand.self, UpdateCommand.self, DeleteCommand.self,
            HistoryCommand.self,
        ])
}
