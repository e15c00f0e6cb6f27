// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for ObjectGraph, kept out of the main package: an executable built with
// `-sanitize=fuzzer` has no ordinary `main`, which would break a plain `swift build` there.
// See README.md for the commands.
let package = Package(
    name: "ObjectGraphFuzz",
    dependencies: [
        .package(name: "ObjectGraph", path: "..")
    ],
    targets: [
        // Feeds bytes to ManagedObjectModel.load(xml:source:) — libxml2 parsing plus the Core Data decoder.
        .executableTarget(
            name: "FuzzModelLoader",
            dependencies: [.product(name: "ObjectGraph", package: "ObjectGraph")]
        ),
        // Feeds bytes to FetchPredicate(format:): the tokenizer and parser, the printer (round trip), and a
        // differential check of SQL, the in-memory store and in-memory evaluation on a small object graph.
        .executableTarget(
            name: "FuzzPredicateParser",
            dependencies: [.product(name: "ObjectGraph", package: "ObjectGraph")]
        ),
        // Feeds bytes to ManagedObjectModel.load(compiled:source:): the property-list parser, the keyed-archive
        // reader and the .mom decoder.
        .executableTarget(
            name: "FuzzCompiledModel",
            dependencies: [.product(name: "ObjectGraph", package: "ObjectGraph")]
        ),
        // Feeds bytes to the streaming import reader (JSON array, JSON Lines, CSV) in every chunk size, and
        // its rows to the value converter: rows or typed errors, the same at any chunk boundary.
        .executableTarget(
            name: "FuzzImportReader",
            dependencies: [.product(name: "ObjectGraph", package: "ObjectGraph")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
