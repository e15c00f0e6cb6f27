// swift-tools-version:6.1
import PackageDescription

// ObjectGraph's benchmarks: every workload next to its raw SQLite C-API baseline, in the same run.
//
// A package of its own (depending on the main package by path) so that `swift build` / `swift test` of the
// main package never resolve or build ordo-one/benchmark. Run from this folder:
//
//     swift package benchmark                      # the ordo-one harness (workloads 1–3 at 1k/100k)
//     swift run -c release RatioReport             # every workload and its baseline, back to back: ratio table
//     BENCH_1M=1 swift run -c release RatioReport  # … including the 1M-person workloads
let package = Package(
    name: "ObjectGraphBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "ObjectGraph", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The system SQLite, for the raw baselines (the main package's CSQLite is not a product).
        .systemLibrary(name: "CSQLiteRaw", path: "Sources/CSQLiteRaw"),
        // libpq, for the PostgreSQL store's raw baseline (workload 10).
        .systemLibrary(name: "CLibPQRaw", path: "Sources/CLibPQRaw", pkgConfig: "libpq"),
        // The workloads: model, generator, raw baselines, ObjectGraph runs, statistics.
        .target(
            name: "BenchmarkWorkloads",
            dependencies: [
                .product(name: "ObjectGraph", package: "ObjectGraph"),
                .product(name: "ObjectGraphPostgres", package: "ObjectGraph"), "CSQLiteRaw", "CLibPQRaw",
            ]
        ),
        // Runs each workload and its baseline back to back and prints ratios against the goals.
        .executableTarget(name: "RatioReport", dependencies: ["BenchmarkWorkloads"]),
        // The ordo-one harness (wall clock, mallocs, percentiles) for the workloads that need no main queue.
        .executableTarget(
            name: "ObjectGraphBenchmarks",
            dependencies: [.product(name: "Benchmark", package: "benchmark"), "BenchmarkWorkloads"],
            path: "Benchmarks/ObjectGraphBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
