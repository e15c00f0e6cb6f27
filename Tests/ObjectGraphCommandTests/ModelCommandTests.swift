import Foundation
import Testing
import TestSupport

/// `objectgraph model`: the listing of a model file, as JSON and as text.
@Suite("objectgraph model")
struct ModelCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-model")

    private func listing() throws -> [String: Any] {
        let model = try ModelFixtures.catalog(in: folder.url)
        let output = try ObjectGraphTool.succeed(["model", model.path, "--json"])
        return try #require(try jsonObject(output) as? [String: Any], "not a JSON object:\n\(output)")
    }

    private func entity(_ name: String, in listing: [String: Any]) throws -> [String: Any] {
        let entities = try #require(listing["entities"] as? [[String: Any]])
        return try #require(entities.first { $0["name"] as? String == name }, "no entity \(name)")
    }

    private func property(_ name: String, _ kind: String, of entity: [String: Any]) throws -> [String: Any] {
        let properties = try #require(entity[kind] as? [[String: Any]])
        return try #require(properties.first { $0["name"] as? String == name }, "no \(kind) \(name)")
    }

    @Test("--from-store with a PostgreSQL URI says it needs a store file, without the URI's password")
    func fromStoreRefusesADatabaseWithoutItsPassword() throws {
        let result = try ObjectGraphTool.run(["model", "--from-store", "postgresql://someone:s3cr3t-w0rd@127.0.0.1:1/x"])
        #expect(result.status == 1, "\(result.statusDescription)")
        #expect(result.standardError.contains("a PostgreSQL store has none"), "\(result.standardError)")
        #expect(!(result.standardError + result.standardOutput).contains("s3cr3t-w0rd"), "\(result.standardError)")
    }

    @Test("attributes with the text search index (Xcode's Index in Spotlight) say so, in JSON and text")
    func textIndex() throws {
        let output = try ObjectGraphTool.succeed(["model", ModelFixtures.people.path, "--json"])
        let listing = try #require(try jsonObject(output) as? [String: Any])
        let person = try entity("Person", in: listing)
        let indexed = (person["attributes"] as? [[String: Any]])?.filter { $0["textIndex"] as? Bool == true }
            .compactMap { $0["name"] as? String }
        #expect(indexed == ["city", "email", "firstName", "lastName"])
        let text = try ObjectGraphTool.succeed(["model", ModelFixtures.people.path])
        #expect(text.split(separator: "\n").contains { $0.contains("lastName") && $0.contains("text index") })
        #expect(!text.split(separator: "\n").contains { $0.contains("nickname") && $0.contains("text index") })
    }

    @Test("composite attributes are listed once, with their elements and the columns they are stored in")
    func composites() throws {
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Place">
                    <attribute name="location" attributeType="Composite" composite="Location"/>
                    <attribute name="name" optional="YES" attributeType="String"/>
                </entity>
                <composite name="Location">
                    <attribute name="latitude" attributeType="Double" defaultValueString="0"/>
                    <attribute name="longitude" optional="YES" attributeType="Double"/>
                </composite>
            </model>
            """
        let model = try ModelFixtures.write(contents, named: "Places", in: folder.url)
        let output = try ObjectGraphTool.succeed(["model", model.path, "--json"])
        let listing = try #require(try jsonObject(output) as? [String: Any])
        let place = try entity("Place", in: listing)
        #expect((place["attributes"] as? [[String: Any]])?.map { $0["name"] as? String } == ["location", "name"])
        let location = try property("location", "attributes", of: place)
        #expect(location["type"] as? String == "Composite")
        let elements = try #require(location["elements"] as? [[String: Any]])
        #expect(elements.map { $0["name"] as? String } == ["latitude", "longitude"])
        #expect(elements.map { $0["type"] as? String } == ["Double", "Double"])
        let text = try ObjectGraphTool.succeed(["model", model.path])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("location") && $0.contains("Composite") && $0.contains("2 elements") })
        #expect(lines.contains { $0.contains("latitude") && $0.contains("column ZLOCATION_LATITUDE") })
        #expect(lines.contains { $0.contains("longitude") && $0.contains("column ZLOCATION_LONGITUDE") })
    }

    @Test("the JSON lists entities in model order with parent, abstract and only their own properties")
    func entities() throws {
        let listing = try listing()
        let entities = try #require(listing["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["Item", "Book", "Ebook", "Gadget", "Shelf"])

        let item = try entity("Item", in: listing)
        #expect(item["parent"] is NSNull)
        #expect(item["abstract"] as? Bool == true)
        #expect((item["attributes"] as? [[String: Any]])?.map { $0["name"] as? String } == ["title", "price", "sku"])

        let book = try entity("Book", in: listing)
        #expect(book["parent"] as? String == "Item")
        #expect(book["abstract"] as? Bool == false)
        #expect((book["attributes"] as? [[String: Any]])?.map { $0["name"] as? String } == ["pages", "isbn", "published"])
        #expect((book["relationships"] as? [[String: Any]])?.map { $0["name"] as? String } == ["related"])

        let ebook = try entity("Ebook", in: listing)
        #expect(ebook["parent"] as? String == "Book")
        #expect((ebook["attributes"] as? [[String: Any]])?.map { $0["name"] as? String } == ["fileSize"])
    }

    @Test("attributes carry Xcode's type spelling, optionality, transience and defaults")
    func attributes() throws {
        let listing = try listing()
        let shelf = try entity("Shelf", in: listing)
        let types = (shelf["attributes"] as? [[String: Any]])?.compactMap { $0["type"] as? String }
        #expect(types == ["String", "Integer 32", "Double", "Date", "Binary", "URI", "String", "Transformable", "String"])

        let name = try property("name", "attributes", of: shelf)
        #expect(name["optional"] as? Bool == false)
        #expect(name["transient"] as? Bool == false)
        #expect(name["default"] is NSNull)

        let capacity = try property("capacity", "attributes", of: shelf)
        #expect(capacity["default"] as? Int == 10)

        let note = try property("note", "attributes", of: shelf)
        #expect(note["transient"] as? Bool == true)
        #expect(note["optional"] as? Bool == true)

        let gadget = try entity("Gadget", in: listing)
        #expect(try property("inStock", "attributes", of: gadget)["type"] as? String == "Boolean")
        #expect(try property("inStock", "attributes", of: gadget)["default"] as? Bool == true)
        #expect(try property("weight", "attributes", of: gadget)["type"] as? String == "Float")

        let item = try entity("Item", in: listing)
        #expect(try property("sku", "attributes", of: item)["type"] as? String == "UUID")
        #expect(try property("price", "attributes", of: item)["type"] as? String == "Decimal")
        let book = try entity("Book", in: listing)
        #expect(try property("pages", "attributes", of: book)["type"] as? String == "Integer 16")
        let ebook = try entity("Ebook", in: listing)
        #expect(try property("fileSize", "attributes", of: ebook)["type"] as? String == "Integer 64")
    }

    @Test("relationships carry destination, inverse, cardinality, order, delete rule and counts")
    func relationships() throws {
        let listing = try listing()
        let items = try property("items", "relationships", of: try entity("Shelf", in: listing))
        #expect(items["destination"] as? String == "Item")
        #expect(items["inverse"] as? String == "shelf")
        #expect(items["toMany"] as? Bool == true)
        #expect(items["ordered"] as? Bool == true)
        #expect(items["deleteRule"] as? String == "Cascade")
        #expect(items["minCount"] as? Int == 1)
        #expect(items["maxCount"] as? Int == 50)

        let neighbour = try property("neighbour", "relationships", of: try entity("Shelf", in: listing))
        #expect(neighbour["inverse"] is NSNull)
        #expect(neighbour["toMany"] as? Bool == false)
        #expect(neighbour["deleteRule"] as? String == "Deny")
        #expect(neighbour["maxCount"] as? Int == 1)

        let shelf = try property("shelf", "relationships", of: try entity("Item", in: listing))
        #expect(shelf["deleteRule"] as? String == "Nullify")
        #expect(shelf["ordered"] as? Bool == false)

        let related = try property("related", "relationships", of: try entity("Book", in: listing))
        #expect(related["deleteRule"] as? String == "No Action")
    }

    @Test("fetch request templates and configurations are listed")
    func templatesAndConfigurations() throws {
        let listing = try listing()
        let requests = try #require(listing["fetchRequests"] as? [[String: Any]])
        #expect(requests.count == 2)
        #expect(requests.first?["name"] as? String == "LongBooks")
        #expect(requests.first?["entity"] as? String == "Book")
        #expect(requests.first?["predicate"] as? String == "pages > 300")
        #expect(requests.last?["name"] as? String == "AllShelves")
        #expect(requests.last?["predicate"] is NSNull)

        let configurations = try #require(listing["configurations"] as? [[String: Any]])
        #expect(configurations.map { $0["name"] as? String } == ["Books", "Furniture"])
        #expect(configurations.first?["entities"] as? [String] == ["Book", "Ebook"])
        #expect(configurations.last?["entities"] as? [String] == ["Shelf"])
    }

    @Test("the text listing shows entities with their properties, templates and configurations")
    func textListing() throws {
        let model = try ModelFixtures.catalog(in: folder.url)
        let output = try ObjectGraphTool.succeed(["model", model.path])
        #expect(output.contains("entity Item (abstract)"))
        #expect(output.contains("entity Book : Item"))
        #expect(output.contains("entity Ebook : Book"))
        #expect(output.contains("Integer 32"))
        #expect(output.contains("→ [Item] ordered"))
        #expect(output.contains("LongBooks: Book where pages > 300"))
        #expect(output.contains("Furniture: Shelf"))
    }

    @Test("the app's model lists its current version")
    func peopleModel() throws {
        let output = try ObjectGraphTool.succeed(["model", ModelFixtures.people.path, "--json"])
        let listing = try #require(try jsonObject(output) as? [String: Any])
        let names = (listing["entities"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        #expect(names.contains("Person"))
    }

    @Test("a missing or malformed model is an error on stderr with a non-zero status")
    func badModel() throws {
        let missing = try ObjectGraphTool.run(["model", folder.file("Nope.xcdatamodeld").path])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("Nope.xcdatamodeld"))
        #expect(missing.standardOutput.isEmpty)

        let broken = try ModelFixtures.write("<model><entity name=\"A\">", named: "Broken", in: folder.url)
        let result = try ObjectGraphTool.run(["model", broken.path])
        #expect(result.status != 0)
        #expect(result.standardError.contains("Broken"), "stderr: \(result.standardError)")
    }

    @Test("every command has --help")
    func help() throws {
        for command in ["model", "import", "query", "store-info", "codegen"] {
            let output = try ObjectGraphTool.succeed([command, "--help"])
            #expect(output.contains("USAGE: objectgraph \(command)"), "\(command) --help:\n\(output)")
        }
        #expect(try ObjectGraphTool.succeed(["--help"]).contains("store-info"))
    }
}
