import Foundation
import SQLiteStorage
import Testing

@testable import ObjectGraph

/// A fetch decodes each column straight from SQLite by the attribute's declared type. SQLite is dynamically
/// typed, so a column may hold NULL or a value of another storage class (a store edited with plain SQL): the
/// fetch must decode every such value exactly as the general path does, `AttributeValue(sqliteValue:type:)`
/// over the column's `SQLiteValue`.
@Suite struct ColumnDecodingTests {
    /// One attribute of every stored type, and a transient one (which has no column).
    static let attributes: [(name: String, type: AttributeType)] = [
        ("i16", .integer16), ("i32", .integer32), ("i64", .integer64), ("dec", .decimal), ("dbl", .double),
        ("flt", .float), ("str", .string), ("flag", .boolean), ("when", .date), ("bytes", .binary),
        ("ident", .uuid), ("link", .uri), ("blob", .transformable),
    ]

    /// Rows written with plain SQL: column name → SQL literal (NULL when missing).
    static let rows: [[String: String]] = [
        // Every column NULL.
        [:],
        // The storage class each type is written with.
        ["ZI16": "7", "ZI32": "-8", "ZI64": "9000000000", "ZDEC": "19.99", "ZDBL": "2.5", "ZFLT": "0.25",
         "ZSTR": "'Zoë 東京'", "ZFLAG": "1", "ZWHEN": "123456.5", "ZBYTES": "X'00FF10'",
         "ZIDENT": "X'00112233445566778899AABBCCDDEEFF'", "ZLINK": "'https://example.org/a?b=c'",
         "ZBLOB": "X'0102'"],
        // Other storage classes (where the column's affinity keeps them: text that is no number, blobs).
        ["ZI16": "'twelve'", "ZI32": "3.0", "ZI64": "3.5", "ZDEC": "5", "ZDBL": "7", "ZFLT": "'x'", "ZSTR": "42",
         "ZFLAG": "2.5", "ZWHEN": "100", "ZBYTES": "'text'", "ZIDENT": "X'010203'", "ZLINK": "''",
         "ZBLOB": "1.5"],
        // Edges: empty text and blobs, NUL characters, invalid UTF-8, huge reals, booleans that are not 0/1.
        ["ZI16": "1e300", "ZI32": "-0.0", "ZI64": "X''", "ZDEC": "'abc'", "ZDBL": "'1.5'", "ZFLT": "X'00'",
         "ZSTR": "'a' || char(0) || 'b'", "ZFLAG": "-3", "ZWHEN": "'2020'", "ZBYTES": "zeroblob(0)",
         "ZIDENT": "'00112233-4455-6677-8899-AABBCCDDEEFF'", "ZLINK": "CAST(X'68FF' AS TEXT)",
         "ZBLOB": "''"],
        // Integers where reals and dates are declared; reals where integers and Booleans are.
        ["ZI16": "-4.0", "ZI32": "2147483648", "ZI64": "-9223372036854775808", "ZDEC": "0.1", "ZDBL": "-1",
         "ZFLT": "9007199254740993", "ZSTR": "X'C3A9'", "ZFLAG": "0.0", "ZWHEN": "-1.25", "ZBYTES": "0",
         "ZIDENT": "16", "ZLINK": "'not a url with spaces'", "ZBLOB": "'text'"],
    ]

    private func makeStore(_ directory: TemporaryDirectory) throws -> (PersistentStoreCoordinator, URL) {
        var attributes = Self.attributes.map { AttributeDescription(name: $0.name, type: $0.type) }
        attributes.append(AttributeDescription(name: "note", type: .string, isTransient: true))
        let model = try ManagedObjectModel(entities: [EntityDescription(name: "Sample", attributes: attributes)])
        let url = directory.file("columns.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, at: url)
        let entityNumber = try #require(model.entity(named: "Sample").map(model.entityNumber(of:)))
        let connection = try SQLiteConnection(path: url.path)
        for (offset, row) in Self.rows.enumerated() {
            let columns = Self.attributes.map { "Z" + $0.name.uppercased() }
            let values = columns.map { row[$0] ?? "NULL" }
            try connection.execute("INSERT INTO ZSAMPLE (Z_PK, Z_ENT, Z_OPT, \(columns.joined(separator: ", "))) "
                + "VALUES (\(offset + 1), \(entityNumber), 1, \(values.joined(separator: ", ")))")
        }
        connection.close()
        return (coordinator, url)
    }

    /// What the general path makes of every row: primary key → values in attribute order.
    private func generalValues(at url: URL) throws -> [Int64: [AttributeValue]] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        let columns = Self.attributes.map { "Z" + $0.name.uppercased() }
        let statement = try connection.prepare("SELECT Z_PK, \(columns.joined(separator: ", ")) FROM ZSAMPLE")
        var result: [Int64: [AttributeValue]] = [:]
        while try statement.step() {
            var values = Self.attributes.enumerated().map { offset, attribute in
                AttributeValue(sqliteValue: statement.value(at: Int32(offset + 1)), type: attribute.type)
            }
            values.append(.null)  // the transient attribute
            result[statement.int64(at: 0)] = values
        }
        return result
    }

    @Test(arguments: [false, true])
    func fetchedValuesMatchTheGeneralDecoding(asFaults: Bool) throws {
        let directory = TemporaryDirectory()
        let (coordinator, url) = try makeStore(directory)
        let expected = try generalValues(at: url)
        #expect(expected.count == Self.rows.count)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Sample")
            request.returnsObjectsAsFaults = asFaults
            let objects = try context.fetch(request)
            #expect(objects.count == Self.rows.count)
            for object in objects {
                let key = try #require(object.objectID.primaryKey)
                let general = try #require(expected[key])
                #expect(object.isFault == asFaults)
                #expect(object.storage == general, "row \(key)")
                for (index, attribute) in Self.attributes.enumerated() {
                    #expect(object.value(forKey: attribute.name) == general[index], "row \(key), \(attribute.name)")
                }
                #expect(object.value(forKey: "note") == .null)
            }
        }
    }

    @Test func theSampleRowsReachEveryStorageClassConversion() throws {
        // Guards the fixture: the rows above must keep exercising the conversions that differ by type.
        let directory = TemporaryDirectory()
        let (_, url) = try makeStore(directory)
        let values = try generalValues(at: url)
        #expect(values[1]?.allSatisfy { $0 == .null } == true)
        #expect(values[2]?[0] == .integer(7))
        #expect(values[2]?[3] == .decimal(Decimal(string: "19.99") ?? 0))
        #expect(values[2]?[7] == .boolean(true))
        #expect(values[2]?[10] == .uuid(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF") ?? UUID()))
        #expect(values[2]?[11] == .uri(URL(string: "https://example.org/a?b=c") ?? URL(fileURLWithPath: "/")))
        #expect(values[3]?[0] == .string("twelve"))
        #expect(values[3]?[1] == .integer(3))
        #expect(values[3]?[2] == .double(3.5))
        #expect(values[3]?[7] == .double(2.5))
        #expect(values[3]?[10] == .binary(Data([1, 2, 3])))
        #expect(values[4]?[6] == .string("a\0b"))
        #expect(values[4]?[9] == .binary(Data()))
        #expect(values[5]?[6] == .binary(Data([0xC3, 0xA9])))
    }
}
