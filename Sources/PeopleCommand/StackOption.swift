import ArgumentParser
import People

extension PeopleStack.Kind: ExpressibleByArgument {}

/// The `--stack` option of the commands that open a store.
struct StackOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "How the contexts are wired: siblings (view and import contexts side by side on the coordinator), "
                + "nested (imports are children of the view context, which saves to disk) or writer-main-worker "
                + "(a background writer saves to disk; the view context is its child, imports are the view's).",
            valueName: "stack"))
    var stack: PeopleStack.Kind = .default
}
