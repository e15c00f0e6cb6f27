import Foundation
import Testing

@testable import ObjectGraph

/// Model files as Xcode writes them: the `<model>` root around `body`.
func modelXML(_ body: String, identifier: String = "") -> String {
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" \
    systemVersion="23E224" minimumToolsVersion="Automatic" sourceLanguage="Swift" \
    userDefinedModelVersionIdentifier="\(identifier)">
    \(body)
    </model>
    """
}

/// Loads `xml` (a whole document) under the source name `test.xml`.
func loadModel(_ xml: String, classes: [ManagedObject.Type] = []) throws(ModelLoadError) -> ManagedObjectModel {
    try ManagedObjectModel.load(xml: Data(xml.utf8), source: "test.xml", classes: classes)
}

final class LoadedPersonMO: ManagedObject {
    override class var entityName: String { "Person" }
}

final class LoadedTeamMO: ManagedObject {}

@Suite struct ModelLoadingTests {
    @Test func modelAttributesGiveVersionIdentifiersAndOthersAreIgnored() throws {
        let model = try loadModel(modelXML(#"<entity name="A"/>"#, identifier: "2.1"))
        #expect(model.versionIdentifiers == ["2.1"])
        #expect(model.versionName == nil)
        let unnamed = try loadModel(modelXML(#"<entity name="A"/>"#))
        #expect(unnamed.versionIdentifiers.isEmpty, "Xcode writes an empty identifier when there is none")
        let bare = try loadModel("<model/>")
        #expect(bare.entities.isEmpty)
    }

    @Test func entityAttributes() throws {
        let model = try loadModel(modelXML("""
            <entity name="Base" representedClassName="BaseMO" isAbstract="YES" syncable="YES" codeGenerationType="class"/>
            <entity name="Person" representedClassName=".Person" parentEntity="Base" isAbstract="NO" \
            elementID="Human" versionHashModifier="v3" syncable="YES"/>
            <entity name="Team" renamingIdentifier="Squad" elementID="ignoredWhenRenamingIdentifierIsThere"/>
            """))
        let base = try #require(model.entity(named: "Base"))
        #expect(base.isAbstract)
        #expect(base.managedObjectClassName == "BaseMO")
        #expect(base.parentEntityName == nil)
        let person = try #require(model.entity(named: "Person"))
        #expect(!person.isAbstract)
        #expect(person.parentEntityName == "Base")
        #expect(person.managedObjectClassName == ".Person")
        #expect(person.renamingIdentifier == "Human")
        #expect(person.versionHashModifier == "v3")
        #expect(model.entity(named: "Team")?.renamingIdentifier == "Squad")
        #expect(model.entities.map(\.name) == ["Base", "Person", "Team"], "entities keep file order")
    }

    @Test func classesMatchRepresentedClassNamesWithModulePrefixes() throws {
        let model = try loadModel(modelXML("""
            <entity name="Person" representedClassName="App.LoadedPersonMO"/>
            <entity name="Team" representedClassName=".LoadedTeamMO"/>
            <entity name="Other" representedClassName="NSManagedObject"/>
            """), classes: [LoadedPersonMO.self, LoadedTeamMO.self])
        #expect(model.entity(named: "Person")?.managedObjectClass == LoadedPersonMO.self)
        #expect(model.entity(named: "Team")?.managedObjectClass == LoadedTeamMO.self)
        #expect(model.entity(named: "Other")?.managedObjectClass == ManagedObject.self)
    }

    @Test(arguments: [
        ("Integer 16", AttributeType.integer16), ("Integer 32", .integer32), ("Integer 64", .integer64),
        ("Decimal", .decimal), ("Double", .double), ("Float", .float), ("String", .string), ("Boolean", .boolean),
        ("Date", .date), ("Binary", .binary), ("Binary Data", .binary), ("UUID", .uuid), ("URI", .uri),
        ("Transformable", .transformable), ("Undefined", .undefined),
    ])
    func attributeTypesInXcodeSpelling(name: String, type: AttributeType) throws {
        let model = try loadModel(modelXML(#"<entity name="E"><attribute name="a" attributeType="\#(name)"/></entity>"#))
        #expect(model.entity(named: "E")?.attribute(named: "a")?.attributeType == type)
    }

    @Test func attributeFlagsAndTexts() throws {
        let model = try loadModel(modelXML("""
            <entity name="E">
                <attribute name="plain" attributeType="String"/>
                <attribute name="flags" optional="YES" transient="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                <attribute name="blob" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" \
            elementID="oldBlob" versionHashModifier="m"/>
                <attribute name="colour" optional="YES" attributeType="Transformable" \
            valueTransformerName="ColourTransformer" customClassName="UIColor"/>
                <attribute name="code" attributeType="String" regularExpressionString="[A-Z]{3}" \
            renamingIdentifier="isoCode">
                    <userInfo>
                        <entry key="hint" value="ISO &quot;4217&quot;"/>
                        <entry key="empty"/>
                    </userInfo>
                </attribute>
            </entity>
            """))
        let entity = try #require(model.entity(named: "E"))
        let plain = try #require(entity.attribute(named: "plain"))
        #expect(!plain.isOptional && !plain.isTransient && !plain.usesScalarValueType, "absent Booleans are NO")
        #expect(plain.defaultValue == .null && plain.minimum == nil && plain.maximum == nil)
        let flags = try #require(entity.attribute(named: "flags"))
        #expect(flags.isOptional && flags.isTransient && flags.usesScalarValueType)
        let blob = try #require(entity.attribute(named: "blob"))
        #expect(blob.allowsExternalBinaryDataStorage)
        #expect(blob.renamingIdentifier == "oldBlob" && blob.versionHashModifier == "m")
        let colour = try #require(entity.attribute(named: "colour"))
        #expect(colour.valueTransformerName == "ColourTransformer" && colour.customClassName == "UIColor")
        let code = try #require(entity.attribute(named: "code"))
        #expect(code.regularExpression == "[A-Z]{3}")
        #expect(code.renamingIdentifier == "isoCode")
        #expect(code.userInfo == ["hint": "ISO \"4217\"", "empty": ""])
    }

    @Test func defaultValuesAreParsedByType() throws {
        let model = try loadModel(modelXML("""
            <entity name="E">
                <attribute name="i16" attributeType="Integer 16" defaultValueString="-32768"/>
                <attribute name="i32" attributeType="Integer 32" defaultValueString="2147483647"/>
                <attribute name="i64" attributeType="Integer 64" defaultValueString="-9223372036854775808"/>
                <attribute name="whole" attributeType="Integer 64" defaultValueString="7.0"/>
                <attribute name="dec" attributeType="Decimal" defaultValueString="12.50"/>
                <attribute name="dbl" attributeType="Double" defaultValueString="-1.5e3"/>
                <attribute name="flt" attributeType="Float" defaultValueString="0.25"/>
                <attribute name="str" attributeType="String" defaultValueString=" spaced &amp; kept "/>
                <attribute name="emptyStr" attributeType="String" defaultValueString=""/>
                <attribute name="yes" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="no" attributeType="Boolean" defaultValueString="NO"/>
                <attribute name="date" attributeType="Date" defaultDateTimeInterval="694224000"/>
                <attribute name="dateString" attributeType="Date" defaultValueString="-86400.5"/>
                <attribute name="uuid" attributeType="UUID" defaultValueString="0a1b2c3d-4e5f-4071-8293-a4b5c6d7e8f9"/>
                <attribute name="url" attributeType="URI" defaultValueString="https://example.org/a?b=c"/>
                <attribute name="noNumber" attributeType="Integer 32" defaultValueString=""/>
                <attribute name="blob" attributeType="Binary" defaultValueString="ignored"/>
            </entity>
            """))
        let entity = try #require(model.entity(named: "E"))
        func value(_ name: String) -> AttributeValue? { entity.attribute(named: name)?.defaultValue }
        #expect(value("i16") == .integer(-32768))
        #expect(value("i32") == .integer(2_147_483_647))
        #expect(value("i64") == .integer(.min))
        #expect(value("whole") == .integer(7))
        #expect(value("dec") == .decimal(Decimal(string: "12.5", locale: Locale(identifier: "en_US_POSIX"))!))
        #expect(value("dbl") == .double(-1500))
        #expect(value("flt") == .double(0.25))
        #expect(value("str") == .string(" spaced & kept "))
        #expect(value("emptyStr") == .string(""))
        #expect(value("yes") == .boolean(true))
        #expect(value("no") == .boolean(false))
        #expect(value("date") == .date(Date(timeIntervalSinceReferenceDate: 694_224_000)))
        #expect(value("dateString") == .date(Date(timeIntervalSinceReferenceDate: -86400.5)))
        #expect(value("uuid") == .uuid(UUID(uuidString: "0A1B2C3D-4E5F-4071-8293-A4B5C6D7E8F9")!))
        #expect(value("url") == .uri(URL(string: "https://example.org/a?b=c")!))
        #expect(value("noNumber") == .null)
        #expect(value("blob") == .null)
    }

    @Test func boundsAreValuesForNumbersAndDatesAndLengthsForStringsAndData() throws {
        let model = try loadModel(modelXML("""
            <entity name="E">
                <attribute name="age" attributeType="Integer 16" minValueString="0" maxValueString="150"/>
                <attribute name="ratio" attributeType="Double" minValueString="-0.5" maxValueString="0.5"/>
                <attribute name="price" attributeType="Decimal" minValueString="0.01"/>
                <attribute name="name" attributeType="String" minValueString="1" maxValueString="64"/>
                <attribute name="photo" attributeType="Binary" maxValueString="1048576"/>
                <attribute name="born" attributeType="Date" minDateTimeInterval="-978307200" maxDateTimeInterval="0"/>
                <attribute name="flag" attributeType="Boolean" minValueString="0" maxValueString="1"/>
            </entity>
            """))
        let entity = try #require(model.entity(named: "E"))
        #expect(entity.attribute(named: "age")?.minimum == .integer(0))
        #expect(entity.attribute(named: "age")?.maximum == .integer(150))
        #expect(entity.attribute(named: "ratio")?.minimum == .double(-0.5))
        #expect(entity.attribute(named: "ratio")?.maximum == .double(0.5))
        #expect(entity.attribute(named: "price")?.minimum == .decimal(Decimal(string: "0.01")!))
        #expect(entity.attribute(named: "name")?.minimum == .integer(1))
        #expect(entity.attribute(named: "name")?.maximum == .integer(64))
        #expect(entity.attribute(named: "photo")?.maximum == .integer(1_048_576))
        #expect(entity.attribute(named: "born")?.minimum == .date(Date(timeIntervalSince1970: 0)))
        #expect(entity.attribute(named: "born")?.maximum == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(entity.attribute(named: "flag")?.minimum == nil, "Booleans have no bounds; the text is ignored")
    }

    @Test func derivedAttributesLoadAsStoredAttributes() throws {
        let model = try loadModel(modelXML("""
            <entity name="Tag">
                <attribute name="count" optional="YES" attributeType="Integer 64" derived="YES" \
            derivationExpression="items.@count" usesScalarValueType="YES"/>
                <fetchedProperty name="recent" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Tag" predicateString="count &gt; 0"/>
                </fetchedProperty>
            </entity>
            """))
        let tag = try #require(model.entity(named: "Tag"))
        #expect(tag.attribute(named: "count")?.isTransient == false)
        #expect(tag.attributes.count == 1 && tag.relationships.isEmpty, "fetched properties are left out")
    }

    @Test func relationships() throws {
        let model = try loadModel(modelXML("""
            <entity name="Author">
                <relationship name="books" optional="YES" toMany="YES" minCount="1" maxCount="10" \
            deletionRule="Cascade" ordered="YES" destinationEntity="Book" inverseName="authors" inverseEntity="Book" \
            elementID="works" versionHashModifier="h">
                    <userInfo><entry key="k" value="v"/></userInfo>
                </relationship>
                <relationship name="agent" maxCount="1" deletionRule="Deny" destinationEntity="Agent" transient="YES"/>
                <relationship name="pet" minCount="1" maxCount="1" deletionRule="No Action" destinationEntity="Agent"/>
                <relationship name="fans" toMany="YES" destinationEntity="Agent"/>
            </entity>
            <entity name="Book">
                <relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Author" \
            inverseName="books" inverseEntity="Author"/>
            </entity>
            <entity name="Agent"/>
            """))
        let author = try #require(model.entity(named: "Author"))
        let books = try #require(author.relationship(named: "books"))
        #expect(books.destinationEntityName == "Book" && books.inverseName == "authors")
        #expect(books.isToMany && books.isOrdered && books.isOptional && !books.isTransient)
        #expect(books.deleteRule == .cascade && books.minCount == 1 && books.maxCount == 10)
        #expect(books.renamingIdentifier == "works" && books.versionHashModifier == "h" && books.userInfo == ["k": "v"])
        let agent = try #require(author.relationship(named: "agent"))
        #expect(!agent.isToMany && !agent.isOptional && agent.isTransient && agent.deleteRule == .deny)
        #expect(agent.maxCount == 1 && agent.inverseName == nil)
        #expect(author.relationship(named: "pet")?.deleteRule == .noAction)
        let fans = try #require(author.relationship(named: "fans"))
        #expect(fans.deleteRule == .nullify && fans.maxCount == 0, "absent rule is Nullify, to-many is unbounded")
        #expect(model.entity(named: "Book")?.relationship(named: "authors")?.isToMany == true)
    }

    @Test func fetchRequestTemplatesAndConfigurations() throws {
        let model = try loadModel(modelXML("""
            <entity name="Article"><attribute name="words" attributeType="Integer 32"/></entity>
            <entity name="Draft"/>
            <fetchRequest name="Long" entity="Article" predicateString="words &gt; $MIN AND words &lt; 10000" fetchLimit="5"/>
            <fetchRequest name="All" entity="Article"/>
            <configuration name="Cloud" usedWithCloudKit="YES"><memberEntity name="Article"/></configuration>
            <configuration name="Local"><memberEntity name="Draft"/><memberEntity name="Article"/></configuration>
            """))
        #expect(model.fetchRequestTemplates == [
            FetchRequestTemplate(name: "Long", entityName: "Article", predicateFormat: "words > $MIN AND words < 10000"),
            FetchRequestTemplate(name: "All", entityName: "Article", predicateFormat: nil),
        ])
        #expect(model.configurations == [
            ModelConfiguration(name: "Cloud", entityNames: ["Article"]),
            ModelConfiguration(name: "Local", entityNames: ["Draft", "Article"]),
        ])
    }

    @Test func userInfoConstraintsAndIndexes() throws {
        let model = try loadModel(modelXML("""
            <entity name="Account">
                <attribute name="email" attributeType="String" indexed="YES"/>
                <attribute name="server" attributeType="String"/>
                <attribute name="rank" attributeType="Integer 64" indexed="YES"/>
                <uniquenessConstraints>
                    <uniquenessConstraint><constraint value="email"/><constraint value="server"/></uniquenessConstraint>
                    <uniquenessConstraint><constraint value="rank"/></uniquenessConstraint>
                </uniquenessConstraints>
                <fetchIndex name="byRankIndex">
                    <fetchIndexElement property="rank" type="Binary" order="descending"/>
                </fetchIndex>
                <fetchIndex name="byServer"><fetchIndexElement property="server" type="RTree"/></fetchIndex>
                <fetchIndex name="byExpression">
                    <fetchIndexElement expression="email.length" expressionType="Integer 64" type="Binary"/>
                </fetchIndex>
                <compoundIndexes>
                    <compoundIndex><index value="server"/><index value="email"/></compoundIndex>
                </compoundIndexes>
                <userInfo><entry key="table" value="accounts"/><entry key="table" value="last wins"/></userInfo>
            </entity>
            """))
        let account = try #require(model.entity(named: "Account"))
        #expect(account.uniquenessConstraints == [["email", "server"], ["rank"]])
        #expect(account.fetchIndexes == [
            FetchIndexDescription(name: "byRankIndex", elements: [.init(property: "rank", ascending: false)]),
            FetchIndexDescription(name: "byServer", elements: [.init(property: "server")]),
            FetchIndexDescription(name: "compoundIndex3", elements: [.init(property: "server"), .init(property: "email")]),
            FetchIndexDescription(name: "byEmailIndex", elements: [.init(property: "email")]),
        ], "expression indexes are left out; indexed=YES adds by<Name>Index unless that name exists")
        #expect(account.userInfo == ["table": "last wins"])
    }

    @Test func layoutElementsCommentsAndUnknownElementsAreIgnored() throws {
        let model = try loadModel(modelXML("""
            <!-- Xcode never writes comments, but they are XML -->
            <composite name="Address"><attribute name="street" attributeType="String"/></composite>
            <entity name="Place">
                <attribute name="name" attributeType="String" spotlightIndexingEnabled="YES" preserveAfterDeletion="YES"/>
                <futureElement kind="new"><nested/></futureElement>
            </entity>
            <layout><canvas zoom="1"/></layout>
            <elements><element name="Place" positionX="0" positionY="0" width="128" height="44"/></elements>
            """))
        #expect(model.entities.map(\.name) == ["Place"])
        #expect(model.entity(named: "Place")?.attributes.map(\.name) == ["name"])
    }

    /// Xcode's "Index in Spotlight" is the text search index; it leaves the version hash alone (no migration).
    @Test func spotlightIndexingEnabledDeclaresTheTextSearchIndex() throws {
        let xml = """
            <entity name="Place">
                <attribute name="name" attributeType="String" spotlightIndexingEnabled="YES"/>
                <attribute name="note" optional="YES" attributeType="String" spotlightIndexingEnabled="NO"/>
                <attribute name="code" optional="YES" attributeType="String"/>
            </entity>
            """
        let model = try loadModel(modelXML(xml))
        #expect(model.entity(named: "Place")?.attributes.map(\.isIndexedBySpotlight) == [true, false, false])
        let plain = try loadModel(modelXML(xml.replacingOccurrences(of: "spotlightIndexingEnabled=\"YES\"", with: "")))
        #expect(plain.entity(named: "Place")?.attributes.map(\.isIndexedBySpotlight) == [false, false, false])
        #expect(model.entityVersionHashes == plain.entityVersionHashes)
    }

    @Test func inheritedPropertiesComeFirst() throws {
        let model = try loadModel(modelXML("""
            <entity name="Animal" isAbstract="YES"><attribute name="name" attributeType="String"/></entity>
            <entity name="Cat" parentEntity="Animal"><attribute name="lives" attributeType="Integer 16"/></entity>
            <entity name="Lion" parentEntity="Cat"><attribute name="pride" attributeType="String"/></entity>
            """))
        #expect(model.entity(named: "Lion")?.attributes.map(\.name) == ["name", "lives", "pride"])
        #expect(model.entity(named: "Lion").map { model.rootEntity(of: $0).name } == "Animal")
    }
}
