import Foundation
import Testing
import TestSupport

@testable import ObjectGraph

/// Values shaped like SQL (or predicate syntax) are values: they reach SQLite only as bound parameters,
/// never as SQL text, through relationships and subqueries too, and come back exactly as stored.
@Suite struct FetchPredicateInjectionTests {
    static let hostile = [
        "x' OR 1=1 --", "\"; DROP TABLE ZPERSON; --", "'); DELETE FROM ZTAG; --", "%K", "%@", "$VAR", "a\u{0}b",
        "Robert'); DROP TABLE Students;--", "1 OR 1", "*", "?", "\\", "') OR ('1'='1", "ZNAME", "Z_PK",
    ]

    @Test(arguments: [PersistentStoreType.sqlite, .inMemory])
    func hostileValuesComeBackVerbatim(kind: PersistentStoreType) throws {
        let directory = TemporaryDirectory(prefix: "injection")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PredicateGraph.makeModel())
        try coordinator.addPersistentStore(ofType: kind, at: directory.file("i.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let company = try context.insertNewObject(forEntityName: "Company")
            company.setValue("'; DROP TABLE ZCOMPANY; --", forKey: "name")
            for (index, text) in Self.hostile.enumerated() {
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(.string(text), forKey: "name")
                person.setValue(.integer(Int64(index)), forKey: "serial")
                person.setRelatedObject(company, forKey: "company")
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue(.string(text), forKey: "name")
                person.addRelatedObject(tag, forKey: "tags")
            }
            try context.save()
            for text in Self.hostile {
                for format in ["name == %@", "ANY tags.name == %@", "%@ IN tags.name",
                    "SUBQUERY(tags, $t, $t.name == %@).@count == 1", "tags.@max.name == %@"]
                {
                    let request = FetchRequest<ManagedObject>(
                        entityName: "Person", predicate: try FetchPredicate(format: format, text))
                    let names = try context.fetch(request).compactMap { $0.value(forKey: "name").stringValue }
                    #expect(names == [text], "\(format) with \(text.debugDescription)")
                }
            }
            let byCompany = try context.fetch(FetchRequest<ManagedObject>(
                entityName: "Person", predicate: try FetchPredicate(format: "company.name == %@", "'; DROP TABLE ZCOMPANY; --")))
            #expect(byCompany.count == Self.hostile.count)
            // Every row is still there.
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag")) == Self.hostile.count)
        }
    }

    @Test func compiledSQLNeverContainsArgumentText() throws {
        let model = try PredicateGraph.makeModel()
        let directory = TemporaryDirectory(prefix: "injection-sql")
        let store = try SQLiteStore(path: directory.file("s.sqlite").path, model: model)
        let person = try #require(model.entity(named: "Person"))
        let schema = SQLiteStorePredicateSchema(store: store)
        // (Texts that are also column names, or too short to tell apart from SQL punctuation, are left out.)
        for text in Self.hostile where text.count > 2 && !["ZNAME", "Z_PK"].contains(text) {
            for format in ["name == %@", "company.name BEGINSWITH[cd] %@", "ANY tags.name LIKE %@",
                "SUBQUERY(friends, $f, $f.nickname MATCHES %@ OR $f.company.name == %@).@count > 0",
                "tags.@min.name IN %@", "manager.name CONTAINS[c] %@"]
            {
                let specifiers = format.components(separatedBy: "%@").count - 1
                let arguments: [any PredicateArgument] = (0..<specifiers).map { _ in
                    format.contains("IN %@") ? [text, text] as any PredicateArgument : text as any PredicateArgument
                }
                let predicate: FetchPredicate
                do {
                    predicate = try FetchPredicate(format: format, argumentArray: arguments)
                } catch {
                    continue  // an invalid regular expression, say: refused before any SQL exists
                }
                let compiled = try predicate.sqlExpression(for: person, schema: schema, alias: "t0")
                #expect(!compiled.sql.contains(text), "\(format): \(compiled.sql)")
                #expect(compiled.bindings.contains { $0.stringValue?.contains(StringFolding.folded(text)) == true
                    || $0.stringValue?.contains(text) == true }, "\(format) binds its value")
            }
        }
    }

    @Test func keysAreCheckedAgainstTheModel() throws {
        // %K takes key paths, which must exist; quotes and SQL in them are refused before any SQL is made.
        for key in ["name' OR 1=1 --", "name; DROP TABLE ZPERSON", "company.name\"", "Z_PK", "ZNAME", "t0.ZNAME"] {
            do {
                let predicate = try FetchPredicate(format: "%K == 1", key)
                let model = try PredicateGraph.makeModel()
                #expect(throws: FetchPredicateError.self, "\(key)") {
                    try predicate.validate(for: try #require(model.entity(named: "Person")), in: model)
                }
            } catch let error as FetchPredicateError {
                #expect(error.kind == .argument, "\(key): \(error)")
            }
        }
    }
}
