import Foundation
import Testing

@testable import ObjectGraph

/// `#Predicate`s translate into the same trees as their format-string twins (or, where the twin is
/// written differently, select the same objects), and constructs without a counterpart are refused with
/// an error naming them.
@Suite struct TypedPredicateTranslationTests {
    static func same(
        _ typed: Predicate<TypedPerson>, _ format: String, _ arguments: any PredicateArgument...,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let translated = try FetchPredicate(typed)
        let twin = try FetchPredicate(format: format, argumentArray: arguments)
        #expect(translated == twin, "\(translated) is not \(twin)", sourceLocation: sourceLocation)
    }

    @Test func comparisonsAndLogicTranslateToTheirTwins() throws {
        let city = "Oslo"
        try Self.same(#Predicate { $0.age! >= 30 }, "age >= 30")
        try Self.same(#Predicate { $0.name == city }, "name == 'Oslo'")
        try Self.same(#Predicate { $0.name == nil }, "name == nil")
        try Self.same(#Predicate { $0.name != "x' OR 1=1 --" }, "name != %@", "x' OR 1=1 --")
        try Self.same(#Predicate { $0.age! > 3 && $0.score! < 2.5 }, "age > 3 AND score < 2.5")
        try Self.same(#Predicate { $0.age! > 3 || !($0.score! < 2.5) }, "age > 3 OR NOT score < 2.5")
        try Self.same(#Predicate { $0.active == true }, "active == YES")
        try Self.same(#Predicate { $0.company?.name == "Zoë" }, "company.name == 'Zoë'")
        try Self.same(#Predicate { $0.manager?.company?.parent?.name == "Zoë" }, "manager.company.parent.name == 'Zoë'")
        try Self.same(#Predicate { $0.company == nil }, "company == nil")
        try Self.same(#Predicate { $0.name!.contains("oë") }, "name CONTAINS 'oë'")
        try Self.same(#Predicate { $0.name!.starts(with: "Zo") }, "name BEGINSWITH 'Zo'")
        try Self.same(#Predicate { ($0.age ?? 0) > 5 }, "age != nil AND age > 5")
        try Self.same(#Predicate { ($0.age ?? 10) > 5 }, "(age != nil AND age > 5) OR age == nil")
        try Self.same(#Predicate { $0.name?.starts(with: "A") ?? false }, "name != nil AND name BEGINSWITH 'A'")
        try Self.same(#Predicate { $0.tags.count > 2 }, "tags.@count > 2")
        try Self.same(#Predicate { $0.tags.isEmpty }, "tags.@count == 0")
        let ages: [Int64] = [1, 2, 3]
        try Self.same(#Predicate { ages.contains($0.age!) }, "age IN {1, 2, 3}")
        try Self.same(#Predicate { (18...30).contains($0.age!) }, "age >= 18 AND age <= 30")
        try Self.same(#Predicate { $0.name!.localizedStandardContains("zoe") }, "name CONTAINS[cd] 'zoe'")
        try Self.same(
            #Predicate { $0.nickname?.localizedStandardContains("É") ?? false }, "nickname != nil AND nickname CONTAINS[cd] 'É'")
        try Self.same(#Predicate { $0.age! + 1 > 30 }, "age + 1 > 30")
        try Self.same(#Predicate { -$0.score! < 3 }, "-score < 3.0")
        let half = 2.0
        try Self.same(#Predicate { $0.score! / half >= 1 }, "score / 2.0 >= 1.0")
        #expect(throws: TypedPredicateError.self, "Swift's integer division truncates") {
            try FetchPredicate(#Predicate<TypedPerson> { $0.tags.count / 2 == 1 })
        }
        try Self.same(#Predicate { ($0.age ?? 0) + 1 > 30 }, "age != nil AND age + 1 > 30")
        try Self.same(#Predicate { ($0.age ?? 40) + 1 > 30 }, "(age != nil AND age + 1 > 30) OR age == nil")
        let terms = ["zo", "ë"]
        try Self.same(
            #Predicate { person in terms.allSatisfy { person.name!.localizedStandardContains($0) } },
            "name CONTAINS[cd] 'zo' AND name CONTAINS[cd] 'ë'")
        let cities = ["Oslo", "Zürich"]
        try Self.same(
            #Predicate { person in cities.contains { person.nickname!.starts(with: $0) } },
            "nickname BEGINSWITH 'Oslo' OR nickname BEGINSWITH 'Zürich'")
        let none: [String] = []
        try Self.same(#Predicate { person in none.contains { person.name! == $0 } }, "FALSEPREDICATE")
        let limit: Int64 = 40
        try Self.same(#Predicate { $0.age! > limit - 1 }, "age > 39")
    }

    @Test func handWrittenAccessorsAndOneAttributeComputedPropertiesAreNamed() throws {
        #expect(try FetchPredicate(#Predicate<HandWrittenPerson> { $0.name == "x" && $0.age > 3 })
            == FetchPredicate(format: "name == 'x' AND age > 3"))
        #expect(try FetchPredicate(#Predicate<HandWrittenPerson> { $0.company == nil && $0.tags.count == 2 })
            == FetchPredicate(format: "company == nil AND tags.@count == 2"))
        try Self.same(#Predicate { $0.requiredName.starts(with: "Z") }, "name BEGINSWITH 'Z'")
    }

    @Test func closuresOverToManyRelationshipsBecomeSubqueries() throws {
        let translated = try FetchPredicate(#Predicate<TypedPerson> { $0.tags.contains { $0.name == "swift" } })
        #expect(translated.predicateFormat.hasPrefix("SUBQUERY(tags, $v"), "\(translated)")
        let all = try FetchPredicate(#Predicate<TypedPerson> { $0.tags.allSatisfy { $0.weight! > 1 } })
        #expect(all.predicateFormat.contains("tags.@count"), "\(all)")
        let filtered = try FetchPredicate(#Predicate<TypedPerson> { $0.tags.filter { $0.weight! > 1 }.count == 2 })
        #expect(filtered.predicateFormat.hasPrefix("SUBQUERY(tags"), "\(filtered)")
    }

    @Test func unsupportedConstructsAreNamed() throws {
        #expect {
            try FetchPredicate(#Predicate<TypedPerson> { $0.displayName == "x" })
        } throws: { error in
            (error as? TypedPredicateError)?.kind == .unknownKeyPath
        }
        #expect {
            try FetchPredicate(#Predicate<TypedPerson> { $0.age! % 2 == 0 })
        } throws: { error in
            guard let error = error as? TypedPredicateError else { return false }
            return error.kind == .unsupported && error.construct == "IntRemainder" && error.path.contains("== lhs")
        }
        #expect {
            try FetchPredicate(#Predicate<TypedPerson> { $0.name!.count > 3 })
        } throws: { error in
            (error as? TypedPredicateError)?.kind == .unsupported
        }
        #expect {
            try FetchPredicate(#Predicate<TypedPerson> { person in
                person.tags.contains { tag in tag.weight == person.age }
            })
        } throws: { error in
            (error as? TypedPredicateError)?.kind == .unsupported
        }
    }

    @Test func sortDescriptorsAndKeyPathsNameModelProperties() throws {
        let descriptor = try SortCriterion(SortDescriptor(\TypedPerson.age, order: .reverse))
        #expect(descriptor == SortCriterion("age", ascending: false))
        let nested = try SortCriterion(\TypedPerson.company?.name, comparison: .localizedStandard)
        #expect(nested == SortCriterion("company.name", comparison: .localizedStandard))
        #expect(throws: TypedPredicateError.self) { try SortCriterion(\TypedPerson.displayName) }
        #expect(throws: TypedPredicateError.self) { try SortCriterion(\TypedPerson.company) }
        let request = try FetchRequest<TypedPerson>(
            predicate: #Predicate { $0.age! > 3 }, sortBy: [SortDescriptor(\.name), SortDescriptor(\.age)])
        #expect(request.entityName == "Person")
        #expect(request.sortCriteria == [SortCriterion("name"), SortCriterion("age")])
        #expect(request.predicate == (try FetchPredicate(format: "age > 3")))
    }
}
