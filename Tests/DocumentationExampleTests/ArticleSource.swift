import Foundation

/// Reads the documentation articles and the marked snippets of this target's example files, so that a test
/// can check an article shows exactly the code that runs.
enum ArticleSource {
    /// The repository's root, found from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The text of an article of the ObjectGraph catalog.
    static func text(of article: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent("Sources/ObjectGraph/ObjectGraph.docc/\(article)"),
            encoding: .utf8)
    }

    /// The snippets of an example file of this target: the lines between `// article: NAME` and `// end`,
    /// dedented by the first line's indentation, in file order.
    static func snippets(in exampleFile: String) throws -> [(name: String, code: String)] {
        let url = root.appendingPathComponent("Tests/DocumentationExampleTests/\(exampleFile)")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var snippets: [(name: String, code: String)] = []
        var current: (name: String, lines: [Substring])?
        for line in lines {
            let text = line.drop { $0 == " " }
            if text.hasPrefix("// article: ") {
                current = (String(text.dropFirst("// article: ".count)), [])
            } else if text == "// end", let snippet = current {
                let indent = snippet.lines.first.map { $0.prefix { $0 == " " }.count } ?? 0
                let code = snippet.lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
                snippets.append((snippet.name, code.joined(separator: "\n")))
                current = nil
            } else if current != nil {
                current?.lines.append(line)
            }
        }
        return snippets
    }
}
