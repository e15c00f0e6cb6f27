import Foundation
import SQLiteStorage
import Testing

@testable import ObjectGraph

private func column(_ key: String) -> String? {
    ["name": "\"t0\".\"ZNAME\"", "age": "\"t0\".\"ZAGE\"", "nickname": "\"t0\".\"ZNICKNAME\""][key]
}

@Suite struct FetchPredicateSQLTests {
    @Test func simpleComparisonsUseTheColumnDirectly() throws {
        let (sql, bindings) = try FetchPredicate(format: "age > %d", 30).sqlExpression(columnForKey: column)
        #expect(sql == "(\"t0\".\"ZAGE\" > ? AND typeof(\"t0\".\"ZAGE\") IN ('integer', 'real', 'null'))")
        #expect(bindings == [.integer(30)])

        let equal = try FetchPredicate(format: "name == 'Zoë'").sqlExpression(columnForKey: column)
        #expect(equal.sql == "(\"t0\".\"ZNAME\" IS ? AND typeof(\"t0\".\"ZNAME\") IN ('text'))")
        #expect(equal.bindings == [.string("Zoë")])

        let null = try FetchPredicate(format: "name == nil").sqlExpression(columnForKey: column)
        #expect(null.sql == "\"t0\".\"ZNAME\" IS NULL")
        #expect(null.bindings.isEmpty)
    }

    @Test func foldedComparisonsBindTheFoldedValue() throws {
        let (sql, bindings) = try FetchPredicate(format: "name ==[cd] %@", "ZOË Ærø").sqlExpression(
            columnForKey: column)
        #expect(sql.contains("objectgraph_fold(\"t0\".\"ZNAME\") IS ?"))
        #expect(bindings == [.string("zoe aero")])
        let lower = try FetchPredicate(format: "name BEGINSWITH[c] %@", "ZOË").sqlExpression(columnForKey: column)
        #expect(lower.sql.contains("objectgraph_affix(\"t0\".\"ZNAME\", ?, 4)"))
        #expect(lower.bindings == [.string("zoë")])
        let unaccent = try FetchPredicate(format: "name ENDSWITH[d] %@", "Ë").sqlExpression(columnForKey: column)
        #expect(unaccent.sql.contains("objectgraph_affix(\"t0\".\"ZNAME\", ?, 10)"))
        #expect(unaccent.bindings.allSatisfy { $0 == .string("E") })
    }

    @Test func stringOperatorsNeverUseSQLLike() throws {
        for format in [
            "name BEGINSWITH 'a'", "name ENDSWITH 'a'", "name CONTAINS 'a'", "name LIKE 'a*'", "name MATCHES 'a.*'",
            "name CONTAINS[cd] 'a'", "'a' IN name", "name CONTAINS[c] 'Ë'", "name CONTAINS[cd] nickname",
            "'abc' CONTAINS[c] name",
        ] {
            let (sql, _) = try FetchPredicate(format: format).sqlExpression(columnForKey: column)
            #expect(!sql.uppercased().contains(" LIKE "), "\(format): \(sql)")
            #expect(!sql.uppercased().contains(" GLOB "), "\(format): \(sql)")
        }
    }

    @Test func foldedAffixesWithAConstantAreOneFunctionCall() throws {
        let (sql, bindings) = try FetchPredicate(format: "name CONTAINS[cd] %@", "ÉR_%").sqlExpression(
            columnForKey: column)
        #expect(sql == "(objectgraph_affix(\"t0\".\"ZNAME\", ?, 13) AND typeof(\"t0\".\"ZNAME\") IN ('text', 'null'))")
        #expect(bindings == [.string("er_%")])
        let prefix = try FetchPredicate(format: "name BEGINSWITH[c] 'Ë'").sqlExpression(columnForKey: column)
        #expect(prefix.sql.contains("objectgraph_affix(\"t0\".\"ZNAME\", ?, 4)"), "\(prefix.sql)")
        #expect(prefix.bindings == [.string("ë")])
        let suffix = try FetchPredicate(format: "name ENDSWITH[d] 'Ë'").sqlExpression(columnForKey: column)
        #expect(suffix.sql.contains("objectgraph_affix(\"t0\".\"ZNAME\", ?, 10)"), "\(suffix.sql)")
        #expect(suffix.bindings == [.string("E")])
        // Without folding, or against another column, the general form stays.
        let plain = try FetchPredicate(format: "name CONTAINS 'a'").sqlExpression(columnForKey: column)
        #expect(plain.sql.contains("instr("), "\(plain.sql)")
        let columns = try FetchPredicate(format: "name CONTAINS[c] nickname").sqlExpression(columnForKey: column)
        #expect(!columns.sql.contains("objectgraph_affix"), "\(columns.sql)")
    }

    /// Values no Swift string can hold — bytes that are not UTF-8, NULs — written with plain SQL: the affix
    /// function must answer for each of them what searching the folding function's output answers.
    @Test func affixFunctionAgreesWithFoldingOnRawBytes() throws {
        let connection = try SQLiteConnection.inMemory()
        try PredicateSQLFunctions.register(on: connection)
        try connection.execute("CREATE TABLE ZPERSON (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR)")
        let hexValues = [
            "61C362", "C3", "45C352", "4552C3", "C34552", "80", "4580", "45805200", "450052", "4552", "455200",
            "5A6FC3AB", "6572C3A9", "25", "5F", "5C", "31303025", "755F73", "615C62", "", "E282AC4552", "F0", "FF4552",
            "C389522020", "65CC8152",
        ]
        for (offset, hex) in hexValues.enumerated() {
            try connection.execute("INSERT INTO ZPERSON VALUES (\(offset + 1), CAST(x'\(hex)' AS TEXT))")
        }
        let foldings: [(options: String, function: String, folding: FetchPredicate.TextMatching.Folding)] = [
            ("[c]", StringFolding.lowercaseFunctionName, .lowercase),
            ("[d]", PredicateSQLFunctions.unaccentFunctionName, .unaccent),
            ("[cd]", StringFolding.foldFunctionName, .fold),
        ]
        let needles = ["er", "ER", "e", "E", "%", "_", "\\", "100%", "u_s", "a\\b", "", "É", "ÉR", "\u{FFFD}"]
        var matched = 0
        for needle in needles {
            for operation in ["BEGINSWITH", "CONTAINS", "ENDSWITH"] {
                for (options, function, folding) in foldings {
                    let predicate = try FetchPredicate(format: "name \(operation)\(options) %@", needle)
                    let (sql, bindings) = try predicate.sqlExpression(columnForKey: { $0 == "name" ? "ZNAME" : nil })
                    #expect(sql.contains(PredicateSQLFunctions.affixFunctionName))
                    let answered = Set(
                        try connection.rows("SELECT Z_PK FROM ZPERSON WHERE \(sql)", bindings.map(\.sqliteValue))
                            .compactMap { $0.first?.integerValue })
                    // The oracle: the folding function's bytes, searched in Swift.
                    let target = Array(folding.apply(needle).utf8)
                    var expected = Set<Int64>()
                    for row in try connection.rows("SELECT Z_PK, CAST(\(function)(ZNAME) AS BLOB) FROM ZPERSON") {
                        guard let key = row[0].integerValue else { continue }
                        let bytes = row[1].blobValue ?? []
                        let holds: Bool
                        switch operation {
                        case "BEGINSWITH": holds = bytes.starts(with: target)
                        case "ENDSWITH": holds = bytes.count >= target.count && Array(bytes.suffix(target.count)) == target
                        default:
                            holds = target.isEmpty || bytes.indices.contains { start in
                                start + target.count <= bytes.count && Array(bytes[start..<(start + target.count)]) == target
                            }
                        }
                        if holds { expected.insert(key) }
                    }
                    #expect(answered == expected, "\(predicate.predicateFormat): \(answered.sorted()) vs \(expected.sorted())")
                    matched += expected.count
                }
            }
        }
        #expect(matched > 100)
    }

    @Test func compoundsAndConstants() throws {
        let (sql, bindings) = try FetchPredicate(format: "age > 1 AND (name == 'a' OR NOT age < 5)").sqlExpression(
            columnForKey: column)
        #expect(sql.hasPrefix("((\"t0\".\"ZAGE\" > ?"))
        #expect(sql.contains(" OR (NOT ("))
        #expect(bindings == [.integer(1), .string("a"), .integer(5)])
        #expect(try FetchPredicate.truePredicate.sqlExpression(columnForKey: column).sql == "1")
        #expect(try FetchPredicate.falsePredicate.sqlExpression(columnForKey: column).sql == "0")
        #expect(try FetchPredicate(format: "3 > 2").sqlExpression(columnForKey: column).sql == "1")
        #expect(try FetchPredicate(format: "3 > nil").sqlExpression(columnForKey: column).sql == "NULL")
        #expect(try FetchPredicate(format: "age IN {}").sqlExpression(columnForKey: column).sql == "0")
        let list = try FetchPredicate(format: "age IN {1, 2, 'x', nil}").sqlExpression(columnForKey: column)
        #expect(list.sql.contains("\"t0\".\"ZAGE\" IN (?, ?)"))
        #expect(list.sql.contains("\"t0\".\"ZAGE\" IS NULL"))
        #expect(list.bindings == [.integer(1), .integer(2), .string("x")])
    }

    /// Every user value reaches SQLite as a bound parameter; the SQL text contains none of them.
    @Test func injectionAttemptsStayValues() throws {
        let connection = try SQLiteConnection.inMemory()
        try PredicateSQLFunctions.register(on: connection)
        try connection.execute("CREATE TABLE ZPERSON (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR, ZAGE INTEGER)")
        let hostile = [
            "x' OR 1=1 --", "x\" OR 1=1 --", "'; DROP TABLE ZPERSON; --", "\"; DROP TABLE ZPERSON; --", "%K", "%@",
            "$VAR", "a\u{0}b' OR '1'='1", ") OR (1=1", "*/ OR 1=1 /*", "?1 OR 1", ":name", "@x",
        ]
        let names = hostile + ["safe"]
        for (index, name) in names.enumerated() {
            try connection.execute("INSERT INTO ZPERSON VALUES (\(index + 1), NULL, \(index))")
            _ = try connection.rows(
                "UPDATE ZPERSON SET ZNAME = ? WHERE Z_PK = ?", [.text(name), .integer(Int64(index + 1))])
        }
        let columns = ["name": "ZNAME", "age": "ZAGE"]
        for value in hostile {
            for format in [
                "name == %@", "name != %@", "name BEGINSWITH %@", "name ENDSWITH[c] %@", "name CONTAINS[cd] %@",
                "name LIKE %@", "name MATCHES %@", "name IN %@", "name > %@", "%@ IN name", "name BETWEEN %@",
            ] {
                let argument: any PredicateArgument
                if format.hasSuffix("IN %@") {
                    argument = [value, "other"]
                } else if format.hasSuffix("BETWEEN %@") {
                    argument = [value, value]
                } else {
                    argument = value
                }
                let predicate: FetchPredicate
                do {
                    predicate = try FetchPredicate(format: format, argument)
                } catch {
                    // Only MATCHES may refuse a value, and only as a malformed regular expression.
                    #expect(
                        format.contains("MATCHES") && error.kind == .invalidValue, "\(format) with \(value): \(error)")
                    continue
                }
                let (sql, bindings) = try predicate.sqlExpression { columns[$0] }
                #expect(!sql.contains(value), "\(value) leaked into \(sql)")
                #expect(
                    bindings.contains { $0.stringValue?.contains(value) ?? false } || format.contains("[c"), "\(format)"
                )
                let rows = try connection.rows("SELECT Z_PK FROM ZPERSON WHERE \(sql)", bindings.map(\.sqliteValue))
                let matched = Set(rows.compactMap { $0.first?.integerValue })
                let expected = Set(
                    names.indices.filter { index in
                        predicate.evaluate { $0 == "name" ? .string(names[index]) : .integer(Int64(index)) }
                    }.map { Int64($0 + 1) })
                #expect(matched == expected, "\(format) with \(value)")
            }
        }
        // The table survived, with every row.
        #expect(try connection.scalar("SELECT count(*) FROM ZPERSON") == .integer(Int64(names.count)))
        // An exact match finds exactly the hostile row.
        let exact = try FetchPredicate(format: "name == %@", "x' OR 1=1 --").sqlExpression { columns[$0] }
        let rows = try connection.rows("SELECT Z_PK FROM ZPERSON WHERE \(exact.sql)", exact.bindings.map(\.sqliteValue))
        #expect(rows == [[.integer(1)]])
    }

    @Test func keysComeOnlyFromTheColumnMap() throws {
        // Keys that are not attributes never reach SQL: the map is the only source of identifiers.
        let hostileKey = try FetchPredicate(format: "#select == 1 OR name == 2")
        #expect(throws: FetchPredicateError.self) { try hostileKey.sqlExpression(columnForKey: column) }
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "%K == 1", "name; DROP TABLE x") }
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "%K == 1", "name\" OR 1=1 --") }
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "%K == 1", "") }
        let built = FetchPredicate.key("name\" OR 1=1 --", .equalTo, 1)
        #expect(throws: FetchPredicateError.self) { try built.sqlExpression(columnForKey: column) }
    }

    @Test func registeredFunctions() throws {
        let connection = try SQLiteConnection.inMemory()
        try PredicateSQLFunctions.register(on: connection)
        func query(_ sql: String, _ values: [SQLiteValue] = []) throws -> SQLiteValue? {
            try connection.scalar("SELECT " + sql, values)
        }
        #expect(try query("objectgraph_fold(?)", [.text("Ærøskøbing STRASSE")]) == .text("aeroskobing strasse"))
        #expect(try query("objectgraph_lower(?)", [.text("ÉMILE")]) == .text("émile"))
        #expect(try query("objectgraph_unaccent(?)", [.text("Émile Łódź")]) == .text("Emile Lodz"))
        // ASCII text takes a byte-level fast path; it must give what the Swift functions give.
        for text in ["", "Ada LOVELACE", "x", "MiXeD 123 !@#~", String(repeating: "Ab", count: 5_000), "Zoë Ærø"] {
            #expect(try query("objectgraph_fold(?)", [.text(text)]) == .text(StringFolding.folded(text)))
            #expect(try query("objectgraph_lower(?)", [.text(text)]) == .text(StringFolding.lowercased(text)))
            #expect(try query("objectgraph_unaccent(?)", [.text(text)])
                == .text(FetchPredicate.TextMatching.removingDiacritics(text)))
        }
        #expect(try query("objectgraph_unaccent(?)", [.text("KEEP Case")]) == .text("KEEP Case"))
        #expect(try query("objectgraph_fold(42)") == .integer(42))
        #expect(try query("objectgraph_lower(NULL)") == .null)
        #expect(try query("objectgraph_unaccent(x'00ff')") == .blob([0, 0xFF]))
        #expect(try query("objectgraph_like('Zoë', 'Zo?')") == .integer(1))
        #expect(try query("objectgraph_like('Zoë', 'Zo')") == .integer(0))
        #expect(try query("objectgraph_like(NULL, 'x')") == .null)
        #expect(try query("objectgraph_like(42, '4*')") == .integer(0))
        #expect(try query("objectgraph_matches('abc', 'a.c', 0)") == .integer(1))
        #expect(try query("objectgraph_matches('ABC', 'a.c', 0)") == .integer(0))
        #expect(try query("objectgraph_matches('ABC', 'a.c', 1)") == .integer(1))
        #expect(try query("objectgraph_matches('abc', '(', 0)") == .integer(0))
        #expect(try query("objectgraph_matches('abc', NULL, 0)") == .null)
        #expect(
            try query("objectgraph_fold(?) = objectgraph_fold(?)", [.text("Zoë"), .text("ZOE\u{308}")]) == .integer(1))
        // Text with NUL characters survives the round trip through a function.
        #expect(try query("length(CAST(objectgraph_lower(?) AS BLOB))", [.text("A\u{0}B")]) == .integer(3))
    }

    @Test func theDatabaseAgreesOnSubtleCases() throws {
        // A compact differential check that names the cases it covers.
        let table = try PredicateTestTable(rowCount: 120, seed: 99)
        for format in [
            "name ENDSWITH 'a\\0'", "name CONTAINS '\\0'", "name BEGINSWITH 'a\\0'", "name LIKE 'a?b'",
            "name LIKE 'a*'",
            "name ==[c] 'ǆ'", "name ==[cd] 'DZ'", "name ==[c] 'İSTANBUL'", "name ==[cd] 'istanbul'",
            "name ==[cd] 'ss'",
            "name == 'ß'", "name ==[c] 'SS'", "name CONTAINS[cd] 'ﬁ'", "name CONTAINS[c] 'Σ'", "name >[cd] 'zz'",
            "score == 1e999", "score > -1e999", "score == 0.0", "score == -0.0",
        ] {
            let predicate = try FetchPredicate(format: format)
            let memory = table.memoryMatches(predicate)
            let sql = try table.sqlMatches(predicate)
            let agree = memory == sql
            #expect(agree, "\(table.disagreement(predicate, memory: memory, sql: sql))")
        }
    }
}
