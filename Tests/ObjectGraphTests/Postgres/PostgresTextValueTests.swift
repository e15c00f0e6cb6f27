import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Strings PostgreSQL's text cannot hold (U+0000) are refused whole, never cut short on the server.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresTextValueTests {
    @Test func aStringWithNULIsRefusedAndNothingIsSaved() throws {
        let database = try PostgresTestDatabase()
        let model = try PostgresStoreTests.valuesModel()
        let context = PostgresStoreTests.context(try database.coordinator(model: model))
        try context.performAndWait {
            let plain = try context.insertNewObject(forEntityName: "Item")
            plain.setValue(.string("plain"), forKey: "text")
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue(.string("a\u{0}b"), forKey: "text")
            do {
                try context.save()
                Issue.record("a string with U+0000 was saved")
            } catch let error as ObjectGraphError {
                guard case .invalidRequest(let entity, let reason) = error else { throw error }
                #expect(entity == "Item")
                #expect(reason.contains("text") && reason.contains("U+0000"), "\(reason)")
            }
            // The context keeps both objects; the server holds neither.
            #expect(context.insertedObjects.count == 2)
            #expect(try database.connection().execute(#"SELECT count(*) FROM "ZITEM""#).first?[0] == "0")
            // Once the value is one PostgreSQL can hold, the save goes through, whole.
            item.setValue(.string("ab"), forKey: "text")
            try context.save()
        }
        let reader = PostgresStoreTests.context(try database.coordinator(model: model))
        let texts = try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "text").stringValue }
        }
        #expect(texts.sorted() == ["ab", "plain"])
    }
}
