import Foundation
import Testing

@testable import SQLiteStorage

@Suite struct FunctionTests {
    private static func fold(_ arguments: [SQLiteValue]) -> SQLiteValue {
        guard case .text(let s) = arguments[0] else { return arguments[0] }
        return .text(s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
    }

    @Test func swiftFunctionOrdersRows() throws {
        let db = try SQLiteConnection.inMemory()
        try db.registerFunction(name: "fold", argumentCount: 1, deterministic: true, innocuous: true, Self.fold)
        try db.execute("CREATE TABLE people(name TEXT)")
        let insert = try db.cachedStatement("INSERT INTO people VALUES (?)")
        for name in ["zebra", "Émile", "apple", "Ångström", "eve", "Zoë", "Adam", "émilie"] {
            try insert.run([.text(name)])
        }
        let ordered = try db.rows("SELECT name FROM people ORDER BY fold(name), name").map { $0[0] }
        #expect(ordered == ["Adam", "Ångström", "apple", "Émile", "émilie", "eve", "zebra", "Zoë"])
        // Binary order, for contrast, puts uppercase and accented letters elsewhere.
        let binary = try db.rows("SELECT name FROM people ORDER BY name").map { $0[0] }
        #expect(binary != ordered)
        #expect(try db.scalar("SELECT fold(?)", ["ÉCOLE"]) == .text("ecole"))
        #expect(try db.scalar("SELECT fold(NULL)") == .null)
    }

    @Test func onlyDeterministicFunctionsMayBeIndexed() throws {
        let db = try SQLiteConnection.inMemory()
        try db.registerFunction(name: "fold", argumentCount: 1, deterministic: true, Self.fold)
        try db.registerFunction(name: "unstable", argumentCount: 1, deterministic: false, Self.fold)
        try db.execute("CREATE TABLE people(name TEXT)")
        try db.execute("CREATE INDEX people_fold ON people(fold(name))")
        let error = try #require(throws: SQLiteError.self) {
            try db.execute("CREATE INDEX people_unstable ON people(unstable(name))")
        }
        #expect(error.message.contains("non-deterministic"))
    }

    @Test func argumentsArriveInTheirStorageClasses() throws {
        let db = try SQLiteConnection.inMemory()
        try db.registerFunction(name: "kinds", argumentCount: -1, deterministic: true) { arguments in
            .text(arguments.map { value in
                switch value {
                case .null: "null"
                case .integer: "integer"
                case .real: "real"
                case .text(let s): "text(\(s.utf8.count))"
                case .blob(let b): "blob(\(b.count))"
                }
            }.joined(separator: ","))
        }
        let result = try db.scalar("SELECT kinds(NULL, 1, 2.5, ?, ?, x'00ff', '')", [.text("a\0b"), .blob([])])
        #expect(result == .text("null,integer,real,text(3),blob(0),blob(2),text(0)"))
        #expect(try db.scalar("SELECT kinds()") == .text(""))
    }

    @Test func wrongArgumentCountIsAnError() throws {
        let db = try SQLiteConnection.inMemory()
        try db.registerFunction(name: "one", argumentCount: 1, deterministic: true) { $0[0] }
        let error = try #require(throws: SQLiteError.self) { try db.scalar("SELECT one(1, 2)") }
        #expect(error.message.contains("wrong number of arguments"))
    }

    @Test func nanResultBecomesNull() throws {
        let db = try SQLiteConnection.inMemory()
        try db.registerFunction(name: "nan", argumentCount: 0, deterministic: true) { _ in .real(.nan) }
        #expect(try db.scalar("SELECT nan()") == .null)
    }

    @Test func reRegisteringReplacesTheFunctionAndReleasesTheOld() throws {
        final class Token: Sendable {}
        weak var weakToken: Token?
        let db = try SQLiteConnection.inMemory()
        do {
            let token = Token()
            weakToken = token
            try db.registerFunction(name: "f", argumentCount: 0, deterministic: true) { _ in
                withExtendedLifetime(token) { .integer(1) }
            }
        }
        #expect(weakToken != nil)
        #expect(try db.scalar("SELECT f()") == .integer(1))
        try db.registerFunction(name: "f", argumentCount: 0, deterministic: true) { _ in .integer(2) }
        #expect(try db.scalar("SELECT f()") == .integer(2))
        #expect(weakToken == nil)
    }
}
