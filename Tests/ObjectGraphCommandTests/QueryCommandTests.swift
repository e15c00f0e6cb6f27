import Foundation
import ObjectGraph
import Testing
import TestSupport

/// `objectgraph query`: predicates, sorting, limits, counts, JSON and tables.
@Suite("objectgraph query")
struct QueryCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-query")
    let model: String
    var store: String { folder.file("catalog.sqlite").path }

    init() throws {
        model = try ModelFixtures.catalog(in: folder.url).path
        let shelves = try folder.write("""
            [{"name": "Oak", "capacity": 12, "rating": 4.5},
             {"name": "pine", "capacity": 3, "rating": 2},
             {"name": "Birch", "capacity": 12},
             {"name": "Ærø", "capacity": 7, "rating": 5, "addedAt": "2024-03-01T12:30:00Z"},
             {"name": "東京", "capacity": 1, "rating": 1.25}]
            """, to: "shelves.json")
        let books = try folder.write("[{\"title\": \"Paper\", \"pages\": 100}]", to: "books.json")
        let ebooks = try folder.write("[{\"title\": \"Bits\", \"pages\": 50, \"fileSize\": 2048}]", to: "ebooks.json")
        for (entity, file) in [("Shelf", shelves), ("Book", books), ("Ebook", ebooks)] {
            try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", entity, file.path])
        }
    }

    private func query(_ arguments: [String]) throws -> ChildProcess.Result {
        try ObjectGraphTool.run(["query", "--model", model, "--store", store] + arguments)
    }

    private func names(_ arguments: [String]) throws -> [String] {
        let result = try query(["--entity", "Shelf", "--json"] + arguments)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let rows = try #require(try jsonObject(result.standardOutput) as? [[String: Any]])
        return rows.compactMap { $0["name"] as? String }
    }

    @Test("--where filters with a predicate format string")
    func wherePredicate() throws {
        #expect(try names(["--where", "capacity >= 7", "--sort", "name"]) == ["Birch", "Oak", "Ærø"])
        #expect(try names(["--where", "name BEGINSWITH[cd] 'a'"]) == ["Ærø"])
        #expect(try names(["--where", "rating == nil"]) == ["Birch"])
        #expect(try names(["--where", "capacity == 12 AND rating > 4"]) == ["Oak"])
    }

    @Test("--sort orders by several keys, ascending or :desc")
    func sort() throws {
        #expect(try names(["--sort", "capacity:desc", "--sort", "name"]) == ["Birch", "Oak", "Ærø", "pine", "東京"])
        #expect(try names(["--sort", "capacity", "--sort", "name:desc"]) == ["東京", "pine", "Ærø", "Oak", "Birch"])
        #expect(try names(["--sort", "name:asc"]) == ["Birch", "Oak", "pine", "Ærø", "東京"])
    }

    @Test("--limit and --offset page through the results")
    func limitAndOffset() throws {
        #expect(try names(["--sort", "capacity", "--limit", "2"]) == ["東京", "pine"])
        #expect(try names(["--sort", "capacity", "--sort", "name", "--offset", "3"]) == ["Birch", "Oak"])
        #expect(try names(["--sort", "capacity", "--sort", "name", "--offset", "1", "--limit", "2"]) == ["pine", "Ærø"])
    }

    @Test("--count prints one number, after --where, --offset and --limit")
    func count() throws {
        #expect(try query(["--entity", "Shelf", "--count"]).standardOutput == "5\n")
        #expect(try query(["--entity", "Shelf", "--count", "--where", "capacity > 5"]).standardOutput == "3\n")
        #expect(try query(["--entity", "Shelf", "--count", "--limit", "2"]).standardOutput == "2\n")
        #expect(try query(["--entity", "Shelf", "--count", "--offset", "4"]).standardOutput == "1\n")
        #expect(try query(["--entity", "Book", "--count"]).standardOutput == "2\n", "sub-entities are included")
    }

    @Test("--json gives every stored attribute and the objectID URI")
    func json() throws {
        let result = try query(["--entity", "Shelf", "--json", "--where", "name == 'Ærø'"])
        let rows = try #require(try jsonObject(result.standardOutput) as? [[String: Any]])
        let row = try #require(rows.first)
        #expect(Set(row.keys) == ["objectID", "name", "capacity", "rating", "addedAt", "photo", "homepage", "default", "extra"])
        let objectID = try #require(row["objectID"] as? String)
        #expect(objectID.hasPrefix("x-coredata://") && objectID.contains("/Shelf/p"))
        #expect(row["capacity"] as? Int == 7)
        #expect(row["rating"] as? Double == 5)
        #expect(row["addedAt"] as? String == "2024-03-01T12:30:00Z")
        #expect(row["photo"] is NSNull)

        let books = try #require(try jsonObject(try query(["--entity", "Book", "--json", "--sort", "pages"]).standardOutput)
            as? [[String: Any]])
        #expect(books.count == 2)
        #expect(books.first?["fileSize"] as? Int == 2048, "a sub-entity's object lists its own attributes too")
        #expect(books.last?["fileSize"] == nil)
    }

    @Test("the text table aligns columns by display width and right-aligns numbers")
    func table() throws {
        let result = try query(["--entity", "Shelf", "--sort", "capacity"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        try #require(lines.count == 7, "\(result.standardOutput)")
        #expect(lines[0].hasPrefix("objectID  "))
        #expect(lines[1].allSatisfy { $0 == "─" || $0 == " " })
        #expect(lines[2].contains("東京") && lines[3].contains("pine"))
        // Columns: objectID, name, capacity (right-aligned), … Every row's capacity ends in the same
        // terminal cell as the header's "capacity", although 東京 takes four cells in two characters.
        let header = lines[0]
        let capacityEnd = Self.cells(String(header[..<(try #require(header.range(of: "capacity")).upperBound)]))
        for line in lines.dropFirst(2) {
            var prefix = ""
            for character in line where Self.cells(prefix) < capacityEnd { prefix.append(character) }
            #expect(Self.cells(prefix) == capacityEnd, "\(line)")
            #expect(prefix.last?.isNumber == true, "capacity is right-aligned at cell \(capacityEnd): \(line)")
        }
    }

    /// Terminal cells: two for CJK ideographs, one for everything else in these tests.
    private static func cells(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ((0x4E00...0x9FFF).contains($1.value) ? 2 : 1) }
    }

    @Test("a bad --where prints the error with its column; bad --sort keys and entities are errors")
    func errors() throws {
        let syntax = try query(["--entity", "Shelf", "--where", "capacity >> 3"])
        #expect(syntax.status != 0)
        #expect(syntax.standardError.contains("column 11"), "stderr: \(syntax.standardError)")
        #expect(syntax.standardError.contains("capacity >> 3"))
        #expect(syntax.standardOutput.isEmpty)

        let unknownKey = try query(["--entity", "Shelf", "--where", "colour == 'red'"])
        #expect(unknownKey.status != 0)
        #expect(unknownKey.standardError.contains("'colour'"))

        let sortKey = try query(["--entity", "Shelf", "--sort", "colour"])
        #expect(sortKey.status != 0)
        #expect(sortKey.standardError.contains("--sort 'colour'"))

        let direction = try query(["--entity", "Shelf", "--sort", "name:down"])
        #expect(direction.status != 0)
        #expect(direction.standardError.contains("asc or desc"))

        let entity = try query(["--entity", "Nope"])
        #expect(entity.status != 0)
        #expect(entity.standardError.contains("no entity named 'Nope'"))

        let missing = try ObjectGraphTool.run(
            ["query", "--model", model, "--store", folder.file("missing.sqlite").path, "--entity", "Shelf"])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("missing.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("missing.sqlite").path), "query never creates a store")

        let negative = try query(["--entity", "Shelf", "--limit", "-1"])
        #expect(negative.status != 0)
    }
}

/// `objectgraph query` with the whole predicate language: key paths, qualifiers, collection operators,
/// subqueries, typed `--arg` values, fetch request templates with `--var`, and sorting by key paths.
@Suite("objectgraph query: relationships, arguments and templates")
struct QueryLanguageCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-query-language")
    let model: String
    var store: String { folder.file("staff.sqlite").path }

    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" \
        systemVersion="23D60" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Person" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <attribute name="age" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                <attribute name="born" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="active" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <relationship name="company" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Company" \
        inverseName="employees" inverseEntity="Company"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" \
        inverseName="people" inverseEntity="Tag"/>
            </entity>
            <entity name="Company" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <attribute name="city" optional="YES" attributeType="String"/>
                <relationship name="employees" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" \
        inverseName="company" inverseEntity="Person"/>
            </entity>
            <entity name="Tag" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <relationship name="people" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" \
        inverseName="tags" inverseEntity="Person"/>
            </entity>
            <fetchRequest name="InCity" entity="Person" predicateString="company.city ==[cd] $CITY"/>
            <fetchRequest name="OlderThan" entity="Person" predicateString="age &gt; $AGE"/>
            <fetchRequest name="Tagged" entity="Person" predicateString="ANY tags.name ==[c] $TAG"/>
        </model>
        """

    /// Ada (36, Acme in Zürich, swift+sql), Bob (17, Acme), Zoë (25, Initech in Oslo, swift), Émile (no age,
    /// no company), and a person named like an injection attack (50, Initech).
    init() throws {
        let bundle = try ModelFixtures.write(Self.contents, named: "Staff", in: folder.url)
        model = bundle.path
        let loaded = try ManagedObjectModel.load(contentsOf: bundle)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: loaded)
        try coordinator.addPersistentStore(ofType: .sqlite, at: folder.file("staff.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            func insert(_ entity: String, _ values: [String: AttributeValue]) throws -> ManagedObject {
                let object = try context.insertNewObject(forEntityName: entity)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let acme = try insert("Company", ["name": "Acme", "city": "Zürich"])
            let initech = try insert("Company", ["name": "Initech", "city": "Oslo"])
            let swift = try insert("Tag", ["name": "Swift"])
            let sql = try insert("Tag", ["name": "SQL"])
            let born = { (text: String) in AttributeValue.date(ISO8601DateFormatter().date(from: text) ?? Date()) }
            let ada = try insert("Person", ["name": "Ada", "age": 36, "born": born("1989-12-10T00:00:00Z"), "active": true])
            let bob = try insert("Person", ["name": "Bob", "age": 17, "born": born("2008-05-01T00:00:00Z"), "active": false])
            let zoe = try insert("Person", ["name": "Zoë", "age": 25, "born": born("2000-02-29T00:00:00Z")])
            _ = try insert("Person", ["name": "Émile"])
            let hostile = try insert("Person", ["name": "x' OR 1=1 --", "age": 50])
            for person in [ada, bob] { person.setRelatedObject(acme, forKey: "company") }
            for person in [zoe, hostile] { person.setRelatedObject(initech, forKey: "company") }
            for (person, tag) in [(ada, swift), (ada, sql), (zoe, swift)] { person.addRelatedObject(tag, forKey: "tags") }
            try context.save()
        }
    }

    private func query(_ arguments: [String]) throws -> ChildProcess.Result {
        try ObjectGraphTool.run(["query", "--model", model, "--store", store] + arguments)
    }

    /// The names `query --json` prints (in its order), or the failure.
    private func names(_ arguments: [String], entity: String? = "Person") throws -> [String] {
        let result = try query((entity.map { ["--entity", $0] } ?? []) + ["--json"] + arguments)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let rows = try #require(try jsonObject(result.standardOutput) as? [[String: Any]])
        return rows.compactMap { $0["name"] as? String }
    }

    @Test("--where reads key paths, qualifiers, collection operators and subqueries")
    func language() throws {
        let cases: [(String, [String])] = [
            ("company.name ==[cd] 'ACME'", ["Ada", "Bob"]),
            ("company.city BEGINSWITH 'Z'", ["Ada", "Bob"]),
            ("company == nil", ["Émile"]),
            ("ANY tags.name ==[c] 'swift'", ["Ada", "Zoë"]),
            ("ALL tags.name ==[c] 'swift'", ["Bob", "Zoë", "Émile", "x' OR 1=1 --"]),
            ("NONE tags.name == 'SQL'", ["Bob", "Zoë", "Émile", "x' OR 1=1 --"]),
            ("tags.@count == 2", ["Ada"]),
            ("company.employees.@count == 2 AND age < 30", ["Bob", "Zoë"]),
            ("company.employees.@avg.age > 30", ["Zoë", "x' OR 1=1 --"]),
            ("SUBQUERY(tags, $t, $t.name == 'SQL').@count > 0", ["Ada"]),
            ("'Swift' IN tags.name AND NOT age > 30", ["Zoë"]),
            ("age == nil OR active == NO", ["Bob", "Émile"]),
        ]
        for (format, expected) in cases {
            #expect(try names(["--where", format, "--sort", "name"]) == expected.sorted(), "\(format)")
        }
        #expect(try names(["--where", "employees.@count > 1", "--sort", "name"], entity: "Company") == ["Acme", "Initech"])
    }

    @Test("--arg values are typed by what they are compared with; a JSON array is a list")
    func typedArguments() throws {
        #expect(try names(["--where", "age > %@", "--arg", "20", "--sort", "age"]) == ["Zoë", "Ada", "x' OR 1=1 --"])
        #expect(try names(["--where", "age >= %d AND age < %d", "--arg", "17", "--arg", "30", "--sort", "age"])
            == ["Bob", "Zoë"])
        #expect(try names(["--where", "born > %@", "--arg", "1995-01-01", "--sort", "name"]) == ["Bob", "Zoë"])
        #expect(try names(["--where", "born < %@", "--arg", "1990-01-01T00:00:00Z"]) == ["Ada"])
        #expect(try names(["--where", "active == %@", "--arg", "true"]) == ["Ada"])
        #expect(try names(["--where", "name IN %@", "--arg", "[\"Ada\", \"Zoë\", null]", "--sort", "name"]) == ["Ada", "Zoë"])
        #expect(try names(["--where", "age IN %@", "--arg", "[17, 25]", "--sort", "name"]) == ["Bob", "Zoë"])
        #expect(try names(["--where", "age BETWEEN %@", "--arg", "[20, 40]", "--sort", "name"]) == ["Ada", "Zoë"])
        #expect(try names(["--where", "%K == %@", "--arg", "company.name", "--arg", "Initech", "--sort", "name"])
            == ["Zoë", "x' OR 1=1 --"])
        #expect(try names(["--where", "tags.@count == %@", "--arg", "1"]) == ["Zoë"])
        // Injection-shaped values are values, and come back verbatim.
        #expect(try names(["--where", "name == %@", "--arg", "x' OR 1=1 --"]) == ["x' OR 1=1 --"])
        #expect(try names(["--where", "name == %@", "--arg", "' OR '1'='1"]) == [])
        #expect(try names(["--where", "company.name == %@ OR name == %@", "--arg", "\"; DROP TABLE ZPERSON; --",
            "--arg", "Bob"]) == ["Bob"])
        #expect(try names(["--sort", "name"]).count == 5, "nothing was dropped")
    }

    @Test("SELF and relationships take object URIs")
    func objectArguments() throws {
        let result = try query(["--entity", "Company", "--json", "--where", "name == 'Acme'"])
        let rows = try #require(try jsonObject(result.standardOutput) as? [[String: Any]])
        let acme = try #require(rows.first?["objectID"] as? String)
        #expect(try names(["--where", "company == %@", "--arg", acme, "--sort", "name"]) == ["Ada", "Bob"])
        let people = try #require(try jsonObject(try query(["--entity", "Person", "--json", "--where", "age < 30"])
            .standardOutput) as? [[String: Any]])
        let uris = people.compactMap { $0["objectID"] as? String }
        let list = "[" + uris.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        #expect(try names(["--where", "SELF IN %@", "--arg", list, "--sort", "name"]) == ["Bob", "Zoë"])
        let bad = try query(["--entity", "Person", "--where", "company == %@", "--arg", "Acme"])
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("Argument 1 ('Acme') is not an object URI"), "\(bad.standardError)")
    }

    @Test("--template runs a model's fetch request with --var values, joined with --where")
    func templates() throws {
        #expect(try names(["--template", "InCity", "--var", "CITY=zurich", "--sort", "name"], entity: nil) == ["Ada", "Bob"])
        #expect(try names(["--template", "OlderThan", "--var", "AGE=20", "--sort", "age"], entity: nil)
            == ["Zoë", "Ada", "x' OR 1=1 --"])
        #expect(try names(["--template", "OlderThan", "--var", "$AGE=20", "--where", "name BEGINSWITH %@", "--arg", "Z"],
            entity: nil) == ["Zoë"])
        #expect(try names(["--template", "Tagged", "--var", "TAG=SWIFT", "--sort", "name"]) == ["Ada", "Zoë"])
        // --var also fills --where's variables.
        #expect(try names(["--where", "age < $LIMIT", "--var", "LIMIT=20"]) == ["Bob"])

        let missing = try query(["--template", "InCity"])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("$CITY"), "\(missing.standardError)")
        let unknown = try query(["--template", "Nope"])
        #expect(unknown.standardError.contains("no fetch request template named 'Nope'"))
        #expect(unknown.standardError.contains("InCity, OlderThan, Tagged"))
        let mistyped = try query(["--template", "OlderThan", "--var", "AGE=old"])
        #expect(mistyped.standardError.contains("Variable $AGE ('old') is not an integer"), "\(mistyped.standardError)")
        let wrongEntity = try query(["--template", "InCity", "--entity", "Company", "--var", "CITY=x"])
        #expect(wrongEntity.standardError.contains("fetches Person, not Company"))
        let badVar = try query(["--template", "InCity", "--var", "CITY"])
        #expect(badVar.standardError.contains("NAME=VALUE"))
    }

    @Test("--sort takes key paths through to-one relationships and comparisons")
    func sorting() throws {
        #expect(try names(["--sort", "company.name:desc", "--sort", "name"])
            == ["Zoë", "x' OR 1=1 --", "Ada", "Bob", "Émile"])
        #expect(try names(["--sort", "name:localized"]) == ["Ada", "Bob", "Émile", "x' OR 1=1 --", "Zoë"])
        #expect(try names(["--sort", "name:desc:localized-standard"]) == ["Zoë", "x' OR 1=1 --", "Émile", "Bob", "Ada"])
        let toMany = try query(["--entity", "Person", "--sort", "tags.name"])
        #expect(toMany.standardError.contains("no to-one relationship 'tags'"), "\(toMany.standardError)")
        let comparison = try query(["--entity", "Person", "--sort", "name:fancy"])
        #expect(comparison.standardError.contains("localized-standard"))
    }

    @Test("mistakes are reported with the column, the key and the entity")
    func errors() throws {
        let wrongType = try query(["--entity", "Person", "--where", "name == 'x' OR age > %@", "--arg", "old"])
        #expect(wrongType.status != 0)
        #expect(wrongType.standardError.contains("Argument 1 ('old') is not an integer at column 22"), "\(wrongType.standardError)")
        let tooFew = try query(["--entity", "Person", "--where", "age > %@ AND name == %@", "--arg", "3"])
        #expect(tooFew.standardError.contains("Missing argument for %@ at column 22"), "\(tooFew.standardError)")
        let tooMany = try query(["--entity", "Person", "--where", "age > %@", "--arg", "3", "--arg", "4"])
        #expect(tooMany.standardError.contains("Too many arguments"))
        let argWithoutWhere = try query(["--entity", "Person", "--arg", "3"])
        #expect(argWithoutWhere.standardError.contains("--arg needs a --where"))
        let unknownPath = try query(["--entity", "Person", "--where", "company.colour == 'red'"])
        #expect(unknownPath.standardError.contains("entity Company has no attribute or relationship named 'colour'"),
            "\(unknownPath.standardError)")
        #expect(unknownPath.standardError.contains("column 1"))
        let twoToMany = try query(["--entity", "Company", "--where", "employees.tags.@count > 1"])
        #expect(twoToMany.standardError.contains("crosses several to-many relationships"))
        let syntax = try query(["--entity", "Person", "--where", "ANY tags.name =="])
        #expect(syntax.standardError.contains("Unexpected end of input at column 17"), "\(syntax.standardError)")
        let variables = try query(["--entity", "Person", "--where", "name == $WHO"])
        #expect(variables.standardError.contains("$WHO"))
    }
}
