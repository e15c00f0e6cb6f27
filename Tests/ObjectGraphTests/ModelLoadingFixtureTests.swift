import Foundation
import Testing

@testable import ObjectGraph

/// Real `contents` files from public projects (see Fixtures/Models/SOURCES.md). The expected counts were
/// taken from the XML with an independent script (Python's ElementTree), not from this loader.
@Suite struct ModelLoadingFixtureTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Models")

    /// One fixture and what its XML holds.
    struct Expectation: Sendable, CustomTestStringConvertible {
        var fixture: String
        /// Entity → (own attributes, own relationships, parent).
        var entities: [String: (attributes: Int, relationships: Int, parent: String?)]
        var configurations: Int = 0
        var fetchRequests: Int = 0
        var testDescription: String { fixture }
    }

    static let expectations: [Expectation] = [
        Expectation(fixture: "Mogenerator", entities: [
            "Child": (2, 1, "Human"), "ConcreteEntityWithCustomClass1": (1, 0, "EntitySansCustomClass2"),
            "ConcreteEntityWithCustomClass2": (1, 0, "EntitySansCustomClass2"), "EntitySansCustomClass": (1, 0, nil),
            "EntitySansCustomClass2": (1, 0, nil), "EntityWithBaseClass": (1, 0, nil), "Human": (3, 1, nil),
            "Parent": (13, 2, "Human"), "Uncle": (1, 0, "Human"),
        ], fetchRequests: 5),
        Expectation(fixture: "CoreDataPlusSampleModel2", entities: [
            "Car": (4, 1, nil), "LuxuryCar": (1, 0, "SportCar"), "Person": (3, 1, nil), "SportCar": (0, 0, "Car"),
        ]),
        Expectation(fixture: "BNRTestModel2", entities: [
            "Author": (2, 1, nil), "Book": (1, 2, nil), "Publisher": (1, 1, nil),
        ]),
        Expectation(fixture: "CoreStoreTests", entities: ["TestEntity1AAA": (8, 2, nil), "TestEntity2": (8, 2, nil)],
            configurations: 2),
        Expectation(fixture: "CoreDataCloudKitShare", entities: [
            "Photo": (2, 4, nil), "PhotoData": (1, 1, nil), "Rating": (1, 1, nil), "Tag": (3, 1, nil),
            "Thumbnail": (1, 1, nil),
        ]),
        Expectation(fixture: "CoreDataSync", entities: ["Contact": (2, 0, nil)]),
    ]

    @Test(arguments: expectations)
    func realModelLoadsWithTheCountsInItsXML(_ expected: Expectation) throws {
        let url = Self.folder.appendingPathComponent(expected.fixture + ".xcdatamodel")
        let model = try ManagedObjectModel.load(contentsOf: url)
        #expect(model.versionName == expected.fixture)
        #expect(Set(model.entities.map(\.name)) == Set(expected.entities.keys))
        for (name, counts) in expected.entities {
            let entity = try #require(model.entity(named: name))
            #expect(entity.ownAttributes.count == counts.attributes, "\(name) attributes")
            #expect(entity.ownRelationships.count == counts.relationships, "\(name) relationships")
            #expect(entity.parentEntityName == counts.parent, "\(name) parent")
        }
        #expect(model.configurations.count == expected.configurations)
        #expect(model.fetchRequestTemplates.count == expected.fetchRequests)
    }

    @Test func mogeneratorDetails() throws {
        let model = try ManagedObjectModel.load(contentsOf: Self.folder.appendingPathComponent("Mogenerator.xcdatamodel"))
        let parent = try #require(model.entity(named: "Parent"))
        #expect(parent.attributes.count == 3 + 13, "inherits Human's three attributes")
        #expect(parent.relationship(named: "orderedChildren")?.isOrdered == true)
        #expect(parent.relationship(named: "children")?.inverseName == nil)
        #expect(parent.attribute(named: "myInt16Transient")?.isTransient == true)
        let human = try #require(model.entity(named: "Human"))
        #expect(human.userInfo == ["additionalHeaderFileName": "Gender.h", "key with.dots...": "value with \"quotes\""])
        #expect(human.attribute(named: "age")?.minimum == .integer(0))
        #expect(human.attribute(named: "age")?.userInfo == ["mogenerator.readonly": "true"])
        #expect(model.fetchRequestTemplate(named: "byParentName")?.predicateFormat == "parent.parentName == $parentName")
        #expect(model.fetchRequestTemplate(named: "allHumans")?.predicateFormat == nil)
        #expect(model.subentities(of: human).map(\.name) == ["Child", "Parent", "Uncle"])
    }

    @Test func coreDataPlusDetails() throws {
        let url = Self.folder.appendingPathComponent("CoreDataPlusSampleModel2.xcdatamodel/contents")
        let model = try ManagedObjectModel.load(contentsOf: url)
        #expect(model.versionIdentifiers == ["2"])
        let luxury = try #require(model.entity(named: "LuxuryCar"))
        #expect(luxury.renamingIdentifier == "ExpensiveSportCar")
        #expect(luxury.attribute(named: "isLimitedEdition")?.defaultValue == .boolean(false))
        #expect(luxury.attributes.count == 5 && luxury.relationships.count == 1, "inherits through SportCar from Car")
        let car = try #require(model.entity(named: "Car"))
        #expect(car.fetchIndexes == [FetchIndexDescription(name: "byMakerAndNumberPlate",
            elements: [.init(property: "maker"), .init(property: "numberPlate")])])
        #expect(car.uniquenessConstraints == [["numberPlate"]])
        #expect(model.entity(named: "Person")?.uniquenessConstraints == [["firstName", "lastName"]])
    }

    @Test func manyToManyConfigurationsAndTransformables() throws {
        let bnr = try ManagedObjectModel.load(contentsOf: Self.folder.appendingPathComponent("BNRTestModel2.xcdatamodel"))
        let books = try #require(bnr.entity(named: "Author")?.relationship(named: "books"))
        let authors = try #require(bnr.entity(named: "Book")?.relationship(named: "authors"))
        #expect(books.isToMany && authors.isToMany && books.inverseName == "authors" && authors.inverseName == "books")
        #expect(bnr.entity(named: "Publisher")?.managedObjectClassName == nil)

        let coreStore = try ManagedObjectModel.load(contentsOf: Self.folder.appendingPathComponent("CoreStoreTests.xcdatamodel"))
        #expect(coreStore.configurations == [
            ModelConfiguration(name: "Config1", entityNames: ["TestEntity1AAA"]),
            ModelConfiguration(name: "Config2", entityNames: ["TestEntity2"]),
        ])
        #expect(coreStore.entity(named: "TestEntity2")?.relationship(named: "testToManyOrdered")?.isOrdered == true)

        let share = try ManagedObjectModel.load(contentsOf: Self.folder.appendingPathComponent("CoreDataCloudKitShare.xcdatamodel"))
        #expect(share.entity(named: "Tag")?.relationship(named: "photos")?.isToMany == true)
        #expect(share.entity(named: "Photo")?.relationship(named: "tags")?.isToMany == true)
        #expect(share.entity(named: "PhotoData")?.attribute(named: "data")?.allowsExternalBinaryDataStorage == true)
        #expect(share.entity(named: "Photo")?.relationship(named: "ratings")?.deleteRule == .cascade)

        let sync = try ManagedObjectModel.load(contentsOf: Self.folder.appendingPathComponent("CoreDataSync.xcdatamodel"))
        let photo = try #require(sync.entity(named: "Contact")?.attribute(named: "photo"))
        #expect(photo.attributeType == .transformable && photo.customClassName == "UIKit.UIImage")
        #expect(photo.valueTransformerName == nil, "an empty transformer name means the default")
    }
}
