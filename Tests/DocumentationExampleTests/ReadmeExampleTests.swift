import Foundation
import ObjectGraph
import Testing
import TestSupport

/// Runs the README's code sample and checks that the README shows it word for word.
@Suite struct ReadmeExampleTests {
    /// A delegate that only counts the batches it hears.
    final class CountingDelegate: FetchedResultsControllerDelegate {}

    @MainActor @Test func theSampleFetchesWhatItSaved() async throws {
        let folder = TemporaryDirectory(prefix: "docs-readme")
        let modelURL = folder.file("People.xcdatamodel")
        try FileManager.default.createDirectory(at: modelURL, withIntermediateDirectories: true)
        try Data(peopleModelFile.utf8).write(to: modelURL.appendingPathComponent("contents"))
        let delegate = CountingDelegate()
        let controller = try await ReadmeExample.run(modelURL: modelURL, storeURL: folder.file("People.sqlite"),
                                                     peopleList: delegate)
        #expect(controller.fetchedObjects?.map(\.lastName) == ["Lovelace"])
        #expect(controller.sections?.map(\.name) == ["London"])
    }

    @Test func theReadmeShowsTheCodeThatRuns() throws {
        let readme = try String(contentsOf: ArticleSource.root.appendingPathComponent("README.md"), encoding: .utf8)
        let snippets = try ArticleSource.snippets(in: "ReadmeExample.swift")
        #expect(snippets.count == 2)
        for (name, code) in snippets {
            #expect(readme.contains(code), "snippet \(name) differs from the README")
        }
    }
}
