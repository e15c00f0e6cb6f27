import Foundation
import ObjectGraph

/// The company and tags of generated people, and how importers attach them: a company for most people and
/// up to three tags, derived deterministically from each record (so `--seed` still fixes everything), with
/// companies and tags found or created once per batch — one fetch per entity, never one per person.
public enum GeneratedAffiliations {
    /// The companies generated people work for.
    public static let companies = [
        "Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "Wayne Enterprises", "Wonka",
        "Cyberdyne", "Soylent", "Tyrell", "Massive Dynamic", "Aperture", "Black Mesa", "Vandelay Industries",
        "Nakatomi", "Oscorp", "Gringotts", "Monarch", "Dunder Mifflin", "Kōbe Steelworks", "Ærø Ferries",
        "Łódź Textiles", "São Paulo Café", "東京ロボティクス", "Zürich Re", "Øresund Bridges", "Élan Vital",
    ]
    /// The tags generated people carry.
    public static let tags = [
        "swift", "sql", "design", "ops", "data", "mobile", "linux", "café", "über", "日本語", "remote", "mentor",
        "on-call", "volunteer", "chess", "cycling",
    ]

    /// The company and tags for a record: derived from its e-mail address (unique per generated person).
    public static func affiliations(for record: PersonRecord) -> (company: String?, tags: [String]) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in record.email.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let company = hash % 10 == 0 ? nil : companies[Int((hash >> 8) % UInt64(companies.count))]
        let count = Int((hash >> 20) % 4)
        var chosen: [String] = []
        for offset in 0..<count {
            let tag = tags[Int((hash >> (24 + 8 * UInt64(offset))) % UInt64(tags.count))]
            if !chosen.contains(tag) { chosen.append(tag) }
        }
        return (company, chosen)
    }

    /// Attaches companies and tags to freshly inserted `people` (paired with their `records`), finding existing
    /// ones by name and creating the missing ones, in `context`.
    public static func attach(_ people: [Person], records: [PersonRecord], in context: ManagedObjectContext) throws {
        let wanted = records.map(affiliations(for:))
        let companyNames = Array(Set(wanted.compactMap(\.company)))
        let tagNames = Array(Set(wanted.flatMap(\.tags)))
        var companiesByName = try existing(Company.self, entity: "Company", names: companyNames, in: context)
        var tagsByName = try existing(Tag.self, entity: "Tag", names: tagNames, in: context)
        for name in companyNames where companiesByName[name] == nil {
            let company = Company(context: context)
            company.name = name
            companiesByName[name] = company
        }
        for name in tagNames where tagsByName[name] == nil {
            let tag = Tag(context: context)
            tag.name = name
            tagsByName[name] = tag
        }
        for (person, affiliation) in zip(people, wanted) {
            person.company = affiliation.company.flatMap { companiesByName[$0] }
            for name in affiliation.tags { if let tag = tagsByName[name] { person.addToTags(tag) } }
        }
    }

    private static func existing<Object: ManagedObject>(
        _ type: Object.Type, entity: String, names: [String], in context: ManagedObjectContext
    ) throws -> [String: Object] {
        guard !names.isEmpty else { return [:] }
        let request = FetchRequest<Object>(entityName: entity, predicate: try FetchPredicate(format: "name IN %@", names))
        var result: [String: Object] = [:]
        for object in try context.fetch(request) {
            if let name = object.value(forKey: "name").stringValue { result[name] = object }
        }
        return result
    }
}
