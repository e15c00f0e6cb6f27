import Foundation
import Testing
import TestSupport

/// Runs the "Getting started" article's example and checks what it claims.
@Suite struct GettingStartedTests {
    /// The screen the article shows after the background save.
    static let screenAfterTheSave = """
          Name                City
         Austin ────────────────────────────────
          Edsger Dijkstra     Austin
         London ────────────────────────────────
        ▸ Ada Lovelace        London
          Alan Turing         London
         New York ──────────────────────────────
          Grace Hopper        New York
        """

    @MainActor @Test func theWalkThroughShowsTheListAndItsLiveChange() async throws {
        let folder = TemporaryDirectory(prefix: "docs-getting-started")
        let (before, after, londoners) = try await gettingStarted(in: folder.url)
        #expect(londoners == 2)
        let beforeText = before.joined(separator: "\n")
        #expect(beforeText.contains("Ada Lovelace"))
        #expect(beforeText.contains("Grace Hopper"))
        #expect(!beforeText.contains("Dijkstra"))
        #expect(trimmed(after) == Self.screenAfterTheSave)
    }

    @Test func theArticleShowsTheCodeThatRuns() throws {
        let article = try ArticleSource.text(of: "GettingStarted.md")
        let snippets = try ArticleSource.snippets(in: "GettingStartedExample.swift")
        #expect(snippets.count == 7)
        for (name, code) in snippets {
            #expect(article.contains(code), "snippet \(name) differs from the article")
        }
        #expect(article.contains(Self.screenAfterTheSave))
        // The fetched-results article shows the same list.
        let results = try ArticleSource.text(of: "FetchedResultsAndTableViews.md")
        let list = try #require(snippets.first { $0.name == "people-list" })
        #expect(results.contains(list.code))
    }

    /// Screen lines without trailing blanks and trailing empty lines.
    private func trimmed(_ lines: [String]) -> String {
        var lines = lines.map { line in String(line.reversed().drop { $0 == " " }.reversed()) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
