import Foundation
import ObjectGraph
import Testing

@testable import People

/// Generated people's avatars: a few people get one, the large ones live in files beside the store, and the
/// detail view shows their size without reading them.
@Suite struct PeopleAvatarTests {
    @Test func avatarsAreDeterministicAndSomeAreLargerThanTheThreshold() throws {
        var generator = PersonGenerator(seed: 3)
        let records = generator.make(4_000)
        let sizes = records.compactMap(GeneratedAvatars.size(for:))
        #expect(sizes.count > 30 && sizes.count < 120, "about one in \(GeneratedAvatars.oneIn)")
        let withAvatar = try #require(records.first { GeneratedAvatars.size(for: $0) != nil })
        let avatar = try #require(GeneratedAvatars.avatar(for: withAvatar))
        #expect(avatar == GeneratedAvatars.avatar(for: withAvatar))
        #expect(avatar.starts(with: Data("P6\n".utf8)))
        let actual = records.compactMap(GeneratedAvatars.avatar(for:)).map(\.count)
        let threshold = PersistentStoreOptions().externalBinaryDataThreshold
        #expect(actual.contains { $0 >= threshold } && actual.contains { $0 < threshold })
    }

    @MainActor
    @Test func largeAvatarsOfAGeneratedImportLiveInFilesAndTheDetailViewShowsTheirSize() async throws {
        let store = TemporaryStore()
        let stack = try PeopleStack(storeURL: store.url)
        let outcome = try await HeadlessImport(stack: stack, source: .generated(count: 2_000, seed: 3, firstSerial: 1),
            batchSize: 250).run()
        #expect(outcome.progress.saved == 2_000 && !outcome.failed)

        var generator = PersonGenerator(seed: 3)
        let avatars = Dictionary(uniqueKeysWithValues: generator.make(2_000).compactMap { record in
            GeneratedAvatars.avatar(for: record).map { (record.email, $0) }
        })
        let threshold = PersistentStoreOptions().externalBinaryDataThreshold
        let large = avatars.values.filter { $0.count >= threshold }.count
        #expect(large > 0 && large < avatars.count)
        let folder = store.directory.appendingPathComponent(".people_SUPPORT/_EXTERNAL_DATA")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == large)

        // A context straight on the store (the view context may hold pushed bytes in the nested stacks).
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = stack.coordinator
        let people = try context.fetch(FetchRequest<Person>(entityName: "Person",
            predicate: try FetchPredicate(format: "avatar != nil")))
        #expect(people.count == avatars.count)
        let external = people.filter { $0.externalDataSize(forKey: "avatar") != nil }
        #expect(external.count == large)
        for person in people { #expect(person.avatar == avatars[person.email], "\(person.email)") }

        let person = try #require(external.first)
        let lines = PersonDetailView.lines(for: person, sectionMode: .lastNameInitial)
        let avatarLine = try #require(lines.first { $0.label == "Avatar" })
        #expect(avatarLine.value == PersonDetailView.dataSize(person.avatar?.count ?? 0) + " (external)")
        #expect(avatarLine.value.hasSuffix("KB (external)"))
        #expect(PersonDetailView.text(for: .binary(Data(count: 14_000))) == "14 KB")
        #expect(PersonDetailView.text(for: .binary(Data(count: 812))) == "812 bytes")
    }
}
