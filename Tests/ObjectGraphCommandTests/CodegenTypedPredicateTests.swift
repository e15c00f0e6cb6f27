import Foundation
import Testing
import TestSupport

/// `objectgraph codegen` output works with `#Predicate` and `SortDescriptor` as is, and the compiler — not
/// the run time — rejects a predicate with a key path the classes do not have or a value of the wrong type.
@Suite("objectgraph codegen with #Predicate")
struct CodegenTypedPredicateTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-codegen-predicate")

    private func generatedSources() throws -> [String] {
        let model = try ModelFixtures.catalog(in: folder.url)
        let out = folder.file("Generated")
        try ObjectGraphTool.succeed(["codegen", model.path, "--out", out.path])
        return try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
            .map { out.appendingPathComponent($0).path }
    }

    private func typecheck(_ use: String, named name: String) throws -> ChildProcess.Result {
        let swiftc = try #require(SwiftCompiler.path)
        let file = try folder.write(use, to: name)
        return try ChildProcess.run(swiftc,
            ["-typecheck", "-swift-version", "6", "-module-name", "CatalogModel"] + generatedSources() + [file.path]
                + SwiftCompiler.searchPathArguments())
    }

    @Test("typed predicates, sort descriptors and requests over generated classes compile",
        .enabled(if: SwiftCompiler.path != nil, "swiftc was not found on PATH or next to swift; cannot type-check"))
    func typedQueriesCompile() throws {
        let result = try typecheck("""
            import Foundation
            import ObjectGraph

            func requests(minimum: Int16) throws {
                let title = "Zoë"
                _ = try FetchRequest<Book>(
                    predicate: #Predicate { $0.pages >= minimum && $0.title == title && $0.shelf?.name != nil },
                    sortBy: [SortDescriptor(\\.pages, order: .reverse), SortDescriptor(\\.title)])
                _ = try FetchPredicate(#Predicate<Shelf> { shelf in
                    shelf.items.contains { $0.title?.localizedStandardContains("swift") ?? false } && shelf.capacity > 3
                })
                _ = try SortCriterion(\\Book.title, comparison: .localizedStandard)
                _ = try BatchDeleteRequest(predicate: #Predicate<Ebook> { ($0.fileSize ?? 0) > 1_000 })
                _ = try BatchUpdateRequest(predicate: #Predicate<Book> { $0.pages > 900 }, propertiesToUpdate: ["pages": 900])
            }

            // The Fetching article's other typed uses, over the generated classes.
            func controllerAndDictionaries(_ context: ManagedObjectContext, ids: [ManagedObjectID], terms: [String]) throws {
                var request = try FetchRequest<Book>(
                    predicate: #Predicate { book in
                        ids.contains(book.objectID) || terms.allSatisfy { book.title!.localizedStandardContains($0) }
                    },
                    sortCriteria: [try SortCriterion(\\Book.title, comparison: .caseAndDiacriticInsensitive)])
                request.propertiesToFetch = [try .keyPath(\\Book.shelf?.name), try .aggregate(.average, \\Book.pages, as: "mean")]
                request.propertiesToGroupBy = [try ModelKeyPaths.name(of: \\Book.shelf?.name)]
                request.relationshipKeyPathsForPrefetching = [try ModelKeyPaths.name(of: \\Book.shelf)]
                let controller = try FetchedResultsController(
                    fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: \\Book.title)
                try controller.performFetch()
                _ = try context.count(for: request)
                _ = try context.fetchObjectIDs(request)
                _ = try FetchPredicate(#Predicate<Book> { ($0.pages + 10) * 2 > 100 && $0.shelf?.objectID != nil })
            }
            """, named: "Typed.swift")
        #expect(result.status == 0, """
            swiftc -typecheck failed (\(result.statusDescription)):
            \(result.standardError)
            """)
    }

    @Test("a key path the class does not have, or a value of the wrong type, does not compile",
        .enabled(if: SwiftCompiler.path != nil, "swiftc was not found on PATH or next to swift; cannot type-check"),
        arguments: [
            ("$0.pagez > 3", "pagez"),
            ("$0.pages == \"many\"", "String"),
            ("$0.shelf?.capacity == \"x\"", "String"),
        ])
    func wrongPredicatesDoNotCompile(body: String, mentioned: String) throws {
        let result = try typecheck("""
            import Foundation
            import ObjectGraph

            let wrong = #Predicate<Book> { \(body) }
            """, named: "Wrong.swift")
        #expect(result.status != 0, "\(body) compiled")
        #expect(result.standardError.contains(mentioned), "\(result.standardError)")
    }
}
