import Foundation
import SQLiteStorage
import Testing
import TestSupport
@testable import ObjectGraph

/// `@count` and `@sum` over many-to-many relationships (and one without an inverse): kept by triggers on the join
/// table, checked after every step of random edits, saves, batch updates and deletes against the counts and sums
/// the object graph itself gives.
@Suite struct ManyToManyDerivedAttributeTests {
    static let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Article" representedClassName="Article">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="tagsCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="tags.@count"/>
                <attribute name="tagWeight" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="tags.@sum.weight"/>
                <attribute name="pinnedCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pinned.@count"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="articles" inverseEntity="Tag"/>
                <relationship name="pinned" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag"/>
            </entity>
            <entity name="Tag" representedClassName="Tag">
                <attribute name="weight" optional="YES" attributeType="Integer 64" defaultValueString="1"/>
                <attribute name="articlesCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="articles.@count"/>
                <relationship name="articles" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Article" inverseName="tags" inverseEntity="Article"/>
            </entity>
        </model>
        """

    static func open(_ url: URL) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let model = try ManagedObjectModel.load(xml: Data(xml.utf8), source: "ManyToManyDerived")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
        return (coordinator, MigrationFixtures.context(coordinator))
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func countsAndSumsFollowEveryEdit(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let directory = TemporaryDirectory()
        let url = directory.file("tags.sqlite")
        let (coordinator, context) = try Self.open(url)
        for step in 0..<25 {
            let batch = Int.random(in: 0..<6, using: &random)
            if batch == 0 {
                // Another write path: a batch update of the summed attribute.
                _ = try coordinator.execute(BatchUpdateRequest(entityName: "Tag",
                    predicate: try FetchPredicate(format: "weight < 3"), propertiesToUpdate: ["weight": .integer(3)]))
            } else if batch == 1 {
                _ = try coordinator.execute(BatchDeleteRequest(entityName: "Tag", predicate: try FetchPredicate(format: "weight == 5")))
            } else {
                try context.performAndWait {
                    try Self.edit(context, &random)
                    try context.save()
                }
            }
            // (Batch requests bypass the context, as Core Data's do: it reads the rows again.)
            if batch < 2 { context.performAndWait { context.reset() } }
            try Self.check(url, step: "seed \(seed), step \(step)")
        }
    }

    /// A few random changes: new articles and tags, tags added to and removed from articles, pins, deletions.
    static func edit(_ context: ManagedObjectContext, _ random: inout SeededRandom) throws {
        var articles = try context.fetch(FetchRequest<ManagedObject>(entityName: "Article"))
        var tags = try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag"))
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            switch Int.random(in: 0..<7, using: &random) {
            case 0:
                let article = try context.insertNewObject(forEntityName: "Article")
                article["title"] = "a\(articles.count)"
                articles.append(article)
            case 1:
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag["weight"] = Int64.random(in: 1...6, using: &random)
                tags.append(tag)
            case 2, 3:
                guard let article = articles.randomElement(using: &random), let tag = tags.randomElement(using: &random) else { continue }
                article.addRelatedObject(tag, forKey: "tags")
            case 4:
                guard let article = articles.randomElement(using: &random),
                    let tag = article.relatedObjects(forKey: "tags").randomElement(using: &random)
                else { continue }
                article.removeRelatedObject(tag, forKey: "tags")
            case 5:
                guard let article = articles.randomElement(using: &random), let tag = tags.randomElement(using: &random) else { continue }
                article.addRelatedObject(tag, forKey: "pinned")
            default:
                guard let tag = tags.randomElement(using: &random) else { continue }
                if Bool.random(using: &random) {
                    tag["weight"] = Int64.random(in: 1...6, using: &random)
                } else {
                    context.delete(tag)
                    tags.removeAll { $0 === tag }
                }
            }
        }
    }

    /// The stored derived values against the graph as a fresh context reads it.
    static func check(_ url: URL, step: String) throws {
        let (_, fresh) = try open(url)
        try fresh.performAndWait {
            for article in try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Article")) {
                let tags = article.relatedObjects(forKey: "tags")
                #expect(article["tagsCount"] as Int64? == Int64(tags.count), "\(step): tagsCount")
                #expect(article["tagWeight"] as Int64? == tags.reduce(0) { $0 + ($1["weight"] as Int64? ?? 0) }, "\(step): tagWeight")
                #expect(article["pinnedCount"] as Int64? == Int64(article.relatedObjects(forKey: "pinned").count),
                    "\(step): pinnedCount")
            }
            for tag in try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Tag")) {
                #expect(tag["articlesCount"] as Int64? == Int64(tag.relatedObjects(forKey: "articles").count),
                    "\(step): articlesCount")
            }
        }
    }
}
