import Foundation
import PropertyBased
import SQLiteStorage
import Testing
import TestSupport

@testable import ObjectGraph

/// The text search index (``TextSearchIndex``): declared in the model, kept by every write path, and used for
/// folded string comparisons with answers identical to the scan's.
@Suite struct TextSearchIndexTests {
    /// Notes (`n` numbers them) with indexed `title` and `body`, an unindexed `tag`, and a sub-entity `Memo` whose
    /// own `extra` is indexed too: all in the table `ZNOTE`.
    static func model(indexed: Bool) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [
                AttributeDescription(name: "n", type: .integer64),
                AttributeDescription(name: "title", type: .string, isIndexedBySpotlight: indexed),
                AttributeDescription(name: "body", type: .string, isIndexedBySpotlight: indexed),
                AttributeDescription(name: "tag", type: .string),
            ]),
            EntityDescription(name: "Memo", attributes: [
                AttributeDescription(name: "extra", type: .string, isIndexedBySpotlight: indexed),
            ], parentEntity: "Note"),
        ])
    }

    /// A coordinator with one SQLite store at `url` for the (indexed or plain) model, and a context on it.
    struct Stack {
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext

        init(_ url: URL, indexed: Bool) throws {
            coordinator = PersistentStoreCoordinator(managedObjectModel: try TextSearchIndexTests.model(indexed: indexed))
            try coordinator.addPersistentStore(ofType: .sqlite, at: url)
            context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
        }

        var store: SQLiteStore? { coordinator.persistentStores.first?.backend as? SQLiteStore }

        /// The `n` of every note (memos included) the predicate accepts, and the count the store gives for it.
        func numbers(_ predicate: FetchPredicate) throws -> (Set<Int64>, Int) {
            try context.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Note", predicate: predicate)
                let objects = try context.fetch(request)
                let numbers = Set(objects.compactMap { object -> Int64? in
                    if case .integer(let n) = object.value(forKey: "n") { return n }
                    return nil
                })
                return (numbers, try context.count(for: request))
            }
        }
    }

    // MARK: Random text and patterns

    /// Letters in both cases and with accents (composed and decomposed), letters that fold to two, CJK, emoji,
    /// combining marks on their own, the wildcard and escape characters of `LIKE` and SQL, quotes, NUL.
    static let alphabet: [String] = [
        "a", "b", "c", "A", "B", "C", "é", "É", "e\u{301}", "e", "E", "ß", "ss", "S", "Æ", "ae", "ø", "o", "Ö",
        "東", "京", "👍", "👍🏽", "\u{301}", "\u{308}", "%", "_", "*", "?", "\\", " ", "\"", "'", "\u{0}", "İ", "i", "ı",
    ]

    static func randomText(_ random: inout SeededRandom, maximum: Int = 9) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...maximum, using: &random) { text += random.pick(alphabet) }
        return text
    }

    static func randomValue(_ random: inout SeededRandom) -> AttributeValue {
        random.chance(0.1) ? .null : .string(randomText(&random))
    }

    /// A pattern: often a piece of a stored value (so that there are matches), with its case changed; otherwise
    /// random text. `LIKE` patterns get `*` and `?` mixed in.
    static func randomPattern(_ random: inout SeededRandom, from values: [String], like: Bool) -> String {
        var pattern: String
        if random.chance(0.7), let value = values.isEmpty ? nil : random.pick(values) {
            let scalars = Array(value.unicodeScalars)
            let start = scalars.isEmpty ? 0 : Int.random(in: 0..<scalars.count, using: &random)
            let end = scalars.isEmpty ? 0 : Int.random(in: start...scalars.count, using: &random)
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[start..<end])
            pattern = String(view)
            if random.chance(0.5) { pattern = pattern.uppercased() }
        } else {
            pattern = randomText(&random, maximum: 6)
        }
        if like {
            var result = random.chance(0.5) ? "*" : ""
            for character in pattern {
                result.append(character)
                if random.chance(0.15) { result += random.pick(["*", "?", "\\"]) }
            }
            if random.chance(0.5) { result += "*" }
            pattern = result
        }
        return pattern
    }

    static let operators = ["CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "=="]

    /// One comparison, a compound of two or three, or a negation; mostly on indexed keys, with `[cd]`.
    static func randomPredicate(_ random: inout SeededRandom, values: [String]) throws -> FetchPredicate {
        var arguments: [any PredicateArgument] = []
        func comparison() -> String {
            let key = random.pick(["title", "title", "body", "tag"])
            let operation = random.pick(operators)
            let options = random.chance(0.85) ? "[cd]" : random.pick(["", "[c]", "[d]"])
            arguments.append(randomPattern(&random, from: values, like: operation == "LIKE"))
            return "\(key) \(operation)\(options) %@"
        }
        func expression(_ depth: Int) -> String {
            switch depth > 1 ? 0 : Int.random(in: 0...4, using: &random) {
            case 1: return "(\(expression(depth + 1)) AND \(expression(depth + 1)))"
            case 2: return "(\(expression(depth + 1)) OR \(expression(depth + 1)))"
            case 3: return "NOT \(expression(depth + 1))"
            case 4: return "(\(expression(depth + 1)) AND n > \(Int.random(in: 0...300, using: &random)))"
            default: return comparison()
            }
        }
        let format = expression(0)
        return try FetchPredicate(format: format, argumentArray: arguments)
    }

    // MARK: The differential test

    /// Two stores with the same rows, one with the index and one without, written through saves (inserts, updates,
    /// deletes), batch inserts, updates and deletes; after each round, random predicates give the same notes and
    /// counts on both.
    @Test func indexAnswersExactlyAsTheScanThroughEveryWritePath() async throws {
        await propertyCheck(count: 4, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            do {
                try Self.differential(seed: UInt64(seed))
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    static func differential(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let directory = TemporaryDirectory()
        let indexed = try Stack(directory.file("indexed.sqlite"), indexed: true)
        let plain = try Stack(directory.file("plain.sqlite"), indexed: false)
        #expect(indexed.store?.textIndexes["ZNOTE"] != nil && plain.store?.textIndexes.isEmpty == true)
        var next: Int64 = 0
        var compared = 0
        var usedIndex = 0
        for round in 0..<5 {
            // The same writes on both stores.
            var rows: [[String: AttributeValue]] = []
            for _ in 0..<60 {
                var row: [String: AttributeValue] = ["n": .integer(next), "title": randomValue(&random),
                    "body": randomValue(&random), "tag": randomValue(&random)]
                if random.chance(0.3) { row["extra"] = randomValue(&random) }
                rows.append(row)
                next += 1
            }
            let updates = (0..<20).map { _ in (Int64.random(in: 0..<next, using: &random), randomValue(&random)) }
            let deletes = (0..<8).map { _ in Int64.random(in: 0..<next, using: &random) }
            let batchRows = (0..<10).map { offset -> [String: AttributeValue] in
                ["n": .integer(next + Int64(offset)), "title": randomValue(&random), "body": randomValue(&random)]
            }
            next += 10
            let batchTitle = randomValue(&random)
            let threshold = Int64.random(in: 0..<next, using: &random)
            for stack in [indexed, plain] {
                try stack.context.performAndWait {
                    for row in rows {
                        let object = try stack.context.insertNewObject(forEntityName: row["extra"] == nil ? "Note" : "Memo")
                        for (key, value) in row { object.setValue(value, forKey: key) }
                    }
                    try stack.context.save()
                    for (n, value) in updates {
                        for object in try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Note",
                            predicate: try FetchPredicate(format: "n == %d", Int(n))))
                        {
                            object.setValue(value, forKey: "title")
                        }
                    }
                    for n in deletes {
                        for object in try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Note",
                            predicate: try FetchPredicate(format: "n == %d", Int(n))))
                        {
                            stack.context.delete(object)
                        }
                    }
                    try stack.context.save()
                    _ = try stack.context.execute(BatchInsertRequest(entityName: "Note", objects: batchRows))
                    _ = try stack.context.execute(BatchUpdateRequest(entityName: "Note",
                        predicate: try FetchPredicate(format: "n >= %d AND n < %d", Int(threshold / 2), Int(threshold / 2 + 15)),
                        propertiesToUpdate: ["title": batchTitle, "body": .string("Batch É\(round)")]))
                    _ = try stack.context.execute(BatchDeleteRequest(entityName: "Note",
                        predicate: try FetchPredicate(format: "n >= %d AND n < %d", Int(threshold), Int(threshold + 6))))
                    stack.context.reset()
                }
            }
            // Now and then the pending rows go into the index, so that later rounds update and delete indexed rows.
            if random.chance(0.5) { try indexed.store?.flushTextIndexes() }
            // What the store holds, for patterns to come from.
            let stored = try plain.context.performAndWait {
                try plain.context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).flatMap { object in
                    ["title", "body", "extra"].compactMap { key -> String? in
                        if case .string(let text) = object.value(forKey: key) { return text }
                        return nil
                    }
                }
            }
            for _ in 0..<80 {
                let predicate = try randomPredicate(&random, values: stored)
                let expected = try plain.numbers(predicate)
                let actual = try indexed.numbers(predicate)
                #expect(actual.0 == expected.0, "seed \(seed) round \(round): \(predicate.predicateFormat)")
                #expect(actual.1 == expected.1, "seed \(seed) round \(round) count: \(predicate.predicateFormat)")
                compared += 1
                if let store = indexed.store, let entity = indexed.coordinator.managedObjectModel.entity(named: "Note"),
                    try store.whereClause(store.layout(of: entity), predicate, includesSubentities: true).0
                        .contains("MATCH")
                {
                    usedIndex += 1
                }
            }
        }
        // The test means something only if many of the predicates went through the index.
        #expect(usedIndex > compared / 4, "seed \(seed): \(usedIndex) of \(compared) predicates used the index")
    }

    // MARK: When the index is used, built and dropped

    /// The `WHERE` clause the store compiles for `format` on notes.
    static func whereSQL(_ stack: Stack, _ format: String, _ arguments: any PredicateArgument...) throws -> String {
        let store = try #require(stack.store)
        let entity = try #require(stack.coordinator.managedObjectModel.entity(named: "Note"))
        return try store.whereClause(store.layout(of: entity), FetchPredicate(format: format, argumentArray: arguments),
            includesSubentities: true).0
    }

    @Test func onlyFoldedComparisonsOfIndexedAttributesWithThreeCharactersUseTheIndex() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(directory.file("n.sqlite"), indexed: true)
        for format in ["title CONTAINS[cd] %@", "title BEGINSWITH[cd] %@", "body ENDSWITH[cd] %@", "title ==[cd] %@",
            "title LIKE[cd] %@", "n > 3 AND (title CONTAINS[cd] %@ OR tag == 'x')"]
        {
            let sql = try Self.whereSQL(stack, format, "Mül*ler")
            #expect(sql.contains("ZNOTE_TEXTINDEX MATCH") && !sql.contains("CASE"), "\(format): \(sql)")
        }
        // A search field's OR over indexed keys looks the union of candidates up once.
        let search = try Self.whereSQL(stack, "title CONTAINS[cd] %@ OR body CONTAINS[cd] %@", "müller", "zoë")
        #expect(search.components(separatedBy: "MATCH").count == 2, "\(search)")
        // SQLite looks the candidates up by primary key rather than reading every row.
        let store = try #require(stack.store)
        let entity = try #require(stack.coordinator.managedObjectModel.entity(named: "Note"))
        let (clause, bindings) = try store.whereClause(store.layout(of: entity),
            FetchPredicate(format: "title CONTAINS[cd] %@ OR body CONTAINS[cd] %@", "müller", "zoë"), includesSubentities: true)
        let plan = try store.withReader { connection throws(ObjectGraphError) in
            try store.sqlite {
                try connection.rows("EXPLAIN QUERY PLAN SELECT t0.Z_PK FROM ZNOTE t0" + clause + " ORDER BY t0.ZTITLE",
                    bindings.map(\.sqliteValue)).compactMap { row -> String? in
                    if case .text(let detail) = row[3] { return detail }
                    return nil
                }
            }
        }
        #expect(plan.contains { $0.hasPrefix("SEARCH t0 ") && ($0.contains("rowid=?") || $0.contains("PRIMARY KEY")) },
            "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN t0") }, "\(plan)")
        // Under NOT the scan's NULL for a nil title is kept.
        #expect(try Self.whereSQL(stack, "NOT title CONTAINS[cd] %@", "müller").contains("CASE WHEN"))
        for (format, argument) in [("title CONTAINS[cd] %@", "mü"), ("title CONTAINS[c] %@", "müller"),
            ("title CONTAINS %@", "müller"), ("tag CONTAINS[cd] %@", "müller"), ("title LIKE[cd] %@", "ab*cd?ef"),
            ("title MATCHES[cd] %@", "müller")]
        {
            #expect(!(try Self.whereSQL(stack, format, argument)).contains("MATCH ?"), "\(format) \(argument)")
        }
    }

    /// The names of the text index tables and triggers in the file.
    static func indexObjects(_ url: URL) throws -> [String] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { connection.close() }
        return try connection.rows("SELECT name FROM sqlite_master WHERE name GLOB '*_TEXTINDEX*' "
            + "AND (type = 'trigger' OR sql LIKE 'CREATE VIRTUAL TABLE%') ORDER BY name").compactMap { row in
            if case .text(let name) = row[0] { return name }
            return nil
        }
    }

    @Test func anExistingStoreGetsTheIndexWhenTheModelAsksAndLosesItWhenTheModelDropsIt() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("n.sqlite")
        let texts = ["Müller", "MULLER", "Zoë Müllerová", "mull", nil, "東京 müller"]
        do {
            let stack = try Stack(url, indexed: false)
            try stack.context.performAndWait {
                for (n, text) in texts.enumerated() {
                    let object = try stack.context.insertNewObject(forEntityName: "Note")
                    object.setValue(.integer(Int64(n)), forKey: "n")
                    object.setValue(text.map(AttributeValue.string) ?? .null, forKey: "title")
                }
                try stack.context.save()
            }
        }
        #expect(try Self.indexObjects(url).isEmpty)
        let contains = try FetchPredicate(format: "title CONTAINS[cd] %@", "MÜLLER")
        do {
            let stack = try Stack(url, indexed: true)
            #expect(try Self.indexObjects(url) == ["ZNOTE_TEXTINDEX", "ZNOTE_TEXTINDEX_DELETE", "ZNOTE_TEXTINDEX_FLUSH",
                "ZNOTE_TEXTINDEX_INSERT", "ZNOTE_TEXTINDEX_UPDATE"])
            #expect(try Self.whereSQL(stack, "title CONTAINS[cd] %@", "MÜLLER").contains("MATCH"))
            #expect(try stack.numbers(contains).0 == [0, 1, 2, 5])
            #expect(try stack.numbers(FetchPredicate(format: "NOT title CONTAINS[cd] %@", "MÜLLER")).0 == [3])
        }
        do {
            let stack = try Stack(url, indexed: false)
            #expect(try Self.indexObjects(url).isEmpty)
            try stack.context.performAndWait {
                let object = try stack.context.insertNewObject(forEntityName: "Note")
                object.setValue(.integer(9), forKey: "n")
                object.setValue(.string("müller again"), forKey: "title")
                try stack.context.save()
            }
            #expect(try stack.numbers(contains).0 == [0, 1, 2, 5, 9])
        }
        // Built again, with the row written while it was away.
        let stack = try Stack(url, indexed: true)
        #expect(try stack.numbers(contains).0 == [0, 1, 2, 5, 9])
    }

    /// A migration that renames an indexed attribute and adds one rebuilds the index over the new columns, in its
    /// transaction; the rows are found through it afterwards.
    @Test func migrationBuildsTheIndexAgain() throws {
        let directory = TemporaryDirectory()
        let bundle = try MigrationFixtures.bundle([
            """
            <entity name="Note"><attribute name="title" optional="YES" attributeType="String" spotlightIndexingEnabled="YES"/></entity>
            """,
            """
            <entity name="Note">
                <attribute name="heading" optional="YES" attributeType="String" renamingIdentifier="title" spotlightIndexingEnabled="YES"/>
                <attribute name="mood" optional="YES" attributeType="String" spotlightIndexingEnabled="YES"/>
            </entity>
            """,
        ], in: directory)
        let url = directory.file("m.sqlite")
        do {
            let coordinator = try MigrationFixtures.open(url, bundle: bundle, version: "Test")
            let context = MigrationFixtures.context(coordinator)
            try context.performAndWait {
                for title in ["Müller", "Zoë", "MULLERS"] {
                    try context.insertNewObject(forEntityName: "Note")["title"] = title
                }
                try context.save()
            }
        }
        #expect(try Self.indexObjects(url).count == 5)
        try LightweightMigrator(bundleURL: bundle).migrate(storeAt: url)
        do {
            // The migration itself left the index built over the new columns, with its triggers.
            let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
            defer { connection.close() }
            #expect(try connection.scalar("SELECT count(*) FROM ZNOTE_TEXTINDEX WHERE ZNOTE_TEXTINDEX MATCH ?",
                [.text("\"mul\"")]) == .integer(2))
            #expect(try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' "
                + "AND sql LIKE '%ZHEADING, ZMOOD%'") == .integer(3))
        }
        let coordinator = try MigrationFixtures.open(url, bundle: bundle)
        let store = try #require(coordinator.persistentStores.first?.backend as? SQLiteStore)
        #expect(store.textIndexes["ZNOTE"]?.columns == ["ZHEADING", "ZMOOD"])
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Note",
                predicate: try FetchPredicate(format: "heading CONTAINS[cd] %@", "mull"))
            #expect(try context.fetch(request).compactMap { $0["heading"] as String? }.sorted() == ["MULLERS", "Müller"])
            let note = try context.insertNewObject(forEntityName: "Note")
            note["mood"] = "Grüße"
            try context.save()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Note",
                predicate: try FetchPredicate(format: "mood CONTAINS[cd] %@", "GRUSSE"))) == 1)
        }
    }

    /// Rows written go to the pending table; past ``TextSearchIndex/pendingLimit`` of them the triggers take them
    /// all into the index in the writing transaction. Answers stay the scan's before and after.
    @Test func pendingRowsGoIntoTheIndexByTheThousand() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("p.sqlite")
        let indexed = try Stack(url, indexed: true)
        let plain = try Stack(directory.file("q.sqlite"), indexed: false)
        func pending() throws -> Int64? {
            let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
            defer { connection.close() }
            guard case .integer(let count)? = try connection.scalar("SELECT count(*) FROM ZNOTE_TEXTINDEX_PENDING") else {
                return nil
            }
            return count
        }
        let names = ["Müller", "Zoë", "Straße", "東京タワー", "Ærøskøbing"]
        var written = 0
        func write(_ count: Int) throws {
            let rows = (0..<count).map { offset -> [String: AttributeValue] in
                ["n": .integer(Int64(written + offset)), "title": .string("\(names[(written + offset) % names.count]) \(written + offset)")]
            }
            written += count
            for stack in [indexed, plain] {
                _ = try stack.context.performAndWait { try stack.context.execute(BatchInsertRequest(entityName: "Note", objects: rows)) }
            }
        }
        try write(100)
        #expect(try pending() == 100)
        try write(TextSearchIndex.pendingLimit)
        #expect(try #require(try pending()) < 256, "taken in when the limit was reached")
        for (format, argument) in [("title CONTAINS[cd] %@", "MULLER 1"), ("title BEGINSWITH[cd] %@", "strasse"),
            ("title ENDSWITH[cd] %@", "99"), ("NOT title CONTAINS[cd] %@", "zoe")]
        {
            let predicate = try FetchPredicate(format: format, argument)
            #expect(try indexed.numbers(predicate) == plain.numbers(predicate), "\(format) \(argument)")
        }
    }

    /// A controller's fetch and its following of a save, and batch updates and deletes whose predicates use the
    /// index, give what they give without it.
    @Test func controllersAndBatchRequestsAnswerAsWithoutTheIndex() throws {
        let directory = TemporaryDirectory()
        let indexed = try Stack(directory.file("c.sqlite"), indexed: true)
        let plain = try Stack(directory.file("d.sqlite"), indexed: false)
        let titles = ["Müller", "MULLER 7", "Straße 17", "strasse", "Zoë", "ZOE 27", "東京 müller", nil, "mull"]
        for stack in [indexed, plain] {
            try stack.context.performAndWait {
                for (n, title) in titles.enumerated() {
                    let note = try stack.context.insertNewObject(forEntityName: "Note")
                    note.setValue(.integer(Int64(n)), forKey: "n")
                    note.setValue(title.map(AttributeValue.string) ?? .null, forKey: "title")
                    note.setValue(.string(n % 2 == 0 ? "Zoë's note" : "other"), forKey: "body")
                }
                try stack.context.save()
            }
        }
        func controllerNumbers(_ stack: Stack) throws -> [Int64] {
            try stack.context.performAndWait {
                var request = FetchRequest<ManagedObject>(entityName: "Note",
                    predicate: try FetchPredicate(format: "title CONTAINS[cd] %@ OR body BEGINSWITH[cd] %@", "muller", "ZOE'S"),
                    sortCriteria: [SortCriterion("n")])
                request.fetchBatchSize = 3
                let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context)
                let follower = Follower()
                controller.delegate = follower
                try controller.performFetch()
                // A new matching note, saved in the controller's context, joins its results.
                let note = try stack.context.insertNewObject(forEntityName: "Note")
                note.setValue(.integer(100), forKey: "n")
                note.setValue(.string("Herr Müller"), forKey: "title")
                try stack.context.save()
                #expect(follower.changes > 0)
                return (controller.fetchedObjects ?? []).compactMap {
                    if case .integer(let n) = $0.value(forKey: "n") { return n }
                    return nil
                }
            }
        }
        let viaIndex = try controllerNumbers(indexed)
        #expect(viaIndex == [0, 1, 2, 4, 6, 8, 100])
        #expect(viaIndex == (try controllerNumbers(plain)))
        for stack in [indexed, plain] {
            _ = try stack.context.performAndWait {
                _ = try stack.context.execute(BatchUpdateRequest(entityName: "Note",
                    predicate: try FetchPredicate(format: "title ENDSWITH[cd] %@", " 7"), propertiesToUpdate: ["body": "seven"]))
                return try stack.context.execute(BatchDeleteRequest(entityName: "Note",
                    predicate: try FetchPredicate(format: "title LIKE[cd] %@", "*STRASSE*")))
            }
        }
        let everything = try FetchPredicate(format: "TRUEPREDICATE")
        #expect(try indexed.numbers(everything) == plain.numbers(everything))
        #expect(try indexed.numbers(everything).0 == [0, 1, 4, 5, 6, 7, 8, 100])
        let seven = try FetchPredicate(format: "body ==[cd] %@", "SEVEN")
        #expect(try indexed.numbers(seven).0 == [1])
        #expect(try indexed.numbers(seven) == plain.numbers(seven))
    }

    /// A controller's delegate that counts the content changes it hears (a controller follows changes only with one).
    final class Follower: FetchedResultsControllerDelegate {
        var changes = 0
        func controllerDidChangeContent(_ controller: AnyFetchedResultsController) { changes += 1 }
    }

    /// `#Predicate`s become the same comparisons, so they use the index too.
    @Test func typedPredicatesUseTheIndex() throws {
        let directory = TemporaryDirectory()
        let indexed = try Stack(directory.file("t.sqlite"), indexed: true)
        let plain = try Stack(directory.file("u.sqlite"), indexed: false)
        for stack in [indexed, plain] {
            try stack.context.performAndWait {
                for (n, title) in ["Müller", "MULLER", "Zoë Mullerová", "mull", "Straße"].enumerated() {
                    let note = try stack.context.insertNewObject(forEntityName: "Note")
                    note.setValue(.integer(Int64(n)), forKey: "n")
                    note.setValue(.string(title), forKey: "title")
                }
                try stack.context.save()
            }
        }
        let predicate = try FetchPredicate(#Predicate<TypedNote> { $0.title?.localizedStandardContains("MÜLLER") ?? false })
        #expect(predicate.predicateFormat.contains("CONTAINS[cd]"), "\(predicate.predicateFormat)")
        let store = try #require(indexed.store)
        let entity = try #require(indexed.coordinator.managedObjectModel.entity(named: "Note"))
        #expect(try store.whereClause(store.layout(of: entity), predicate, includesSubentities: true).0.contains("MATCH"))
        #expect(try indexed.numbers(predicate).0 == [0, 1, 2])
        #expect(try indexed.numbers(predicate) == plain.numbers(predicate))
    }
}

/// A typed class of the notes, for `#Predicate`s (not registered with the model; translation needs the class only).
final class TypedNote: ManagedObject {
    @Attribute("n") var n: Int64
    @Attribute("title") var title: String?

    override class var entityName: String { "Note" }
}
