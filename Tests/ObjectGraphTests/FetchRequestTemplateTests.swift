import Foundation
import Testing
import TestSupport

@testable import ObjectGraph

/// Fetch request templates from the model: fetch by name, substitute variables, combine with more predicates.
@Suite struct FetchRequestTemplateTests {
    static func model() throws -> ManagedObjectModel {
        try PredicateGraph.makeModel(
            templates: [
                FetchRequestTemplate(name: "Named", entityName: "Person", predicateFormat: "name ==[cd] $NAME"),
                FetchRequestTemplate(name: "OlderThan", entityName: "Person", predicateFormat: "age > $AGE"),
                FetchRequestTemplate(name: "AtCompany", entityName: "Person", predicateFormat: "company == $COMPANY"),
                FetchRequestTemplate(name: "InCities", entityName: "Person", predicateFormat: "name IN $NAMES"),
                FetchRequestTemplate(name: "Tagged", entityName: "Person",
                    predicateFormat: "SUBQUERY(tags, $t, $t.name ==[c] $TAG).@count > 0"),
                FetchRequestTemplate(name: "Everyone", entityName: "Person", predicateFormat: nil),
                FetchRequestTemplate(name: "Broken", entityName: "Person", predicateFormat: "name ==="),
                FetchRequestTemplate(name: "Unknown", entityName: "Person", predicateFormat: "colour == $C"),
                FetchRequestTemplate(name: "BornAfter", entityName: "Person", predicateFormat: "born > $WHEN"),
            ])
    }

    /// The model, a context on a fresh store holding Zoë, Ada (tagged Swift) and Bob, and the store's folder
    /// (kept for as long as the tuple lives).
    private func fixture() throws -> (ManagedObjectModel, ManagedObjectContext, TemporaryDirectory, [String: ManagedObject]) {
        let model = try Self.model()
        let directory = TemporaryDirectory(prefix: "templates")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, at: directory.file("t.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let objects = try context.performAndWait {
            let acme = try context.insertNewObject(forEntityName: "Company")
            acme.setValue("Acme", forKey: "name")
            let swift = try context.insertNewObject(forEntityName: "Tag")
            swift.setValue("Swift", forKey: "name")
            var objects = ["Acme": acme]
            for (name, age, born) in [("Zoë", 30, 0.0), ("Ada", 36, 1e9), ("Bob", 17, 5e8)] as [(String, Int64, Double)] {
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(.string(name), forKey: "name")
                person.setValue(.integer(age), forKey: "age")
                person.setValue(.date(Date(timeIntervalSinceReferenceDate: born)), forKey: "born")
                if name != "Bob" { person.setRelatedObject(acme, forKey: "company") }
                if name == "Ada" { person.addRelatedObject(swift, forKey: "tags") }
                objects[name] = person
            }
            try context.save()
            return objects
        }
        return (model, context, directory, objects)
    }

    private func names(_ context: ManagedObjectContext, _ request: FetchRequest<ManagedObject>?) throws -> [String] {
        var request = try #require(request)
        request.sortCriteria = [SortCriterion("name")]
        return try context.performAndWait { try context.fetch(request).compactMap { $0.value(forKey: "name").stringValue } }
    }

    @Test func fetchByNameWithVariables() throws {
        let (model, context, directory, objects) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        #expect(try names(context, model.fetchRequest(fromTemplateWithName: "Named", substitutionVariables: ["NAME": "ZOE"]))
            == ["Zoë"])
        #expect(try names(context, model.fetchRequest(fromTemplateWithName: "OlderThan", substitutionVariables: ["AGE": 20]))
            == ["Ada", "Zoë"])
        #expect(try names(context, model.fetchRequest(fromTemplateWithName: "AtCompany",
            substitutionVariables: ["COMPANY": try #require(objects["Acme"])])) == ["Ada", "Zoë"])
        #expect(try names(context, model.fetchRequest(fromTemplateWithName: "InCities",
            substitutionVariables: ["NAMES": ["Bob", "Ada", "Nobody"]])) == ["Ada", "Bob"])
        #expect(try names(context, model.fetchRequest(fromTemplateWithName: "Tagged", substitutionVariables: ["TAG": "swift"]))
            == ["Ada"])
        #expect(try names(context, model.fetchRequest(fromTemplateWithName: "Everyone")) == ["Ada", "Bob", "Zoë"])
        // The template is unchanged for the next use.
        #expect(model.fetchRequestTemplate(named: "OlderThan")?.variableNames == ["AGE"])
        #expect(try model.fetchRequest(fromTemplateWithName: "Missing") == nil)
    }

    @Test func combinedWithFurtherPredicates() throws {
        let (model, context, directory, _) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let request = try model.fetchRequest(
            fromTemplateWithName: "OlderThan", substitutionVariables: ["AGE": 20],
            combinedWith: try FetchPredicate(format: "name BEGINSWITH %@", "Z"))
        #expect(try names(context, request) == ["Zoë"])
        #expect(request?.predicate?.predicateFormat == "age > 20 AND name BEGINSWITH \"Z\"")
        let everyoneYoung = try model.fetchRequest(
            fromTemplateWithName: "Everyone", combinedWith: try FetchPredicate(format: "age < 18"))
        #expect(try names(context, everyoneYoung) == ["Bob"])
    }

    @Test func textVariablesAreTypedByWhatTheyAreComparedWith() throws {
        let (model, context, directory, objects) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let acme = try #require(objects["Acme"])
        let uri = context.performAndWait { acme.objectID.uriRepresentation.absoluteString }
        #expect(try names(context, model.fetchRequest(fromTemplateWithName: "OlderThan", textVariables: ["AGE": .text("20")]))
            == ["Ada", "Zoë"])
        #expect(try names(context, model.fetchRequest(fromTemplateWithName: "AtCompany", textVariables: ["COMPANY": .text(uri)]))
            == ["Ada", "Zoë"])
        #expect(try names(context, model.fetchRequest(fromTemplateWithName: "InCities",
            textVariables: ["NAMES": .list(["Bob", nil, "Zoë"])])) == ["Bob", "Zoë"])
        #expect(try names(context, model.fetchRequest(fromTemplateWithName: "BornAfter",
            textVariables: ["WHEN": .text("2020-01-01")])) == ["Ada"])
        let error = try #require(throws: FetchPredicateError.self) {
            try model.fetchRequest(fromTemplateWithName: "OlderThan", textVariables: ["AGE": .text("old")])
        }
        #expect(error.kind == .argument)
        #expect(error.description.contains("Variable $AGE ('old') is not an integer"))
        #expect(error.offset == 6)
    }

    @Test func problemsAreTypedErrors() throws {
        let model = try Self.model()
        let missing = try #require(throws: FetchPredicateError.self) {
            try model.fetchRequest(fromTemplateWithName: "Named")
        }
        #expect(missing.kind == .unsubstitutedVariable)
        #expect(missing.format == "name ==[cd] $NAME")
        let broken = try #require(throws: FetchPredicateError.self) {
            try model.fetchRequest(fromTemplateWithName: "Broken")
        }
        #expect(broken.kind == .syntax)
        let unknown = try #require(throws: FetchPredicateError.self) {
            try model.fetchRequest(fromTemplateWithName: "Unknown", substitutionVariables: ["C": "red"])
        }
        #expect(unknown.kind == .unknownKey)
        #expect(unknown.description.contains("entity Person has no attribute or relationship named 'colour'"))
        let misfit = try #require(throws: FetchPredicateError.self) {
            try model.fetchRequest(fromTemplateWithName: "InCities", substitutionVariables: ["NAMES": [["nested"]]])
        }
        #expect(misfit.kind == .argument)
    }

    @Test func textArgumentsForFormatStrings() throws {
        let (model, context, directory, _) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let person = try #require(model.entity(named: "Person"))
        func run(_ format: String, _ arguments: [FetchPredicate.TextValue]) throws -> [String] {
            try names(context, FetchRequest(entityName: "Person",
                predicate: try FetchPredicate(format: format, textArguments: arguments, for: person, in: model)))
        }
        #expect(try run("age > %@", [.text("20")]) == ["Ada", "Zoë"])
        #expect(try run("age > %d AND name BEGINSWITH %@", [.text("20"), .text("A")]) == ["Ada"])
        #expect(try run("name IN %@", [.list(["Ada", "Bob"])]) == ["Ada", "Bob"])
        #expect(try run("age BETWEEN %@", [.list(["17", "30"])]) == ["Bob", "Zoë"])
        #expect(try run("%K == %@", [.text("company.name"), .text("Acme")]) == ["Ada", "Zoë"])
        #expect(try run("tags.@count == %@", [.text("1")]) == ["Ada"])
        #expect(try run("born > %@", [.text("2020-01-01T00:00:00Z")]) == ["Ada"])
        #expect(try run("name == %@", [.text("x' OR 1=1 --")]) == [])
        let wrong = try #require(throws: FetchPredicateError.self) { try run("age > %@ AND name == %@", [.text("x"), .text("y")]) }
        #expect(wrong.description.hasPrefix("Argument 1 ('x') is not an integer at column 7"))
        let tooFew = try #require(throws: FetchPredicateError.self) { try run("age > %@ AND name == %@", [.text("3")]) }
        #expect(tooFew.message == "Missing argument for %@")
    }
}
