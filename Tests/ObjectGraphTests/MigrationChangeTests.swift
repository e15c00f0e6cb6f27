import Foundation
import Testing
@testable import ObjectGraph
import SQLiteStorage

/// One change kind per test, on two-version bundles written on the fly: the store is written with the first
/// version, opened with the second (which migrates it), and its rows read back with SQL.
@Suite struct MigrationChangeTests {
    let directory = TemporaryDirectory()
    var storeURL: URL { directory.file("store.sqlite") }

    /// Writes a store with version 1 of `bundle`, runs `fill` in a context, saves.
    func write(_ bundle: URL, _ fill: (ManagedObjectContext) throws -> Void) throws {
        let coordinator = try MigrationFixtures.open(storeURL, bundle: bundle, version: "Test")
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait { () throws in
            try fill(context)
            try context.save()
        }
    }

    func insert(_ context: ManagedObjectContext, _ entity: String, _ values: [String: AttributeValue]) throws
        -> ManagedObject
    {
        let object = try context.insertNewObject(forEntityName: entity)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    @Test func widenedIntegersAndFloatsKeepTheirValues() throws {
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="Integer 16"/><attribute name="b" optional="YES" attributeType="Integer 32"/><attribute name="f" optional="YES" attributeType="Float"/></entity>"#,
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="Integer 32"/><attribute name="b" optional="YES" attributeType="Integer 64"/><attribute name="f" optional="YES" attributeType="Double"/></entity>"#,
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="Integer 64"/><attribute name="b" optional="YES" attributeType="Integer 64"/><attribute name="f" optional="YES" attributeType="Double"/></entity>"#,
        ], in: directory)
        try write(bundle) { context in
            _ = try insert(context, "M", ["a": .integer(-32768), "b": .integer(2_147_483_647), "f": .double(0.25)])
        }
        _ = try MigrationFixtures.open(storeURL, bundle: bundle)
        #expect(try MigrationFixtures.rows(storeURL, "SELECT ZA, ZB, ZF FROM ZM")
            == [[.integer(-32768), .integer(2_147_483_647), .real(0.25)]])
    }

    @Test func addedAttributesGetTheirDefaultOrNil() throws {
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/><attribute name="n" attributeType="Integer 64" defaultValueString="7"/><attribute name="o" optional="YES" attributeType="Date"/><attribute name="s" optional="YES" attributeType="String" defaultValueString="hi"/></entity>"#,
        ], in: directory)
        try write(bundle) { context in _ = try insert(context, "M", ["a": .string("x")]) }
        _ = try MigrationFixtures.open(storeURL, bundle: bundle)
        #expect(try MigrationFixtures.rows(storeURL, "SELECT ZA, ZN, ZO, ZS FROM ZM")
            == [[.text("x"), .integer(7), .null, .text("hi")]])
    }

    @Test func aRequiredAttributeAddedWithoutDefaultIsRefusedAndTheFileKept() throws {
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/><attribute name="n" attributeType="Integer 64"/></entity>"#,
        ], in: directory)
        try write(bundle) { context in _ = try insert(context, "M", ["a": .string("x")]) }
        let before = try MigrationFixtures.bytes(storeURL)
        #expect {
            try MigrationFixtures.open(storeURL, bundle: bundle)
        } throws: { error in
            guard case ObjectGraphError.migrationNotInferable(_, "Test", "Test 2", let change, let reason) = error else {
                return false
            }
            return change == "attribute M.n added" && reason.contains("no default value")
        }
        #expect(try MigrationFixtures.bytes(storeURL) == before)
    }

    @Test func narrowingATypeIsRefusedAndTheFileKept() throws {
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="Integer 64"/></entity>"#,
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="Integer 16"/></entity>"#,
        ], in: directory)
        try write(bundle) { context in _ = try insert(context, "M", ["a": .integer(100_000)]) }
        let before = try MigrationFixtures.bytes(storeURL)
        #expect {
            try MigrationFixtures.open(storeURL, bundle: bundle)
        } throws: { error in
            guard case ObjectGraphError.migrationNotInferable(_, _, _, let change, _) = error else { return false }
            return change == "attribute M.a changes type from Integer 64 to Integer 16"
        }
        #expect(try MigrationFixtures.bytes(storeURL) == before)
    }

    @Test func movingAnEntityIntoAHierarchyIsRefusedAndTheFileKept() throws {
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="Animal"><attribute name="name" optional="YES" attributeType="String"/></entity><entity name="Dog"><attribute name="bark" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="Animal"><attribute name="name" optional="YES" attributeType="String"/></entity><entity name="Dog" parentEntity="Animal"><attribute name="bark" optional="YES" attributeType="String"/></entity>"#,
        ], in: directory)
        try write(bundle) { context in _ = try insert(context, "Dog", ["bark": .string("woof")]) }
        let before = try MigrationFixtures.bytes(storeURL)
        #expect {
            try MigrationFixtures.open(storeURL, bundle: bundle)
        } throws: { error in
            guard case ObjectGraphError.migrationNotInferable(_, _, _, let change, let reason) = error else { return false }
            return change == "entity Dog moves from no parent to Animal" && reason.contains("hierarchy")
        }
        #expect(try MigrationFixtures.bytes(storeURL) == before)
    }

    @Test func aSubentityAddedToAHierarchyKeepsTheRowsAndNumbers() throws {
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="Animal"><attribute name="name" optional="YES" attributeType="String"/></entity><entity name="Dog" parentEntity="Animal"><attribute name="bark" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="Animal"><attribute name="name" optional="YES" attributeType="String"/></entity><entity name="Cat" parentEntity="Animal"><attribute name="purr" attributeType="Boolean" defaultValueString="YES"/></entity><entity name="Dog" parentEntity="Animal"><attribute name="bark" optional="YES" attributeType="String"/></entity>"#,
        ], in: directory)
        try write(bundle) { context in
            _ = try insert(context, "Dog", ["name": .string("Rex"), "bark": .string("woof")])
            _ = try insert(context, "Animal", ["name": .string("Generic")])
        }
        let coordinator = try MigrationFixtures.open(storeURL, bundle: bundle)
        // Dog keeps number 2 (a new store would number Cat 2 and Dog 3); Cat gets 3; the Cat column is only
        // defaulted for Cat rows (none).
        #expect(try MigrationFixtures.rows(storeURL, "SELECT Z_NAME, Z_ENT, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            == [[.text("Animal"), .integer(1), .integer(0)], [.text("Dog"), .integer(2), .integer(1)],
                [.text("Cat"), .integer(3), .integer(1)]])
        #expect(try MigrationFixtures.rows(storeURL, "SELECT Z_ENT, ZNAME, ZBARK, ZPURR FROM ZANIMAL ORDER BY Z_PK")
            == [[.integer(2), .text("Rex"), .text("woof"), .null], [.integer(1), .text("Generic"), .null, .null]])
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait { () throws in
            let cat = try context.insertNewObject(forEntityName: "Cat")
            cat.setValue(.string("Tom"), forKey: "name")
            try context.save()
            let dogs = try context.fetch(FetchRequest<ManagedObject>(entityName: "Dog"))
            #expect(dogs.map { $0.value(forKey: "name") } == [.string("Rex")])
            let animals = try context.fetch(FetchRequest<ManagedObject>(entityName: "Animal", sortCriteria: [SortCriterion("name")]))
            #expect(animals.map(\.entity.name) == ["Animal", "Dog", "Cat"])
        }
        #expect(try MigrationFixtures.rows(storeURL, "SELECT Z_ENT FROM ZANIMAL WHERE ZNAME = 'Tom'") == [[.integer(3)]])
    }

    @Test func relationshipsAddedRemovedAndRenamedCarryTheirLinks() throws {
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="A"><attribute name="n" optional="YES" attributeType="String"/><relationship name="friend" optional="YES" maxCount="1" destinationEntity="B"/><relationship name="gone" optional="YES" maxCount="1" destinationEntity="B"/></entity><entity name="B"><attribute name="n" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="A"><attribute name="n" optional="YES" attributeType="String"/><relationship name="pal" optional="YES" maxCount="1" destinationEntity="B" renamingIdentifier="friend"/><relationship name="others" optional="YES" toMany="YES" destinationEntity="B"/></entity><entity name="B"><attribute name="n" optional="YES" attributeType="String"/></entity>"#,
        ], in: directory)
        try write(bundle) { context in
            let a = try insert(context, "A", ["n": .string("a")])
            let b = try insert(context, "B", ["n": .string("b")])
            a.setRelatedObject(b, forKey: "friend")
            a.setRelatedObject(b, forKey: "gone")
        }
        let coordinator = try MigrationFixtures.open(storeURL, bundle: bundle)
        #expect(try MigrationFixtures.columns(storeURL, "ZA").sorted() == ["ZN", "ZPAL", "Z_ENT", "Z_OPT", "Z_PK"])
        #expect(try MigrationFixtures.rows(storeURL, "SELECT count(*) FROM Z_1OTHERS") == [[.integer(0)]])
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait { () throws in
            let a = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "A")).first)
            #expect(a.relatedObject(forKey: "pal")?.value(forKey: "n") == .string("b"))
            #expect(a.relatedObjects(forKey: "others").isEmpty)
        }
    }

    @Test func indexAddedOrRemovedWithoutHashChangeIsAppliedOnOpen() throws {
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/><attribute name="b" optional="YES" attributeType="String"/><fetchIndex name="byA"><fetchIndexElement property="a" type="Binary" order="ascending"/></fetchIndex></entity>"#,
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/><attribute name="b" optional="YES" attributeType="String"/><fetchIndex name="byB"><fetchIndexElement property="b" type="Binary" order="descending"/></fetchIndex></entity>"#,
        ], in: directory)
        try write(bundle) { context in _ = try insert(context, "M", ["a": .string("x")]) }
        _ = try MigrationFixtures.open(storeURL, bundle: bundle)
        let names = try MigrationFixtures.rows(storeURL,
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZM' ORDER BY name")
        #expect(names == [[.text("ZM_Z_ENT_INDEX")], [.text("Z_M_byB")]])
    }

    @Test func aUniquenessConstraintThatRowsBreakIsRefusedAndRolledBack() throws {
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="M"><attribute name="a" optional="YES" attributeType="String"/><attribute name="b" optional="YES" attributeType="String"/><uniquenessConstraints><uniquenessConstraint><constraint value="a"/></uniquenessConstraint></uniquenessConstraints></entity>"#,
        ], in: directory)
        try write(bundle) { context in
            _ = try insert(context, "M", ["a": .string("same")])
            _ = try insert(context, "M", ["a": .string("same")])
        }
        #expect {
            try MigrationFixtures.open(storeURL, bundle: bundle)
        } throws: { error in
            guard case ObjectGraphError.migrationNotInferable(_, _, _, let change, _) = error else { return false }
            return change.contains("Z_M_UNIQUE_a")
        }
        // Rolled back: still version 1 (no column b), opens with version 1.
        #expect(try MigrationFixtures.columns(storeURL, "ZM").contains("ZB") == false)
        _ = try MigrationFixtures.open(storeURL, bundle: bundle, version: "Test")
    }
}
