// swift-tools-version:6.1
import PackageDescription

// ObjectGraph: Core Data for Swift on Linux, and `people`, a live terminal browser built on it.
//
// Data flows one way: SQLite store → coordinator → context → fetched-results controller → table view → screen.
// `ObjectGraph` knows nothing of terminals; `TerminalTableView` knows nothing of ObjectGraph. They share only
// `SectionedChanges` (the `IndexPath` row/section extension and the UIKit batch-update rules).
let package = Package(
    name: "ObjectGraph",
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "TerminalTableView", targets: ["TerminalTableView"]),
        // The PostgreSQL store, in its own product: apps that do not use it do not link libpq.
        .library(name: "ObjectGraphPostgres", targets: ["ObjectGraphPostgres"]),
        // Checks any IncrementalStore against the store contract (ObjectGraph's own stores run it too).
        .library(name: "ObjectGraphStoreConformance", targets: ["ObjectGraphStoreConformance"]),
        .executable(name: "people", targets: ["PeopleCommand"]),
        .executable(name: "objectgraph", targets: ["ObjectGraphCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Only for `swift package generate-documentation` (the DocC catalogs); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System libraries and C shims.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CNCurses", path: "Sources/CNCurses", providers: [.apt(["libncursesw5-dev"])]),
        // libxml2 reads Xcode model files; its headers live in /usr/include/libxml2, which pkg-config supplies.
        .systemLibrary(
            name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]
        ),
        // libpq (PostgreSQL's client library); pkg-config finds its headers in /usr/include/postgresql.
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "CCursesShim", dependencies: ["CNCurses"], path: "Sources/CCursesShim"),

        // Shared by the framework and the table view: IndexPath row/section and batch-update rules.
        .target(name: "SectionedChanges"),

        // A thin, checked Swift wrapper over the system SQLite.
        .target(name: "SQLiteStorage", dependencies: ["CSQLite"]),

        // The framework: model, stores, coordinator, contexts, fetch requests, fetched-results controller.
        .target(
            name: "ObjectGraph",
            dependencies: [
                "SQLiteStorage", "SectionedChanges", "CLibXML2", "CZlib", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // The PostgreSQL store behind the public store API (libpq; LISTEN/NOTIFY for other clients' commits).
        .target(name: "ObjectGraphPostgres", dependencies: ["ObjectGraph", "CLibPQ"]),
        // The store conformance kit: the contract of IncrementalStore, checked through the protocol alone.
        .target(name: "ObjectGraphStoreConformance", dependencies: ["ObjectGraph"]),

        // A UITableView-like list for terminals; the only module that calls ncurses.
        .target(name: "TerminalTableView", dependencies: ["SectionedChanges", "CNCurses", "CCursesShim"]),

        // Sample data shipped with the app (top-level Resources/).
        .target(
            name: "PeopleResources",
            path: "Resources",
            exclude: ["README.md", "generate_sample_people.py"],
            sources: ["PeopleResources.swift"],
            resources: [.copy("SamplePeople.json"), .copy("People.xcdatamodeld")]
        ),

        // The `people` app: model, importers, the list view controller.
        .target(name: "People", dependencies: ["ObjectGraph", "ObjectGraphPostgres", "TerminalTableView", "PeopleResources"]),

        .executableTarget(
            name: "PeopleCommand",
            dependencies: ["People", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "ObjectGraphCommand",
            dependencies: ["ObjectGraph", "ObjectGraphPostgres", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Test-only (no product): the child process the kill test SIGKILLs, and a fault-injecting SQLite VFS.
        .executableTarget(name: "objectgraph-crash-importer", dependencies: ["ObjectGraph"],
            path: "Sources/ObjectGraphCrashImporter"),
        .target(name: "CFaultVFS", dependencies: ["CSQLite"]),

        // Helpers shared by the test targets (seeded randomness, temporary folders).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "SectionedChangesTests",
            dependencies: [
                "SectionedChanges", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "SQLiteStorageTests", dependencies: ["SQLiteStorage", "CSQLite", "TestSupport"]),
        .testTarget(
            name: "ObjectGraphTests",
            dependencies: [
                "ObjectGraph", "SQLiteStorage", "SectionedChanges", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                // The kill test runs the importer (depending on it makes `swift test` build it); I/O-fault tests.
                "objectgraph-crash-importer", "CFaultVFS",
                // The PostgreSQL store runs the same differential checks (skipped without a server).
                "ObjectGraphPostgres", "ObjectGraphStoreConformance",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "TerminalTableViewTests", dependencies: ["TerminalTableView", "SectionedChanges"]),
        .testTarget(name: "PeopleTests", dependencies: ["People", "PeopleResources", "ObjectGraph", "TerminalTableView"]),
        // The documentation articles' code, compiled and run so that the docs cannot rot.
        .testTarget(
            name: "DocumentationExampleTests",
            dependencies: [
                "ObjectGraph", "ObjectGraphPostgres", "SectionedChanges", "TerminalTableView", "People", "PeopleResources",
                "TestSupport",
            ]
        ),
        .testTarget(name: "PeopleEndToEndTests", dependencies: ["PeopleCommand", "TestSupport"]),
        // Depending on the executable target makes `swift test` build the `objectgraph` binary the tests run.
        .testTarget(name: "ObjectGraphCommandTests", dependencies: ["ObjectGraphCommand", "ObjectGraph", "SQLiteStorage", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
