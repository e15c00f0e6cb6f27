import BenchmarkWorkloads
import Foundation

extension Suite {
    // MARK: 9. people import (the app's pipeline)

    /// `people import` of a JSON Lines file against the engine's import of the same rows into a store of the same
    /// model and options, interleaved, median of `repeats`. Needs the `people` executable beside this one
    /// (`swift build -c release --product people`, which `Scripts/ratios.sh` runs).
    func peopleImport() throws {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("people")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            report.note("== people import: skipped, no people executable at \(binary.path) "
                + "(swift build -c release --product people)")
            return
        }
        var sizes = [count]
        if millions { sizes.append(1_000_000) }
        let batchSize = 1000
        for size in sizes {
            let rounds = size >= 1_000_000 ? 1 : repeats
            report.note("== people import: \(size) people, \(batchSize) per save, People model with history and its "
                + "text index (median of \(rounds), interleaved)")
            let rows = { var generator = PersonGenerator(seed: 1); return generator.people(size) }()
            let file = StoreFile.scratch.appendingPathComponent("people-\(size).jsonl")
            try PeopleImportWorkload.write(rows, to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            var engine: [Double] = []
            var app: [Double] = []
            var engineCPU: [Double] = []
            var appCPU: [Double] = []
            for round in 0..<rounds {
                let engineStore = StoreFile(url: StoreFile.scratch.appendingPathComponent("people-engine-\(round).sqlite"),
                    index: .none)
                engineStore.remove()
                let cpuBefore = PeopleImportWorkload.processorSeconds(children: false)
                engine.append(try PeopleImportWorkload.engine(rows: rows, into: engineStore.url, batchSize: batchSize))
                engineCPU.append(PeopleImportWorkload.processorSeconds(children: false) - cpuBefore)
                engineStore.remove()
                let appStore = StoreFile(url: StoreFile.scratch.appendingPathComponent("people-app-\(round).sqlite"),
                    index: .none)
                appStore.remove()
                let childBefore = PeopleImportWorkload.processorSeconds(children: true)
                app.append(try PeopleImportWorkload.app(binary: binary, file: file, into: appStore.url, batchSize: batchSize))
                appCPU.append(PeopleImportWorkload.processorSeconds(children: true) - childBefore)
                appStore.remove()
            }
            report.note(String(format: "     processor time (user + system, all threads): app %.1f s, engine %.1f s (%.2f×)",
                Measure.median(appCPU), Measure.median(engineCPU), Measure.median(engineCPU) / Measure.median(appCPU)))
            let engineSeconds = Measure.median(engine)
            let appSeconds = Measure.median(app)
            let speed = engineSeconds / appSeconds
            report.add(Line(workload: "9. people import \(size / 1000)k, JSON Lines (the app's pipeline, process start to exit)",
                objectGraph: "\(ms(appSeconds)) (\(rate(size, appSeconds)))",
                raw: "engine, same model and options: \(ms(engineSeconds)) (\(rate(size, engineSeconds)))",
                ratio: "\(fixed(speed))× engine speed", goal: "≥ 0.70× engine", met: speed >= 0.7))
        }
    }
}
