import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph`: a command-line tool on the ObjectGraph framework.
///
/// For now it only describes itself; inspecting models and stores, querying with predicates and
/// importing JSON/CSV arrive with the model layer.
@main
struct ObjectGraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objectgraph",
        abstract: "Inspect and query ObjectGraph models and stores.",
        discussion: """
            ObjectGraph is Core Data for Swift on Linux. This tool will inspect a model \
            (.xcdatamodeld), inspect a store (.sqlite), query a store with a predicate format string, \
            and import JSON or CSV. Those commands are not available yet; see README.md.
            """,
        version: "0.1.0")

    func run() throws {
        print(Self.helpMessage())
    }
}
