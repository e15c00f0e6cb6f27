import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph update`: a batch update of the objects that match a predicate.
struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Set attribute values on every object of an entity that matches a predicate (a batch update).",
        discussion: """
            Runs a batch update straight in the store, in one transaction, without loading objects, and \
            prints how many objects changed. --where takes a predicate format string as query's does \
            (with --arg for its % specifiers). Each --set KEY=VALUE reads VALUE as the attribute's type \
            (a number, true/false, an ISO 8601 date, text as it is); VALUE nil clears the attribute.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var filter: ObjectFilterOptions

    func validate() throws { _ = try filter.required() }

    @Option(name: .customLong("set"), help: ArgumentHelp("An attribute and its new value; repeat for more.",
        valueName: "KEY=VALUE"))
    var assignments: [String] = []

    func run() throws {
        let model = try storeOptions.loadModel()
        let (entity, whereFormat) = try filter.required()
        let runner = try QueryRunner(model: model, options: .init(
            entityName: entity, whereFormat: whereFormat, arguments: filter.arguments))
        guard !assignments.isEmpty else { throw CommandFailure("give at least one --set KEY=VALUE") }
        var values: [String: AttributeValue] = [:]
        for spec in assignments {
            let (key, value) = try Self.assignment(spec, entity: runner.entity)
            values[key] = value
        }
        let context = try storeOptions.openContext(model: model, creating: false, writing: true)
        let request = BatchUpdateRequest(entityName: runner.entity.name, predicate: runner.request.predicate,
            propertiesToUpdate: values)
        print(try BatchCommandRunner.count { () throws(ObjectGraphError) in try context.execute(request) })
    }

    /// `KEY=VALUE`, the value read as the attribute's type (`nil` for no value).
    static func assignment(_ spec: String, entity: EntityDescription) throws(CommandFailure) -> (String, AttributeValue) {
        guard let equals = spec.firstIndex(of: "=") else { throw CommandFailure("invalid --set '\(spec)': write KEY=VALUE") }
        let key = String(spec[..<equals])
        let text = String(spec[spec.index(after: equals)...])
        guard let attribute = entity.attribute(named: key), !attribute.isTransient else {
            throw CommandFailure("invalid --set '\(spec)': entity \(entity.name) has no stored attribute '\(key)' "
                + "(attributes: " + entity.attributes.filter { !$0.isTransient }.map(\.name).joined(separator: ", ") + ")")
        }
        if text == "nil" { return (key, .null) }
        do {
            return (key, try ImportValueConverter.value(text: text, type: attribute.attributeType))
        } catch {
            throw CommandFailure("invalid --set '\(spec)': \(error)")
        }
    }
}

/// `objectgraph delete`: a batch delete of the objects that match a predicate.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete every object of an entity that matches a predicate (a batch delete).",
        discussion: """
            Runs a batch delete straight in the store, in one transaction, without loading objects, and \
            prints how many objects were deleted (objects that cascade delete rules reach included). \
            Nullify rules clear the inverse relationships; a Deny rule with objects left refuses the whole \
            delete, and nothing changes. --where is required; use --where TRUEPREDICATE to delete all. \
            It cannot be undone.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var filter: ObjectFilterOptions

    func validate() throws { _ = try filter.required() }

    func run() throws {
        let model = try storeOptions.loadModel()
        let (entity, whereFormat) = try filter.required()
        let runner = try QueryRunner(model: model, options: .init(
            entityName: entity, whereFormat: whereFormat, arguments: filter.arguments))
        let context = try storeOptions.openContext(model: model, creating: false, writing: true)
        let request = BatchDeleteRequest(entityName: runner.entity.name, predicate: runner.request.predicate)
        print(try BatchCommandRunner.count { () throws(ObjectGraphError) in try context.execute(request) })
    }
}

/// Runs a batch request for a command and turns its errors into the tool's.
enum BatchCommandRunner {
    static func count(_ body: () throws(ObjectGraphError) -> BatchResult) throws(CommandFailure) -> Int {
        do {
            return try body().count
        } catch {
            throw CommandFailure("the batch request failed: \(error)")
        }
    }
}
