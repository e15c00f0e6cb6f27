import Foundation
import Testing

@testable import ObjectGraph

/// The error loading `xml` gives, or nil (recorded as an issue) when it loads.
private func loadError(_ xml: String, sourceLocation: SourceLocation = #_sourceLocation) -> ModelLoadError? {
    loadError(Data(xml.utf8), sourceLocation: sourceLocation)
}

private func loadError(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) -> ModelLoadError? {
    do {
        let model = try ManagedObjectModel.load(xml: data, source: "test.xml")
        Issue.record("loaded a model: \(model)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// One `Person` entity holding `body`, with the entity on line 2 and `body` from line 3.
private func person(_ body: String) -> String {
    "<model>\n<entity name=\"Person\">\n\(body)\n</entity>\n<entity name=\"Pet\"/>\n</model>"
}

@Suite struct ModelLoadingErrorTests {
    @Test func malformedXMLGivesLineAndColumn() throws {
        let error = try #require(loadError("<model>\n  <entity name=\"A\">\n    <attribute name=\"x\"\n</model>"))
        #expect(error.file == "test.xml")
        #expect(error.line == 4)
        #expect(error.column != nil)
        guard case .malformedXML(let message) = error.reason else {
            Issue.record("expected malformed XML, got \(error.reason)")
            return
        }
        #expect(!message.isEmpty)
        #expect(error.description.hasPrefix("test.xml:4:"))
    }

    @Test(arguments: [
        ("", "empty"), ("<model>", "unclosed"), ("<model/><model/>", "two roots"), ("<model><a></b></model>", "mismatched"),
        ("<model><entity name=\"A\" name=\"B\"/></model>", "duplicate XML attribute"),
        ("<model><entity name=\"&nope;\"/></model>",
         "undefined entity"), ("<model><e n=\"&#0;\"/></model>", "NUL reference"),
        ("plain text", "not XML"), ("<model><entity name=\"Pers", "truncated"),
    ])
    func malformedDocumentsAreRefused(xml: String, what: String) throws {
        let error = try #require(loadError(xml), "\(what)")
        guard case .malformedXML = error.reason else {
            Issue.record("\(what): expected malformed XML, got \(error.reason)")
            return
        }
        #expect(error.line != nil, "\(what)")
    }

    @Test func invalidUTF8IsAnErrorWithItsPlace() throws {
        let bytes = Data("<model>\n<entity".utf8) + Data([0xFF]) + Data("name=\"Person\"/></model>".utf8)
        let error = try #require(loadError(bytes))
        #expect(error.line == 2 && error.column == 8)
        guard case .malformedXML(let message) = error.reason else {
            Issue.record("expected malformed XML, got \(error.reason)")
            return
        }
        #expect(message.contains("UTF-8"))
        for sequence: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xE2, 0x82]] {
            let data = Data("<model><entity name=\"".utf8) + Data(sequence) + Data("\"/></model>".utf8)
            #expect(loadError(data).map { if case .malformedXML = $0.reason { true } else { false } } == true)
        }
    }

    @Test func documentTypeDeclarationsAreRefusedBeforeTheirEntitiesExpand() throws {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE model [
              <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
              <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
              <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
              <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
              <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
              <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
            ]>
            <model><entity name="&f;"/></model>
            """
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE model [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
            <model><entity name="&secret;"/></model>
            """
        for xml in [laughs, external, "<!DOCTYPE model SYSTEM \"http://127.0.0.1:9/x.dtd\"><model/>", "<!DOCTYPE model><model/>"] {
            let error = try #require(loadError(xml))
            #expect(error.reason == .malformedXML("Document type declarations are not allowed in a model file."))
            #expect(error.line != nil)
        }
    }

    @Test func limitsOnSizeDepthAndInheritance() throws {
        let deep = "<model>" + String(repeating: "<x>", count: 200) + String(repeating: "</x>", count: 200) + "</model>"
        let deepError = try #require(loadError(deep))
        #expect(deepError.line == 1)
        if case .tooLarge = deepError.reason {} else { Issue.record("deep nesting: \(deepError.reason)") }

        var chain = "<model>\n<entity name=\"E0\"/>\n"
        for level in 1...150 { chain += "<entity name=\"E\(level)\" parentEntity=\"E\(level - 1)\"/>\n" }
        let chainError = try #require(loadError(chain + "</model>"))
        if case .tooLarge(let message) = chainError.reason {
            #expect(message.contains("100 levels"))
        } else {
            Issue.record("deep inheritance: \(chainError.reason)")
        }

        let huge = Data(count: (16 << 20) + 1)
        let hugeError = try #require(loadError(huge))
        if case .tooLarge = hugeError.reason {} else { Issue.record("huge input: \(hugeError.reason)") }
    }

    @Test func notAModel() throws {
        let error = try #require(loadError("<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>"))
        #expect(error.reason == .notAModel("the root element is <plist>, not <model>") && error.line == 2)
    }

    @Test(arguments: [
        ("<attribute name=\"age\" attributeType=\"Integer 8\"/>", "attribute", "attributeType", "Integer 8", "age"),
        ("<attribute name=\"ref\" attributeType=\"ObjectID\"/>", "attribute", "attributeType", "ObjectID", "ref"),
        ("<attribute name=\"a\" optional=\"Yes please\" attributeType=\"String\"/>",
         "attribute", "optional", "Yes please", "a"),
        ("<attribute name=\"a\" attributeType=\"Integer 16\" defaultValueString=\"70000\"/>",
         "attribute", "defaultValueString", "70000", "a"),
        ("<attribute name=\"a\" attributeType=\"Integer 32\" defaultValueString=\"12abc\"/>",
         "attribute", "defaultValueString", "12abc", "a"),
        ("<attribute name=\"a\" attributeType=\"UUID\" defaultValueString=\"nope\"/>",
         "attribute", "defaultValueString", "nope", "a"),
        ("<attribute name=\"a\" attributeType=\"Decimal\" defaultValueString=\"1.2.3\"/>",
         "attribute", "defaultValueString", "1.2.3", "a"),
        ("<attribute name=\"a\" attributeType=\"Double\" defaultValueString=\"1e400\"/>",
         "attribute", "defaultValueString", "1e400", "a"),
        ("<attribute name=\"a\" attributeType=\"Boolean\" defaultValueString=\"maybe\"/>",
         "attribute", "defaultValueString", "maybe", "a"),
        ("<attribute name=\"a\" attributeType=\"Date\" defaultDateTimeInterval=\"today\"/>",
         "attribute", "defaultDateTimeInterval", "today", "a"),
        ("<attribute name=\"a\" attributeType=\"String\" maxValueString=\"-1\"/>",
         "attribute", "maxValueString", "-1", "a"),
        ("<attribute name=\"a\" attributeType=\"Double\" minValueString=\"10\" maxValueString=\"1\"/>",
         "attribute", "maxValueString", "1", "a"),
        ("<relationship name=\"pet\" deletionRule=\"Obliterate\" destinationEntity=\"Pet\"/>",
         "relationship", "deletionRule", "Obliterate", "pet"),
        ("<relationship name=\"pet\" maxCount=\"many\" destinationEntity=\"Pet\"/>",
         "relationship", "maxCount", "many", "pet"),
        ("<relationship name=\"pets\" toMany=\"YES\" minCount=\"5\" maxCount=\"2\" destinationEntity=\"Pet\"/>",
         "relationship", "maxCount", "2", "pets"),
    ])
    func badValuesNameTheEntityAndProperty(body: String, element: String, attribute: String, value: String, property: String)
        throws
    {
        let error = try #require(loadError(person(body)))
        #expect(error.line == 3)
        guard case let .invalidValue(badElement, badAttribute, badValue, entity, badProperty, expected) = error.reason else {
            Issue.record("expected an invalid value, got \(error.reason)")
            return
        }
        #expect(badElement == element && badAttribute == attribute && badValue == value)
        #expect(entity == "Person" && badProperty == property)
        #expect(!expected.isEmpty)
        #expect(error.description.contains("'Person.\(property)'"))
    }

    @Test func badIndexOrderAndInverseEntity() throws {
        let order = try #require(loadError(person("""
            <attribute name="a" attributeType="String"/>
            <fetchIndex name="i"><fetchIndexElement property="a" order="sideways"/></fetchIndex>
            """)))
        #expect(order.line == 4)
        if case let .invalidValue(element, attribute, _, entity, _, _) = order.reason {
            #expect(element == "fetchIndexElement" && attribute == "order" && entity == "Person")
        } else {
            Issue.record("order: \(order.reason)")
        }
        let inverse = try #require(loadError("""
            <model>
            <entity name="A"><relationship name="b" destinationEntity="B" inverseName="a" inverseEntity="C"/></entity>
            <entity name="B"><relationship name="a" destinationEntity="A" inverseName="b" inverseEntity="A"/></entity>
            <entity name="C"/>
            </model>
            """))
        #expect(inverse.line == 2)
        if case let .invalidValue(_, attribute, value, entity, property, _) = inverse.reason {
            #expect(attribute == "inverseEntity" && value == "C" && entity == "A" && property == "b")
        } else {
            Issue.record("inverse entity: \(inverse.reason)")
        }
    }

    @Test(arguments: [
        ("<model>\n<entity representedClassName=\"X\"/>\n</model>", "entity", "name", nil as String?, nil as String?),
        (person("<attribute attributeType=\"String\"/>"), "attribute", "name", "Person", nil),
        (person("<attribute name=\"age\"/>"), "attribute", "attributeType", "Person", "age"),
        (person("<relationship name=\"pet\"/>"), "relationship", "destinationEntity", "Person", "pet"),
        (person("<userInfo><entry value=\"v\"/></userInfo>"), "entry", "key", "Person", nil),
        ("<model>\n<fetchRequest entity=\"A\"/>\n</model>", "fetchRequest", "name", nil, nil),
        ("<model>\n<fetchRequest name=\"all\"/>\n</model>", "fetchRequest", "entity", nil, nil),
        ("<model>\n<configuration><memberEntity name=\"A\"/></configuration>\n</model>",
         "configuration", "name", nil, nil),
    ])
    func missingValuesAreNamed(xml: String, element: String, attribute: String, entity: String?, property: String?) throws {
        let error = try #require(loadError(xml))
        #expect(error.reason == .missingValue(element: element, attribute: attribute, entity: entity, property: property))
        #expect(error.line != nil)
    }

    @Test func inconsistenciesComeFromTheModelWithTheLineOfTheirElement() throws {
        func inconsistency(_ xml: String) -> (ModelError, Int?)? {
            guard let error = loadError(xml), case .inconsistent(let modelError) = error.reason else { return nil }
            return (modelError, error.line)
        }
        let cases: [(String, ModelError, Int)] = [
            ("<model>\n<entity name=\"A\"/>\n<entity name=\"A\"/>\n</model>", .duplicateEntity("A"), 3),
            (person("<attribute name=\"n\" attributeType=\"String\"/>\n<relationship name=\"n\" destinationEntity=\"Pet\"/>"),
             .duplicateProperty(entity: "Person", property: "n"), 4),
            ("<model>\n<entity name=\"A\"><attribute name=\"x\" attributeType=\"String\"/></entity>\n"
                + "<entity name=\"B\" parentEntity=\"A\">\n<attribute name=\"x\" attributeType=\"String\"/></entity>\n</model>",
             .duplicateProperty(entity: "B", property: "x"), 4),
            (person("<attribute name=\"first name\" attributeType=\"String\"/>"),
             .invalidName(entity: "Person", property: "first name"), 3),
            ("<model>\n<entity name=\"A\" parentEntity=\"Ghost\"/>\n</model>", .unknownParentEntity(entity: "A", parent: "Ghost"), 2),
            ("<model>\n<entity name=\"A\" parentEntity=\"C\"/>\n<entity name=\"B\" parentEntity=\"A\"/>\n"
                + "<entity name=\"C\" parentEntity=\"B\"/>\n</model>", .inheritanceCycle(["A", "C", "B", "A"]), 2),
            (person("<relationship name=\"dog\" destinationEntity=\"Dog\"/>"),
             .unknownDestinationEntity(entity: "Person", relationship: "dog", destination: "Dog"), 3),
            (person("<relationship name=\"pet\" destinationEntity=\"Pet\" inverseName=\"owner\"/>"),
             .unknownInverse(entity: "Person", relationship: "pet", inverse: "owner", destination: "Pet"), 3),
            ("<model>\n<entity name=\"A\">\n<relationship name=\"b\" destinationEntity=\"B\" inverseName=\"a\"/></entity>\n"
                + "<entity name=\"B\"><relationship name=\"a\" destinationEntity=\"C\"/></entity>\n<entity name=\"C\"/>\n</model>",
             .inverseMismatch(entity: "A", relationship: "b", inverse: "a", reason: "'B.a' points at 'C', not 'A'"), 3),
            ("<model>\n<entity name=\"A\"/>\n<configuration name=\"Cloud\">\n<memberEntity name=\"Ghost\"/>\n</configuration>\n</model>",
             .unknownConfigurationEntity(configuration: "Cloud", entity: "Ghost"), 4),
            ("<model>\n<entity name=\"A\"/>\n<fetchRequest name=\"all\" entity=\"Ghost\"/>\n</model>",
             .unknownFetchRequestEntity(template: "all", entity: "Ghost"), 3),
            (person("<uniquenessConstraints><uniquenessConstraint>\n<constraint value=\"ssn\"/>\n"
                + "</uniquenessConstraint></uniquenessConstraints>"), .unknownIndexedProperty(entity: "Person", property: "ssn"), 4),
            (person("<fetchIndex name=\"i\">\n<fetchIndexElement property=\"ghost\"/>\n</fetchIndex>"),
             .unknownIndexedProperty(entity: "Person", property: "ghost"), 4),
        ]
        for (xml, expected, line) in cases {
            let found = inconsistency(xml)
            #expect(found?.0 == expected)
            #expect(found?.1 == line, "line of \(expected)")
        }
    }

    @Test func linesBeyond65535AreKept() throws {
        let padding = String(repeating: "\n", count: 70_000)
        let duplicate = try #require(loadError("<model>" + padding + "<entity name=\"A\"/>\n<entity name=\"A\"/></model>"))
        #expect(duplicate.line == 70_002)
        let malformed = try #require(loadError("<model>" + padding + "<entity name=\"A\">"))
        #expect(malformed.line == 70_001)
    }

    @Test func descriptionIsFileLineColumnAndReason() {
        let error = ModelLoadError(file: "People.xcdatamodel/contents", line: 12, column: 5,
            reason: .invalidValue(element: "attribute", attribute: "attributeType", value: "Integer 8", entity: "Person",
                property: "age", expected: "a known type"))
        #expect(error.description == "People.xcdatamodel/contents:12:5: <attribute> of 'Person.age' has "
            + "attributeType=\"Integer 8\"; expected a known type")
        let noPlace = ModelLoadError(file: "x", reason: .inconsistent(.duplicateEntity("A")))
        #expect(noPlace.description == "x: The model declares entity 'A' more than once.")
    }
}
