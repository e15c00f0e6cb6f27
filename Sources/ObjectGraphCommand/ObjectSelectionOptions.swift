import ArgumentParser

/// `--entity`, `--where` and `--arg`: which objects a command works on (`query`, `export`, `update`, `delete`).
struct ObjectFilterOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The entity (optional with --template, where the command takes one).", valueName: "entity"))
    var entity: String?

    @Option(name: .customLong("where"), help: ArgumentHelp("A predicate format string.", valueName: "format"))
    var whereFormat: String?

    @Option(name: .customLong("arg"), help: ArgumentHelp(
        "A value for the next % specifier of --where; repeat for each.", valueName: "value"))
    var arguments: [String] = []

    /// The entity and predicate of a command that needs both (`update`, `delete`), refusing what is missing as
    /// the argument parser refuses a missing option.
    func required() throws -> (entity: String, whereFormat: String) {
        guard let entity else { throw ValidationError("Missing expected argument '--entity <entity>'") }
        guard let whereFormat else { throw ValidationError("Missing expected argument '--where <format>'") }
        return (entity, whereFormat)
    }
}

/// `--template`, `--var` and `--sort`: a fetch request template, its variables, and the order (`query`, `export`).
struct TemplateAndSortOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A fetch request template of the model.", valueName: "name"))
    var template: String?

    @Option(name: .customLong("var"), help: ArgumentHelp(
        "A value for the $NAME variable of the template or --where; repeat for more.", valueName: "NAME=VALUE"))
    var variables: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "Sort by a key (or key path through to-one relationships), ascending or :desc, optionally with a "
            + "comparison (:c, :cd, :localized, :localized-c, :localized-standard); repeat for more keys.",
        valueName: "key[:desc][:comparison]"))
    var sort: [String] = []
}
