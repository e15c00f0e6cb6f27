import Foundation
import Testing
import TestSupport
@testable import ObjectGraph

/// Fetch request templates and Spotlight flags in compiled models (issue 33): a `.mom` archives each template as an
/// `NSFetchRequest` with an `NSPredicate` tree, which loads into the same ``FetchPredicate`` as the source model's
/// format string; shapes ObjectGraph cannot read leave the model loadable and make that template's use a typed error.
@Suite struct CompiledTemplateTests {
    @Test func everySourceTemplateLoadsFromAMomAsTheSamePredicate() throws {
        var checked = 0
        for (name, model) in try CompiledModelTests.sourceModels() {
            let loaded = try ManagedObjectModel.load(compiled: CompiledModelFixtures.mom(model), source: "\(name).mom")
            #expect(loaded.fetchRequestTemplates.map(\.name).sorted() == model.fetchRequestTemplates.map(\.name).sorted())
            for template in model.fetchRequestTemplates {
                let compiled = try #require(loaded.fetchRequestTemplate(named: template.name))
                #expect(compiled.entityName == template.entityName)
                #expect(compiled.unreadablePredicate == nil)
                #expect(try compiled.predicate() == template.predicate(), "\(name): \(template.name)")
                checked += 1
            }
        }
        #expect(checked >= 9, "the fixtures' templates (Zoo, People, Places …)")
    }

    @Test func aCompiledTemplateFetchesWithItsVariables() throws {
        let model = try CompositeAttributeTests.places()
        let loaded = try ManagedObjectModel.load(compiled: CompiledModelFixtures.mom(model), source: "Places.mom")
        let request = try #require(try loaded.fetchRequest(fromTemplateWithName: "north", substitutionVariables: ["MIN": 45]))
        #expect(request.entityName == "Place")
        #expect(request.predicate == (try FetchPredicate(format: #"location.latitude > 45 AND NOT (name BEGINSWITH[cd] "ca")"#)))
        #expect(try loaded.fetchRequestTemplate(named: "everything")?.predicate() == nil)
    }

    @Test func spotlightFlagsLoadFromTheBooleanKeyAndFromTheFlagBits() throws {
        let model = try CompositeAttributeTests.places()
        let loaded = try ManagedObjectModel.load(compiled: CompiledModelFixtures.mom(model), source: "Places.mom")
        #expect(loaded.entity(named: "Place")?.attribute(named: "name")?.isIndexedBySpotlight == true)
        #expect(loaded.entity(named: "Place")?.attribute(named: "location.latitude")?.isIndexedBySpotlight == false)
        // An archive with only the `_P` bit (0x100) set.
        let onlyBits = try ManagedObjectModel.load(compiled: Self.singleAttributeModel(fields: [("_P", .integer(0x1F3))]),
            source: "Bits.mom")
        #expect(onlyBits.entity(named: "E")?.attribute(named: "text")?.isIndexedBySpotlight == true)
        let neither = try ManagedObjectModel.load(compiled: Self.singleAttributeModel(fields: [("_P", .integer(0xF3))]),
            source: "Plain.mom")
        #expect(neither.entity(named: "E")?.attribute(named: "text")?.isIndexedBySpotlight == false)
    }

    /// A model with entity `E`, String attribute `text` (with `fields` added) and template `t` whose predicate is
    /// `predicate` (built into the same archive).
    static func singleAttributeModel(
        fields extra: [(String, PropertyListValue)] = [],
        predicate: ((KeyedArchiveBuilder) -> PropertyListValue)? = nil
    ) -> Data {
        let builder = KeyedArchiveBuilder()
        let modelSlot = builder.reserve()
        let entitySlot = builder.reserve()
        let attribute = builder.object("NSAttributeDescription", chain: ["NSPropertyDescription"], fields: [
            ("NSPropertyName", builder.add(.string("text"))), ("NSAttributeType", .integer(700)),
            ("NSEntity", entitySlot),
        ] + extra)
        builder.object("NSEntityDescription", fields: [
            ("NSEntityName", builder.add(.string("E"))), ("NSProperties", builder.dictionary([("text", attribute)])),
        ], into: entitySlot)
        var templates: [(String, PropertyListValue)] = []
        if let predicate {
            templates.append(("t", builder.object("NSFetchRequest", fields: [
                ("NSEntity", entitySlot), ("NSPredicate", predicate(builder)),
            ])))
        }
        builder.object("NSManagedObjectModel", fields: [
            ("NSEntities", builder.dictionary([("E", entitySlot)])),
            ("NSFetchRequestTemplates", builder.dictionary(templates)),
        ], into: modelSlot)
        return builder.archive(root: modelSlot)
    }

    static func unsupportedShapes() -> [(String, (KeyedArchiveBuilder) -> PropertyListValue)] {
        func comparison(_ builder: KeyedArchiveBuilder, left: PropertyListValue, operatorFields: [(String, PropertyListValue)],
            operatorClass: String = "NSEqualityPredicateOperator") -> PropertyListValue
        {
            builder.object("NSComparisonPredicate", chain: ["NSPredicate"], fields: [
                ("NSLeftExpression", left),
                ("NSRightExpression", ArchivedPredicateFixtures.expression(.value("x"), builder)),
                ("NSPredicateOperator", builder.object(operatorClass, chain: ["NSPredicateOperator"], fields: operatorFields)),
            ])
        }
        return [
            ("a function", { builder in
                comparison(builder, left: ArchivedPredicateFixtures.expression(.arithmetic(.init(.key("a"), .add, .value(1))), builder),
                    operatorFields: [("NSOperatorType", .integer(4))])
            }),
            ("a custom selector", { builder in
                comparison(builder, left: ArchivedPredicateFixtures.expression(.key("text"), builder),
                    operatorFields: [("NSSelector", builder.add(.string("isEqual:")))], operatorClass: "NSCustomPredicateOperator")
            }),
            ("an unknown operator", { builder in
                comparison(builder, left: ArchivedPredicateFixtures.expression(.key("text"), builder),
                    operatorFields: [("NSOperatorType", .integer(42))])
            }),
            ("a subquery", { builder in
                comparison(builder, left: builder.object("NSSubqueryExpression", chain: ["NSExpression"], fields: []),
                    operatorFields: [("NSOperatorType", .integer(4))])
            }),
            ("a string where a predicate belongs", { builder in builder.add(.string("text == 'x'")) }),
            ("a two-operand NOT", { builder in
                builder.object("NSCompoundPredicate", chain: ["NSPredicate"], fields: [
                    ("NSCompoundPredicateType", .integer(0)),
                    ("NSSubpredicates", builder.array([
                        ArchivedPredicateFixtures.node(.truePredicate, builder),
                        ArchivedPredicateFixtures.node(.falsePredicate, builder),
                    ])),
                ])
            }),
            ("BETWEEN without two bounds (a fuzzing finding)", { builder in
                ArchivedPredicateFixtures.node(.comparison(.init(.key("text"), .between, .aggregate([]))), builder)
            }),
            ("nesting 200 deep", { builder in
                var node = FetchPredicate.Node.truePredicate
                for _ in 0..<200 { node = .and([node, .falsePredicate]) }
                return ArchivedPredicateFixtures.node(node, builder)
            }),
        ]
    }

    @Test func unreadablePredicatesLeaveTheModelLoadableAndTheTemplateATypedError() throws {
        for (shape, predicate) in Self.unsupportedShapes() {
            let model = try ManagedObjectModel.load(compiled: Self.singleAttributeModel(predicate: predicate), source: "T.mom")
            let template = try #require(model.fetchRequestTemplate(named: "t"), "\(shape)")
            #expect(template.unreadablePredicate != nil, "\(shape)")
            #expect(template.predicateFormat == nil)
            #expect {
                try model.fetchRequest(fromTemplateWithName: "t")
            } throws: { error in
                guard let error = error as? FetchPredicateError else { return false }
                return error.kind == .unsupported && error.message.contains("'t'")
            }
        }
    }

    /// Random predicate trees, archived as Foundation archives them and decoded: the same predicate comes back.
    @Test func randomPredicatesSurviveArchiving() throws {
        var random = SeededRandom(seed: 3_300)
        for round in 0..<300 {
            let predicate = FetchPredicate(Self.randomNode(&random, depth: 0))
            let builder = KeyedArchiveBuilder()
            let root = ArchivedPredicateFixtures.predicate(predicate, builder)
            let archive = try KeyedArchive(data: builder.archive(root: root))
            let decoded = try ArchivedPredicateDecoder(archive: archive).predicate(.reference(archive.rootIndex))
            #expect(decoded == predicate, "round \(round): \(predicate.predicateFormat)")
            #expect(decoded.predicateFormat == predicate.predicateFormat)
        }
    }

    static func randomNode(_ random: inout SeededRandom, depth: Int) -> FetchPredicate.Node {
        switch depth < 3 ? Int.random(in: 0..<10, using: &random) : 9 {
        case 0: return .and((0..<Int.random(in: 2...3, using: &random)).map { _ in randomNode(&random, depth: depth + 1) })
        case 1: return .or((0..<Int.random(in: 2...3, using: &random)).map { _ in randomNode(&random, depth: depth + 1) })
        case 2:
            // NOT over anything but an ANY comparison (which Foundation's archive cannot tell from NONE).
            let inner = randomNode(&random, depth: depth + 1)
            if case .comparison(let comparison) = inner, comparison.modifier == .any { return inner }
            return .not(inner)
        case 3: return random.chance(0.5) ? .truePredicate : .falsePredicate
        default: return .comparison(randomComparison(&random))
        }
    }

    static func randomComparison(_ random: inout SeededRandom) -> FetchPredicate.Comparison {
        let values: [AttributeValue] = [
            .integer(Int64.random(in: -1000...1000, using: &random)), .double(Double(Int.random(in: -99...99, using: &random)) / 4),
            .string(random.pick(["", "zoë", "O'Neil", "a\"b"])), .boolean(random.chance(0.5)), .null,
            .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...1_000_000, using: &random)))),
            .uuid(UUID(uuidString: "0A1B2C3D-0000-4000-8000-00000000000F") ?? UUID()),
            .binary(Data([1, 2, 3])),
        ]
        let key = FetchPredicate.Operand.key(random.pick(["name", "age", "company.name", "location.latitude"]))
        var right = FetchPredicate.Operand.value(random.pick(values))
        if random.chance(0.2) { right = .variable(random.pick(["MIN", "NAME"])) }
        var operation = random.pick(FetchPredicate.Operator.allCases)
        switch operation {
        case .in: right = .aggregate([.value(random.pick(values)), .value(random.pick(values))])
        case .between: right = .aggregate([.value(.integer(1)), .value(.integer(Int64.random(in: 2...9, using: &random)))])
        case .beginsWith, .endsWith, .contains, .like, .matches: right = .value(.string(random.pick(["a*", "zo", "É"])))
        default: break
        }
        if random.chance(0.05) { operation = .equalTo; right = .evaluatedObject }
        let options = operation == .between ? [] : FetchPredicate.ComparisonOptions(rawValue: Int.random(in: 0...3, using: &random))
        let modifier: FetchPredicate.Modifier = random.chance(0.8) ? .direct : random.pick([.any, .all, .none])
        let left: FetchPredicate.Operand = modifier == .direct ? key : .key("employees.name")
        return FetchPredicate.Comparison(left, operation, right, options: options, modifier: modifier)
    }
}
