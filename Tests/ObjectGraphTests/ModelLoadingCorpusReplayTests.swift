import Foundation
import Testing

@testable import ObjectGraph

/// Replays every input of the fuzzer's seed corpus (Fuzz/Corpus/ModelLoader, including the crashes the
/// fuzzer found once they were fixed) through the loader: each must give a model or a ModelLoadError,
/// never a crash, and quickly.
@Suite struct ModelLoadingCorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/ModelLoader")

    static func inputs() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func corpusIsThere() {
        #expect(Self.inputs().count >= 30)
    }

    @Test(arguments: inputs())
    func inputLoadsOrFailsWithATypedError(_ name: String) throws {
        let data = try Data(contentsOf: Self.corpus.appendingPathComponent(name))
        let clock = ContinuousClock()
        let start = clock.now
        let outcome: Result<ManagedObjectModel, ModelLoadError>
        do {
            outcome = .success(try ManagedObjectModel.load(xml: data, source: name))
        } catch {
            outcome = .failure(error)
        }
        let elapsed = clock.now - start
        #expect(elapsed < .seconds(5), "\(name) took \(elapsed)")
        switch outcome {
        case .success(let model):
            #expect(!name.hasPrefix("bad_"), "\(name) should have been refused; loaded \(model.entities.count) entities")
        case .failure(let error):
            #expect(!name.hasPrefix("valid_") && !name.hasPrefix("real_"), "\(name): \(error)")
            #expect(error.file == name && !error.description.isEmpty)
            if let line = error.line { #expect(line > 0) }
            if let column = error.column { #expect(column > 0) }
        }
    }

    /// What loading `data` gives, as text: the entity names or the error.
    static func outcome(_ data: Data, _ name: String) -> String {
        do {
            return try ManagedObjectModel.load(xml: data, source: name).entities.map(\.name).joined(separator: ",")
        } catch {
            return error.description
        }
    }

    @Test func concurrentLoadsGiveTheSameOutcomesAsSerialOnes() async throws {
        let inputs = try Self.inputs().map { name in (name, try Data(contentsOf: Self.corpus.appendingPathComponent(name))) }
        let serial = inputs.map { Self.outcome($0.1, $0.0) }
        let concurrent = await withTaskGroup(of: (Int, [String]).self) { group in
            for worker in 0..<4 {
                group.addTask { (worker, inputs.map { Self.outcome($0.1, $0.0) }) }
            }
            var results: [[String]] = []
            for await (_, outcomes) in group { results.append(outcomes) }
            return results
        }
        #expect(concurrent.count == 4)
        for outcomes in concurrent { #expect(outcomes == serial) }
    }
}
