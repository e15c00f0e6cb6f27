import Foundation
import Testing
@testable import ObjectGraph

/// The fast paths of inserting and setting values must give exactly the answers of the slow paths they
/// stand in for: property lookups by name, and the pending-change notes of inserted objects.
@Suite struct InsertFastPathTests {
    /// Names that share prefixes, lengths, last bytes and hash buckets; composed and decomposed spellings
    /// (equal as Swift strings, different as bytes); small and heap-allocated strings; and the empty name.
    static let trickyNames: [String] = {
        var names = ["a", "ab", "abc", "ba", "b", "", "name", "nam", "namE", "names", "café", "cafe\u{301}",
            "aVeryLongAttributeNameBeyondFifteenBytes", "aVeryLongAttributeNameBeyondFifteenByteZ", "東京", "x"]
        for index in 0..<120 { names.append("x\(index)") }
        return names
    }()

    static func trickyEntity() -> EntityDescription {
        EntityDescription(name: "Tricky", attributes: trickyNames.map { AttributeDescription(name: $0, type: .string) })
    }

    /// What `[String: Int]` built from the names answers: the first attribute whose name is `==` to the key.
    static func reference(_ entity: EntityDescription, _ name: String) -> Int? {
        entity.attributes.firstIndex { $0.name == name }
    }

    static func probes(for names: [String]) -> [String] {
        var probes = names
        for name in names {
            probes.append(String(name.dropLast()))
            probes.append(name + "!")
            probes.append(name.uppercased())
            probes.append(String(decoding: Array(name.utf8) + [0], as: UTF8.self))
            probes.append(name.decomposedStringWithCanonicalMapping)
            probes.append(name.precomposedStringWithCanonicalMapping)
        }
        return probes + ["unknown", "zzzzzzzzzzzzzzzzzzzzzzzzzz", "x120", "x-1", "\u{0}"]
    }

    @Test func lookupsByNameMatchTheDictionaryForEveryAttributeOfEveryModel() throws {
        let entities = [Self.trickyEntity()] + (try TestModels.model()).entities
        for entity in entities {
            for probe in Self.probes(for: entity.attributes.map(\.name)) {
                let expected = Self.reference(entity, probe)
                #expect(entity.attributeIndex(named: probe) == expected, "\(entity.name): '\(probe)'")
                #expect(entity.attribute(named: probe)?.name == expected.map { entity.attributes[$0].name })
            }
        }
    }

    @Test func composedAndDecomposedSpellingsFindTheSameAttribute() {
        let entity = Self.trickyEntity()
        let composed = entity.attributeIndex(named: "caf\u{E9}")
        #expect(composed != nil)
        #expect(entity.attributeIndex(named: "cafe\u{301}") == composed)  // `String ==` equates them
        #expect(composed == Self.reference(entity, "caf\u{E9}"))
    }

    @Test func theByteTableAgreesWithItsDictionaryOnRandomNames() {
        var random = SeededRandom(seed: 42)
        for _ in 0..<50 {
            var positions: [String: Int] = [:]
            for index in 0..<Int(random.next() % 60) {
                let length = Int(random.next() % 12)
                let name = String((0..<length).map { _ in Character(UnicodeScalar(UInt8(97 + random.next() % 4))) })
                if positions[name] == nil { positions[name] = index }
            }
            let table = PropertyNameTable(positions)
            for (name, position) in positions { #expect(table.position(ofExactly: name) == position) }
            for _ in 0..<40 {
                let length = Int(random.next() % 12)
                let probe = String((0..<length).map { _ in Character(UnicodeScalar(UInt8(97 + random.next() % 5))) })
                #expect(table.position(ofExactly: probe) == positions[probe])
            }
        }
    }

    @Test func unknownKeysGiveTheSameTypedErrorAsBefore() throws {
        let stack = try TestStack()
        let context = stack.context()
        try context.performAndWait {
            let person = try context.insertNewObject(forEntityName: "Person")
            for key in ["nickname", "firstNam", "firstName!", ""] {
                #expect(person.value(forKey: key) == .null)
                #expect(throws: ValidationFailure.self) { try person.validateValue(.string("x"), forKey: key) }
                do throws(ValidationFailure) {
                    try person.validateValue(.string("x"), forKey: key)
                } catch {
                    #expect(error.key == key)
                    #expect(error.reason == "entity Person has no such attribute")
                }
            }
            person.setValue(.string("Ada"), forKey: "firstName")
            #expect(person.value(forKey: "firstName") == .string("Ada"))
        }
    }

    @Test func changesToAnInsertedObjectAreReportedAsUpdatesOnlyAfterItsInsertionWasReported() throws {
        let stack = try TestStack()
        let context = stack.context()
        var reports: [(inserted: Int, updated: Int, deleted: Int)] = []
        let token = context.addObjectsDidChangeObserver { change in
            reports.append((change.insertedObjects.count, change.updatedObjects.count, change.deletedObjects.count))
        }
        try context.performAndWait {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue(.string("Ada"), forKey: "firstName")  // still just inserted
            context.processPendingChanges()
            person.setValue(.string("Lovelace"), forKey: "lastName")  // now an update of an inserted object
            context.processPendingChanges()
            person.setValue(.string("Byron"), forKey: "lastName")
            context.delete(person)  // inserted, updated, then deleted before anyone is told
            context.processPendingChanges()

            let other = try context.insertNewObject(forEntityName: "Person")
            context.delete(other)  // inserted and deleted within one event: not reported at all
            other.setValue(.string("Gone"), forKey: "firstName")
            context.processPendingChanges()
        }
        withExtendedLifetime(token) {}
        #expect(reports.count == 3)
        #expect(reports.first.map { [$0.inserted, $0.updated, $0.deleted] } == [1, 0, 0])
        #expect(reports.dropFirst().first.map { [$0.inserted, $0.updated, $0.deleted] } == [0, 1, 0])
        #expect(reports.last.map { [$0.inserted, $0.updated, $0.deleted] } == [0, 0, 1])
    }
}
