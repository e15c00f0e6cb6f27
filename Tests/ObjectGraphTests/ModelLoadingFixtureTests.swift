import Foundation
import Testing

@testable import ObjectGraph

/// Model files in Xcode's format, written for these tests to cover what real models use (see
/// Fixtures/Models/README.md). The expected counts were taken from the XML with an independent script (Python's
/// ElementTree), not from this loader.
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
        Expectation(fixture: "Zoo", entities: [
            "Animal": (3, 1, nil), "Bird": (2, 0, "Animal"), "Parrot": (1, 0, "Bird"), "Penguin": (1, 0, "Bird"),
            "Mammal": (2, 3, "Animal"), "Keeper": (2, 1, nil), "Toy": (1, 0, nil), "Enclosure": (1, 0, nil),
        ], fetchRequests: 5),
        Expectation(fixture: "Garage2", entities: [
            "Vehicle": (4, 1, nil), "Coupe": (0, 0, "Vehicle"), "Roadster": (1, 0, "Coupe"), "Driver": (3, 1, nil),
        ]),
        Expectation(fixture: "Shelf", entities: ["Writer": (2, 1, nil), "Novel": (1, 2, nil), "Imprint": (1, 1, nil)]),
        Expectation(fixture: "Configurations", entities: ["Folder": (5, 2, nil), "Note": (4, 2, nil)], configurations: 2),
        Expectation(fixture: "Album", entities: [
            "Picture": (2, 4, nil), "Original": (1, 1, nil), "Preview": (1, 1, nil), "Star": (1, 1, nil), "Label": (3, 1, nil),
        ]),
        Expectation(fixture: "Contacts", entities: ["Card": (2, 0, nil)]),
        // Place: address.street, address.geo.latitude, address.geo.longitude, location.latitude, location.longitude,
        // name; Cafe: hours.closes, hours.opens.
        Expectation(fixture: "Places", entities: ["Place": (6, 0, nil), "Cafe": (2, 0, "Place")], fetchRequests: 3),
    ]

    @Test(arguments: expectations)
    func modelLoadsWithTheCountsInItsXML(_ expected: Expectation) throws {
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

    @Test func zooDetails() throws {
        let model = try ManagedObjectModel.load(contentsOf: Self.folder.appendingPathComponent("Zoo.xcdatamodel"))
        let mammal = try #require(model.entity(named: "Mammal"))
        #expect(mammal.attributes.count == 3 + 2, "inherits Animal's three attributes")
        #expect(mammal.relationship(named: "offspring")?.isOrdered == true)
        #expect(mammal.relationship(named: "favouriteToys")?.inverseName == nil)
        #expect(mammal.attribute(named: "heartRate")?.isTransient == true)
        let animal = try #require(model.entity(named: "Animal"))
        #expect(animal.userInfo == ["extraHeader": "Diet.h", "key.with.dots": "a \"quoted\" value"])
        #expect(animal.attribute(named: "legs")?.minimum == .integer(0))
        #expect(animal.attribute(named: "legs")?.defaultValue == .integer(4))
        #expect(animal.attribute(named: "legs")?.userInfo == ["generator.readonly": "true"])
        #expect(model.fetchRequestTemplate(named: "byKeeperName")?.predicateFormat == "keeper.name == $keeperName")
        #expect(model.fetchRequestTemplate(named: "heavierThan")?.predicateFormat == "weight > $minimum")
        #expect(model.fetchRequestTemplate(named: "namedLike")?.predicateFormat == "nickname LIKE[c] \"*ol*\"")
        #expect(model.fetchRequestTemplate(named: "allAnimals")?.predicateFormat == nil)
        #expect(model.subentities(of: animal).map(\.name) == ["Bird", "Mammal"])
        #expect(model.entityAndDescendants(of: animal).count == 5)
    }

    @Test func garageDetails() throws {
        let url = Self.folder.appendingPathComponent("Garage2.xcdatamodel/contents")
        let model = try ManagedObjectModel.load(contentsOf: url)
        #expect(model.versionIdentifiers == ["2"])
        let roadster = try #require(model.entity(named: "Roadster"))
        #expect(roadster.renamingIdentifier == "OpenTopCoupe")
        #expect(roadster.attribute(named: "hasSoftTop")?.defaultValue == .boolean(false))
        #expect(roadster.attributes.count == 5 && roadster.relationships.count == 1, "inherits through Coupe from Vehicle")
        let vehicle = try #require(model.entity(named: "Vehicle"))
        #expect(vehicle.fetchIndexes == [FetchIndexDescription(name: "byBrandAndPlate",
            elements: [.init(property: "brand"), .init(property: "plate")])])
        #expect(vehicle.uniquenessConstraints == [["plate"]])
        #expect(model.entity(named: "Driver")?.uniquenessConstraints == [["givenName", "familyName"]])
    }

    @Test func manyToManyConfigurationsAndTransformables() throws {
        let shelf = try ManagedObjectModel.load(contentsOf: Self.folder.appendingPathComponent("Shelf.xcdatamodel"))
        let novels = try #require(shelf.entity(named: "Writer")?.relationship(named: "novels"))
        let writers = try #require(shelf.entity(named: "Novel")?.relationship(named: "writers"))
        #expect(novels.isToMany && writers.isToMany && novels.inverseName == "writers" && writers.inverseName == "novels")
        #expect(shelf.entity(named: "Imprint")?.managedObjectClassName == nil)
        #expect(shelf.entity(named: "Imprint")?.relationship(named: "novels")?.deleteRule == .deny)

        let configured = try ManagedObjectModel.load(contentsOf: Self.folder.appendingPathComponent("Configurations.xcdatamodel"))
        #expect(configured.configurations == [
            ModelConfiguration(name: "Folders", entityNames: ["Folder"]),
            ModelConfiguration(name: "Notes", entityNames: ["Note"]),
        ])
        #expect(configured.entity(named: "Folder")?.relationship(named: "subfolders")?.isOrdered == true)
        #expect(configured.entity(named: "Note")?.relationship(named: "related")?.isOrdered == false)

        let album = try ManagedObjectModel.load(contentsOf: Self.folder.appendingPathComponent("Album.xcdatamodel"))
        #expect(album.entity(named: "Label")?.relationship(named: "pictures")?.isToMany == true)
        #expect(album.entity(named: "Picture")?.relationship(named: "labels")?.isToMany == true)
        #expect(album.entity(named: "Original")?.attribute(named: "bytes")?.allowsExternalBinaryDataStorage == true)
        #expect(album.entity(named: "Picture")?.relationship(named: "stars")?.deleteRule == .cascade)
        #expect(album.entity(named: "Label")?.attribute(named: "pictureCount")?.derivationExpression == "pictures.@count")

        let contacts = try ManagedObjectModel.load(contentsOf: Self.folder.appendingPathComponent("Contacts.xcdatamodel"))
        let portrait = try #require(contacts.entity(named: "Card")?.attribute(named: "portrait"))
        #expect(portrait.attributeType == .transformable && portrait.customClassName == "UIKit.UIImage")
        #expect(portrait.valueTransformerName == nil, "an empty transformer name means the default")
    }
}
