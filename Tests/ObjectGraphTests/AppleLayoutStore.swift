import Foundation
import SQLiteStorage
import Testing
@testable import ObjectGraph

/// A store laid out as Apple's Core Data writes one, built statement by statement from what
/// `apple-file-formats.md` and `coredata-behaviour.md` §7 record about real Apple-written files (no Apple file
/// is copied): DELETE journal mode, `auto_vacuum` 2, Core Data's DDL (with its spaces), Apple's index names
/// and only Apple's indexes, the derived-attribute triggers of `Book.pagesCount = pages.@count`, a `Z_METADATA`
/// plist from framework version 1344 with hashes ObjectGraph does not compute, a digest, a checksum,
/// `_NSAutoVacuumLevel` "2" and an app key, and a `Z_MODELCACHE` row.
///
/// Model: Author(1) ⟷ Book(2) many-to-many (`Z_1BOOKS`), Ebook(3) a sub-entity of Book, Page(4) → Book
/// (with `Z2_BOOK`, Book being in a hierarchy), Publisher(5) ⟶ Books one-to-many.
enum AppleLayoutStore {
    static let frameworkVersion = 1344

    /// The model's source, as Xcode writes it.
    static func modelXML(bookExtra: String = "", pageNumberType: String = "Integer 32", ebookParent: String = "Book",
        ebookAttributes: String = #"<attribute name="fileSize" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>"#,
        pagesOrdered: Bool = false, authorBooksOrdered: Bool = false) -> String
    {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" \
        systemVersion="23D60" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Author" representedClassName="Author" syncable="YES">
                <attribute name="firstName" optional="YES" attributeType="String"/>
                <attribute name="lastName" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" \(authorBooksOrdered ? "ordered=\"YES\" " : "")\
        deletionRule="Nullify" destinationEntity="Book" inverseName="authors" inverseEntity="Book"/>
            </entity>
            <entity name="Book" representedClassName="Book" syncable="YES">
                <attribute name="bookID" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="pagesCount" optional="YES" attributeType="Integer 64" derived="YES" \
        derivationExpression="pages.@count" usesScalarValueType="YES"/>
                <attribute name="published" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                \(bookExtra)
                <relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Author" \
        inverseName="books" inverseEntity="Author"/>
                <relationship name="pages" optional="YES" toMany="YES" \(pagesOrdered ? "ordered=\"YES\" " : "")\
        deletionRule="Cascade" destinationEntity="Page" \
        inverseName="book" inverseEntity="Page"/>
                <relationship name="publisher" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Publisher" \
        inverseName="books" inverseEntity="Publisher"/>
                <fetchIndex name="byTitle">
                    <fetchIndexElement property="title" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            <entity name="Ebook" representedClassName="Ebook" \(ebookParent.isEmpty ? "" : "parentEntity=\"\(ebookParent)\" ")syncable="YES">
                \(ebookAttributes)
            </entity>
            <entity name="Page" representedClassName="Page" syncable="YES">
                <attribute name="number" optional="YES" attributeType="\(pageNumberType)" usesScalarValueType="YES"/>
                <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" \
        inverseName="pages" inverseEntity="Book"/>
            </entity>
            <entity name="Publisher" representedClassName="Publisher" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" \
        inverseName="publisher" inverseEntity="Book"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="name"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
        </model>
        """
    }

    static func model(bookExtra: String = "", pageNumberType: String = "Integer 32", ebookParent: String = "Book")
        throws -> ManagedObjectModel
    {
        try ManagedObjectModel.load(xml: Data(modelXML(bookExtra: bookExtra, pageNumberType: pageNumberType,
            ebookParent: ebookParent).utf8), source: "AppleLayout.xcdatamodel")
    }

    static let storeUUID = "5B1F0F4E-2C3D-4A59-9D3A-1E2F3A4B5C6D"
    static let bookID = UUID(uuidString: "0C8F2D1E-6A4B-4F3C-9E2D-7B6A5C4D3E2F")!
    /// 2023-11-14 22:13:20 UTC, as seconds since 2001-01-01.
    static let published = 721_692_800.0

    /// Stand-ins for Apple's 32-byte entity hashes: fixed bytes no ObjectGraph model hashes to.
    static var entityHashes: [String: Data] {
        Dictionary(uniqueKeysWithValues: ["Author", "Book", "Ebook", "Page", "Publisher"].enumerated().map { index, name in
            (name, Data((0..<32).map { UInt8(truncatingIfNeeded: $0 * 7 + index * 31 + 1) }))
        })
    }

    /// The `Z_METADATA` property list, with the keys and value types Core Data 1344 writes.
    static func metadataPlist() throws -> Data {
        let plist: [String: Any] = [
            "NSStoreType": "SQLite",
            "NSPersistenceFrameworkVersion": frameworkVersion,
            "NSStoreModelVersionHashes": entityHashes,
            "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionIdentifiers": [""],
            "NSStoreModelVersionHashesDigest": Data((0..<64).map { UInt8($0 * 3 % 256) }).base64EncodedString(),
            "NSStoreModelVersionChecksumKey": Data((0..<32).map { UInt8(255 - $0) }).base64EncodedString(),
            "_NSAutoVacuumLevel": "2",
            "lastSyncToken": "token-41",
        ]
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    /// Opaque bytes standing in for the raw-DEFLATE keyed archive Core Data keeps in `Z_MODELCACHE`.
    static let modelCache: [UInt8] = (0..<300).map { UInt8(($0 * 13 + 5) % 256) }

    /// Writes the store at `url`. With `callsCoreDataFunctions`, the derived-attribute triggers call
    /// `NSCoreDataDATrigger…` functions as Apple's do; without, they only keep the count.
    static func write(to url: URL, callsCoreDataFunctions: Bool = false) throws {
        let connection = try SQLiteConnection(path: url.path, mode: .readWrite)
        defer { connection.close() }
        try connection.execute("PRAGMA auto_vacuum = 2")
        _ = try connection.scalar("PRAGMA journal_mode = DELETE")
        for statement in schema { try connection.execute(statement) }
        try connection.transaction(.immediate) {
            try connection.prepare("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
                .run([.text(storeUUID), .blob([UInt8](try metadataPlist()))])
            try connection.prepare("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)").run([.blob(modelCache)])
            for row in [(1, "Author", 0, 2), (2, "Book", 0, 2), (3, "Ebook", 2, 0), (4, "Page", 0, 3), (5, "Publisher", 0, 1)] {
                try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)")
                    .run([.integer(Int64(row.0)), .text(row.1), .integer(Int64(row.2)), .integer(Int64(row.3))])
            }
            try connection.execute("INSERT INTO ZPUBLISHER (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 5, 1, 'Acme')")
            try connection.execute(
                "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZFIRSTNAME, ZLASTNAME) VALUES (1, 1, 1, 'Ada', 'Lovelace'), "
                    + "(2, 1, 2, 'Grace', 'Hopper')")
            try connection.prepare(
                "INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZPAGESCOUNT, ZPUBLISHER, ZFILESIZE, ZPUBLISHED, ZTITLE, ZBOOKID) "
                    + "VALUES (1, 2, 3, 2, 1, NULL, ?, 'Notes', ?), (2, 3, 1, 1, 1, 2048, NULL, 'Compilers', NULL)")
                .run([.real(published), .blob(Array(withUnsafeBytes(of: bookID.uuid) { Data($0) }))])
            try connection.execute(
                "INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZBOOK, Z2_BOOK) VALUES (1, 4, 1, 1, 1, 2), "
                    + "(2, 4, 1, 2, 1, 2), (3, 4, 1, 1, 2, 3)")
            try connection.execute("INSERT INTO Z_1BOOKS (Z_1AUTHORS, Z_2BOOKS) VALUES (1, 1), (2, 1), (2, 2)")
        }
        // Last, as the rows above already hold their counts (and this connection has no Core Data functions).
        for statement in triggers(callsCoreDataFunctions: callsCoreDataFunctions) { try connection.execute(statement) }
    }

    /// Tables and indexes as Core Data writes them for the model (only hierarchy roots get a `Z_ENT` index).
    static let schema = [
        "CREATE TABLE ZAUTHOR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFIRSTNAME VARCHAR, ZLASTNAME VARCHAR )",
        "CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPAGESCOUNT INTEGER, "
            + "ZPUBLISHER INTEGER, ZFILESIZE INTEGER, ZPUBLISHED TIMESTAMP, ZTITLE VARCHAR, ZBOOKID BLOB )",
        "CREATE TABLE Z_1BOOKS ( Z_1AUTHORS INTEGER, Z_2BOOKS INTEGER, PRIMARY KEY (Z_1AUTHORS, Z_2BOOKS) )",
        "CREATE TABLE ZPAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNUMBER INTEGER, ZBOOK INTEGER, Z2_BOOK INTEGER )",
        "CREATE TABLE ZPUBLISHER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
        "CREATE INDEX ZBOOK_ZPUBLISHER_INDEX ON ZBOOK (ZPUBLISHER)",
        "CREATE INDEX ZBOOK_Z_ENT_INDEX ON ZBOOK (Z_ENT)",
        "CREATE INDEX Z_Book_byTitle ON ZBOOK (ZTITLE COLLATE BINARY ASC)",
        "CREATE INDEX Z_1BOOKS_Z_2BOOKS_INDEX ON Z_1BOOKS (Z_2BOOKS, Z_1AUTHORS)",
        "CREATE INDEX ZPAGE_ZBOOK_INDEX ON ZPAGE (ZBOOK)",
        "CREATE UNIQUE INDEX Z_Publisher_UNIQUE_name ON ZPUBLISHER (ZNAME COLLATE BINARY ASC)",
    ]

    /// The derived-attribute triggers of `Book.pagesCount = pages.@count`, named and shaped as Core Data's.
    static func triggers(callsCoreDataFunctions: Bool) -> [String] {
        func report(_ function: String, _ key: String) -> String {
            callsCoreDataFunctions
                ? " SELECT \(function)('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT) FROM ZBOOK WHERE Z_PK = \(key);" : ""
        }
        let updated = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
        return [
            "CREATE TRIGGER IF NOT EXISTS Z_DA_ZPAGE_Book_pagesCount_PARAMETER_INSERT AFTER INSERT ON ZPAGE FOR EACH ROW "
                + "WHEN (NEW.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = IFNULL(ZPAGESCOUNT, 0) + 1 "
                + "WHERE Z_PK = NEW.ZBOOK;\(report(updated, "NEW.ZBOOK")) END",
            "CREATE TRIGGER IF NOT EXISTS Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_INCREMENT AFTER UPDATE OF ZBOOK ON "
                + "ZPAGE FOR EACH ROW WHEN (NEW.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = "
                + "IFNULL(ZPAGESCOUNT, 0) + 1 WHERE Z_PK = NEW.ZBOOK;\(report(updated, "NEW.ZBOOK")) END",
            "CREATE TRIGGER IF NOT EXISTS Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_DECREMENT AFTER UPDATE OF ZBOOK ON "
                + "ZPAGE FOR EACH ROW WHEN (OLD.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = "
                + "IFNULL(ZPAGESCOUNT, 0) - 1 WHERE Z_PK = OLD.ZBOOK;\(report(updated, "OLD.ZBOOK")) END",
            "CREATE TRIGGER IF NOT EXISTS Z_DA_ZPAGE_Book_pagesCount_PARAMETER_DELETE AFTER DELETE ON ZPAGE FOR EACH ROW "
                + "WHEN (OLD.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = IFNULL(ZPAGESCOUNT, 0) - 1 "
                + "WHERE Z_PK = OLD.ZBOOK;\(report(updated, "OLD.ZBOOK")) END",
            "CREATE TRIGGER IF NOT EXISTS Z_DA_ZBOOK_Book_pagesCount_SOURCE_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW "
                + "BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = (SELECT COUNT(Z_PK) FROM ZPAGE WHERE ZBOOK = NEW.Z_PK) "
                + "WHERE Z_PK = NEW.Z_PK;\(report("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", "NEW.Z_PK")) END",
        ]
    }

    /// What must not change: journal mode, every schema object's SQL, `Z_METADATA`, `Z_MODELCACHE`.
    struct Snapshot: Equatable {
        var journalMode: String
        var schema: [String]
        var uuid: String
        var plist: [UInt8]
        var modelCache: [UInt8]

        init(_ url: URL) throws {
            let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
            defer { connection.close() }
            guard case .text(let mode) = try connection.pragma("journal_mode") else { throw Failure("no journal mode") }
            journalMode = mode.lowercased()
            schema = try connection.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map {
                $0.map { value in if case .text(let text) = value { text } else { "NULL" } }.joined(separator: " | ")
            }
            guard let row = try connection.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA").first,
                case .text(let uuid) = row[0], case .blob(let plist) = row[1],
                case .blob(let cache)? = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE")
            else { throw Failure("no metadata or model cache") }
            self.uuid = uuid
            self.plist = plist
            modelCache = cache
        }
    }

    /// The decoded `Z_METADATA` plist of the store at `url`.
    static func plist(_ url: URL) throws -> [String: Any] {
        let bytes = try Snapshot(url).plist
        guard let dictionary = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any]
        else { throw Failure("the plist is not a dictionary") }
        return dictionary
    }

    /// A test helper's own error.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
