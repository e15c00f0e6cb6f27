import Foundation
import Testing

@testable import ObjectGraph

/// Key paths, qualifiers, collection operators, subqueries, `SELF`, `[n]` and object arguments: how they
/// parse, and the canonical form they print (which parses back to the same tree).
@Suite struct FetchPredicateKeyPathParsingTests {
    @Test(arguments: [
        ("company.name == 'Acme'", "company.name == \"Acme\""),
        ("company.parent.name BEGINSWITH[cd] 'a'", "company.parent.name BEGINSWITH[cd] \"a\""),
        ("SELF.name == 'x'", "name == \"x\""),
        ("item.size == 3", "item.#size == 3"),
        ("item.#size == 3", "item.#size == 3"),
        ("any tags.name == 'x'", "ANY tags.name == \"x\""),
        ("SOME tags.name == 'x'", "ANY tags.name == \"x\""),
        ("all tags.name ==[c] 'x'", "ALL tags.name ==[c] \"x\""),
        ("NONE tags.name == 'x'", "NONE tags.name == \"x\""),
        ("NOT ANY tags.name == 'x'", "NOT (ANY tags.name == \"x\")"),
        ("ANY {1, 2} < age", "ANY {1, 2} < age"),
        ("'x' IN tags.name", "\"x\" IN tags.name"),
        ("employees.@count > 2", "employees.@count > 2"),
        ("employees.@COUNT > 2", "employees.@count > 2"),
        ("company.employees.@sum.salary >= 10", "company.employees.@sum.salary >= 10"),
        ("items.@avg.price < 2.5", "items.@avg.price < 2.5"),
        ("items.@min.maker.name == 'x'", "items.@min.maker.name == \"x\""),
        ("items.@max.date > CAST(0, 'NSDate')", "items.@max.date > CAST(0.0, \"NSDate\")"),
        ("SUBQUERY(employees, $e, $e.age > 30).@count > 0", "SUBQUERY(employees, $e, $e.age > 30).@count > 0"),
        ("SUBQUERY(employees, $e, age > 30).@count > 0", "SUBQUERY(employees, $e, $e.age > 30).@count > 0"),
        ("SUBQUERY(employees, $e, $e IN $PEOPLE).@count == 1", "SUBQUERY(employees, $e, $e IN $PEOPLE).@count == 1"),
        ("SUBQUERY(a, $x, SUBQUERY($x.b, $y, $y.c == 1).@count > 0).@max.d == 2",
            "SUBQUERY(a, $x, SUBQUERY($x.b, $y, $y.c == 1).@count > 0).@max.d == 2"),
        ("SELF == $ME", "SELF == $ME"),
        ("SELF IN {$A, $B}", "SELF IN {$A, $B}"),
        ("name ==[n] 'x'", "name ==[n] \"x\""),
        ("name ==[cdn] 'x'", "name ==[cdn] \"x\""),
        ("company == CAST('x-coredata://S/Company/p3', 'NSManagedObjectID')",
            "company == CAST(\"x-coredata://S/Company/p3\", \"NSManagedObjectID\")"),
        ("a.b.c == d.e", "a.b.c == d.e"),
    ] as [(String, String)])
    func canonicalForms(format: String, canonical: String) throws {
        let predicate = try FetchPredicate(format: format)
        #expect(predicate.predicateFormat == canonical)
        #expect(try FetchPredicate(format: canonical) == predicate)
    }

    @Test func trees() throws {
        #expect(try FetchPredicate(format: "ANY tags.name == 'x'").node
            == .comparison(.init(.key("tags.name"), .equalTo, .value("x"), modifier: .any)))
        #expect(try FetchPredicate(format: "SELF IN %@", [1, 2]).node
            == .comparison(.init(.evaluatedObject, .in, .aggregate([.value(1), .value(2)]))))
        let count = try FetchPredicate(format: "SUBQUERY(tags, $t, $t.name == 'x').@count > 1")
        let subquery = FetchPredicate.Subquery(
            collection: "tags", variable: "t", predicate: .comparison(.init(.key("name"), .equalTo, .value("x"))))
        #expect(count.node == .comparison(.init(
            .collectionOperation(.init(.count, of: .subquery(subquery))), .greaterThan, .value(1))))
        #expect(try FetchPredicate(format: "items.@sum.price > 1").node == .comparison(.init(
            .collectionOperation(.init(.sum, of: .keyPath("items"), property: "price")), .greaterThan, .value(1))))
        // %K takes key paths, and may end in a collection operator.
        #expect(try FetchPredicate(format: "%K == 1", "company.name").node
            == .comparison(.init(.key("company.name"), .equalTo, .value(1))))
        #expect(try FetchPredicate(format: "%K > 1", "items.@count").node == .comparison(.init(
            .collectionOperation(.init(.count, of: .keyPath("items"))), .greaterThan, .value(1))))
        #expect(try FetchPredicate(format: "a.%K == 1", "b.c").referencedKeys == ["a.b.c"])
    }

    @Test func referencedKeysAndVariables() throws {
        let predicate = try FetchPredicate(
            format: "company.name == $N AND SUBQUERY(tags, $t, $t.weight > $W).@count > 0 AND items.@sum.x > 1")
        #expect(predicate.referencedKeys == ["company.name", "tags", "items"])
        #expect(predicate.variableNames == ["N", "W"])
        let filled = try predicate.withSubstitutionVariables(["N": "x", "W": 2])
        #expect(filled.variableNames.isEmpty)
        #expect(filled.predicateFormat
            == "company.name == \"x\" AND SUBQUERY(tags, $t, $t.weight > 2).@count > 0 AND items.@sum.x > 1")
    }

    @Test func objectArgumentsPrintAsCasts() throws {
        let id = try #require(ManagedObjectID.predicateID(uri: "x-coredata://ABC-1/Person/p12"))
        let predicate = try FetchPredicate(format: "SELF == %@ OR manager IN %@", id, [id])
        #expect(predicate.predicateFormat == "SELF == CAST(\"x-coredata://ABC-1/Person/p12\", \"NSManagedObjectID\") OR "
            + "manager IN {CAST(\"x-coredata://ABC-1/Person/p12\", \"NSManagedObjectID\")}")
        #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate)
        #expect(ManagedObjectID.predicateID(uri: "x-coredata:///Person/t1") == nil)
        #expect(ManagedObjectID.predicateID(uri: "x-coredata://S/Person/p0") == nil)
        #expect(ManagedObjectID.predicateID(uri: "x-coredata://S/Per son/p1") == nil)
    }

    @Test func printedFormsThatWouldNestTooDeeplyAreRefused() throws {
        let limit = FetchPredicate.Parser.maximumNesting
        // 40 NOTs parse (40 levels), but print as 40 × "NOT (" (80 levels).
        let nots = String(repeating: "NOT ", count: 40) + "a == 1"
        let error = try #require(throws: FetchPredicateError.self) { try FetchPredicate(format: nots) }
        #expect(error.message == "Nested too deeply")
        // Parentheses the printer adds for precedence count too: `a OR b AND (…)` prints as `a OR (b AND (…))`.
        var implicit = "z == 0"
        for _ in 0..<40 { implicit = "a == 1 OR b == 2 AND (" + implicit + ")" }
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: implicit) }
        var explicit = "z == 0"
        for _ in 0..<(limit / 2) { explicit = "a == 1 OR (b == 2 AND (" + explicit + "))" }
        #expect(try FetchPredicate(format: explicit).predicateFormat.count > 0)
        // What is accepted always reparses.
        let fine = String(repeating: "NOT (", count: limit / 2) + "a == 1" + String(repeating: ")", count: limit / 2)
        let predicate = try FetchPredicate(format: fine)
        #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate)
    }
}
