import Foundation
import ObjectGraph
import Testing
import TerminalTableView

@testable import People

/// The browser driven as a person would, on the in-memory screen.
@Suite(.serialized) @MainActor struct PeopleAppFlowTests {
    /// The line that starts with `prefix`, searching from the bottom.
    func bottomLine(_ lines: [String], _ prefix: String) -> String? { lines.last { $0.hasPrefix(prefix) } }

    @Test func filterAsYouTypeThenClear() async throws {
        let fixture = try AppFixture()
        let everyone = fixture.app.list.numberOfPeople
        fixture.type("/mül")
        let expected = try await fixture.storedCount(PeopleFilter(text: "mül").predicate)
        #expect(expected > 0 && expected < everyone)
        #expect(peopleCount(in: fixture.lines[0]) == expected)
        #expect(bottomLine(fixture.lines, " / ")?.hasPrefix(" / mül") == true)
        for person in fixture.app.list.resultsController.fetchedObjects ?? [] {
            let text = StringFolding.folded([person.firstName, person.lastName, person.email, person.city].joined(separator: " "))
            #expect(text.contains("mul"))
        }
        fixture.press(.enter)  // keeps the filter, back to the list
        #expect(peopleCount(in: fixture.lines[0]) == expected)
        fixture.press(.escape)
        #expect(peopleCount(in: fixture.lines[0]) == everyone)
        #expect(bottomLine(fixture.lines, " / mül") == nil)
    }

    @Test func aPredicateFiltersAndABadOneIsMarkedWhileTheListStays() async throws {
        let fixture = try AppFixture()
        fixture.type("/age > 80")
        let older = try await fixture.storedCount(FetchPredicate(format: "age > 80"))
        #expect(peopleCount(in: fixture.lines[0]) == older)
        fixture.type(" AND city >> 3")
        // The list is unchanged; the marker points at the second `>` (column 20 of the text).
        #expect(peopleCount(in: fixture.lines[0]) == older)
        let lines = fixture.lines
        let field = try #require(lines.firstIndex { $0.hasPrefix(" / age > 80 AND city >> 3") })
        let marker = lines[field + 1]
        #expect(marker == String(repeating: " ", count: 3 + 19) + "^ Unexpected token '>': expected a value (column 20)")
        #expect(lines[field].hasPrefix(" / age > 80 AND city >> 3"))
        fixture.press(.backspace, .backspace, .backspace, .backspace)
        fixture.type("= \"Köln\"")
        #expect(fixture.app.filterError == nil)
        #expect(peopleCount(in: fixture.lines[0]) == (try await fixture.storedCount(FetchPredicate(format: #"age > 80 AND city == "Köln""#))))
        fixture.press(.escape)
        fixture.type("/nickname == 'x' OR bogus == 1")
        #expect(fixture.app.filterError?.message == "Unknown key 'bogus'")
        #expect(fixture.lines.contains { $0.hasPrefix(String(repeating: " ", count: 3 + 19) + "^ Unknown key 'bogus'") })
    }

    /// Keys that arrive together (typed while a large list was being filtered, or pasted) filter the list once,
    /// by the text they leave; keys that arrive one by one filter it at each key.
    @Test func keysArrivingTogetherFilterTheListOnce() async throws {
        let fixture = try AppFixture()
        fixture.type("/")
        let before = fixture.app.list.refetchCount
        fixture.type("age > 80 AND bogus == 1")
        #expect(fixture.app.list.refetchCount == before + 1)
        #expect(fixture.app.filterError?.message == "Unknown key 'bogus'")
        // One backspace at a time: a fetch for every text that reads as a filter (" AND" and the like do not).
        var text = "age > 80 AND bogus == 1"
        var expected = before + 1
        for _ in 0..<15 {
            fixture.press(.backspace)
            text.removeLast()
            if (try? PeopleFilter(text: text, keys: ["age", "city", "firstName", "lastName"])) != nil { expected += 1 }
        }
        #expect(expected > before + 2)
        #expect(fixture.app.list.refetchCount == expected)
        #expect(fixture.app.filterError == nil)
        #expect(peopleCount(in: fixture.lines[0]) == (try await fixture.storedCount(FetchPredicate(format: "age > 80"))))
    }

    /// On a long list (here: from the first person on) the filter waits for typing to pause before it fetches;
    /// the typed text shows at once, and Enter or a cursor key fetches without waiting.
    @Test func aSlowFilterWaitsForAPauseInTyping() async throws {
        let fixture = try AppFixture(options: PeopleApp.Options(filterWaitsFromPeople: 0))
        // Such a list is read on another thread from the start; the window says so meanwhile.
        #expect(fixture.lines[0].hasPrefix(" People · loading…"))
        #expect(fixture.lines.contains { $0.contains(/Reading [0-9,]+ people…/) })
        await Self.waitForTheList(fixture)
        let everyone = peopleCount(in: fixture.lines[0])
        #expect(everyone == (try await fixture.storedCount()))
        fixture.type("/")
        let before = fixture.app.list.refetchCount
        fixture.type("age > 8")
        fixture.type("0")
        #expect(fixture.lines.contains { $0.hasPrefix(" / age > 80") })
        #expect(fixture.app.list.refetchCount == before)
        #expect(peopleCount(in: fixture.lines[0]) == everyone)
        fixture.clock.advance(by: PeopleApp.Options.filterTypingPause / 2)
        fixture.app.tick()
        #expect(fixture.app.list.refetchCount == before)
        fixture.clock.advance(by: PeopleApp.Options.filterTypingPause)
        fixture.app.tick()
        #expect(fixture.app.list.refetchCount == before + 1)
        // The fetch runs on another thread: the list shows everyone, and says it is filtering, until it is done.
        #expect(fixture.lines[0].contains("filtering…"))
        #expect(peopleCount(in: fixture.lines[0]) == everyone)
        await Self.waitForTheList(fixture)
        #expect(!fixture.lines[0].contains("filtering…"))
        #expect(peopleCount(in: fixture.lines[0]) == (try await fixture.storedCount(FetchPredicate(format: "age > 80"))))
        // Enter does not wait for a pause.
        fixture.press(.backspace)
        fixture.press(.enter)
        #expect(fixture.app.list.refetchCount == before + 2)
        await Self.waitForTheList(fixture)
        #expect(peopleCount(in: fixture.lines[0]) == (try await fixture.storedCount(FetchPredicate(format: "age > 8"))))
        // A filter naming an unknown key is refused when its fetch fails, the list staying as it was.
        let shown = fixture.app.list.numberOfPeople
        fixture.type("/")
        fixture.press(.end)
        fixture.type(" AND bogus == 1")
        fixture.press(.enter)
        await Self.waitForTheList(fixture)
        #expect(fixture.app.list.numberOfPeople == shown)
        #expect(fixture.lines.contains { $0.contains("^ Unknown key 'bogus'") })
        // Sorting such a list fetches on another thread too.
        fixture.press(.escape)
        await Self.waitForTheList(fixture)
        #expect(peopleCount(in: fixture.lines[0]) == everyone)
        fixture.type("s")
        #expect(fixture.lines[0].contains("sorting…"))
        #expect(fixture.app.list.sectionMode == .lastNameInitial)
        await Self.waitForTheList(fixture)
        #expect(fixture.app.list.sectionMode == .firstNameInitial)
        #expect(fixture.lines[0].contains("by first name"))
        #expect(peopleCount(in: fixture.lines[0]) == everyone)
    }

    /// Words the text search index answers (three characters or more) fetch at every key even on a long list:
    /// no pause in typing; shorter words still wait for one. The cursor stays on its person when it still matches.
    @Test func indexedWordsFetchAtEveryKey() async throws {
        let fixture = try AppFixture(options: PeopleApp.Options(filterWaitsFromPeople: 0))
        await Self.waitForTheList(fixture)
        // A person with a plain last name of five letters or more, under the cursor.
        let list = fixture.app.list
        let candidates = try #require(list.resultsController.sections?.first?.objects.compactMap { $0 as? Person })
        let person = try #require(candidates.first { $0.lastName.count >= 5 && $0.lastName.allSatisfy(\.isASCII) })
        let indexPath = try #require(list.resultsController.indexPath(forObject: person))
        list.tableView.selectRow(at: indexPath, scrollPosition: .middle)
        #expect(list.selectedPerson === person)
        let lastName = person.lastName
        let word = String(lastName.prefix(3))
        fixture.type("/")
        let before = fixture.app.list.refetchCount
        fixture.type(String(word.prefix(2)))
        #expect(fixture.app.list.refetchCount == before, "two characters wait for a pause")
        fixture.type(String(word.suffix(1)))
        #expect(fixture.app.list.refetchCount == before + 1, "the third fetches at once")
        await Self.waitForTheList(fixture)
        let search = try PeopleFilter(text: word).predicate
        #expect(peopleCount(in: fixture.lines[0]) == (try await fixture.storedCount(search)))
        #expect(fixture.app.list.selectedPerson === person)
        // The word is in the person's last name: typing more of it keeps them, every key fetching.
        fixture.type(String(lastName.dropFirst(3).prefix(2)))
        #expect(fixture.app.list.refetchCount == before + 2)
        await Self.waitForTheList(fixture)
        #expect(fixture.app.list.selectedPerson === person)
        #expect(peopleCount(in: fixture.lines[0]) == (try await fixture.storedCount(
            PeopleFilter(text: String(lastName.prefix(5))).predicate)))
    }

    /// A key that extends one or two letters the list already shows narrows the people shown instead of testing
    /// every row of the store (the index cannot answer so short a word): when they are few, at once, with no pause
    /// in typing, and the list then shows what a fetch finds. A word that does not extend the shown one, or that
    /// the index answers, fetches in full.
    @Test func aLongerShortWordNarrowsThePeopleShown() async throws {
        let fixture = try AppFixture(seeded: false, options: PeopleApp.Options(filterWaitsFromPeople: 0), people: [
            ("Quinn", "Adams", "Berlin", 30), ("Ada", "Quist", "Oslo", 41), ("Bo", "Iqbal", "Rome", 52),
            ("Émile", "Zola", "Évian", 62), ("Zoë", "Müller", "Köln", 23), ("Ola", "Berg", "Bergen", 35),
            ("Åsa", "Lind", "Umeå", 44), ("Béa", "Roux", "Lyon", 28), ("Tom", "Hart", "York", 61),
            ("Ann", "Bell", "Cork", 19), ("Ivo", "Novak", "Brno", 37), ("Lu", "Chen", "Xi'an", 26),
        ])
        await Self.waitForTheList(fixture)
        let list = fixture.app.list
        #expect(list.numberOfPeople == 12)
        fixture.type("/")
        fixture.type("Q")
        // One letter on a list that shows everyone: a fetch after a pause in typing.
        fixture.clock.advance(by: PeopleApp.Options.filterTypingPause * 2)
        fixture.app.tick()
        await Self.waitForTheList(fixture)
        #expect(list.numberOfPeople == 3)
        let narrower = try PeopleFilter(text: "Qu")
        #expect(list.narrowsResults(to: narrower))
        #expect(!list.narrowsResults(to: try PeopleFilter(text: "o")), "not an extension of the shown word")
        #expect(!list.narrowsResults(to: try PeopleFilter(text: "Qui")), "the index answers three letters")
        let before = list.refetchCount
        fixture.type("u")
        #expect(list.refetchCount == before + 1, "three people are narrowed at once, with no pause")
        await Self.waitForTheList(fixture)
        #expect(list.numberOfPeople == 2)
        #expect(peopleCount(in: fixture.lines[0]) == (try await fixture.storedCount(narrower.predicate)))
    }

    /// Keys pressed while a long list is still being read at start-up (it shows no one yet) must not fetch on the
    /// main queue: a sort or a filter then is read on another thread too.
    @Test func keysWhileTheListLoadsDoNotFetchOnTheMainQueue() async throws {
        let fixture = try AppFixture(options: PeopleApp.Options(filterWaitsFromPeople: 1))
        #expect(fixture.app.list.isLoading)
        fixture.type("s")
        // Still reading: the new order is read on another thread as well, and the mode changes when it is read.
        #expect(fixture.app.list.isFetchingInBackground)
        #expect(fixture.app.list.sectionMode == .lastNameInitial)
        fixture.type("/")
        fixture.type("a")
        fixture.press(.enter)
        #expect(fixture.app.list.isFetchingInBackground)
        #expect(fixture.lines.contains { $0.hasPrefix(" / a") })
        await Self.waitForTheList(fixture)
        #expect(fixture.app.list.sectionMode == .firstNameInitial)
        #expect(fixture.app.list.filter.text == "a")
        #expect(peopleCount(in: fixture.lines[0]) == fixture.app.list.numberOfPeople)
        #expect(fixture.app.list.numberOfPeople > 0)
    }

    /// Lets the main queue run until the list's background fetch is done, then redraws.
    private static func waitForTheList(_ fixture: AppFixture) async {
        await waitUntil("the list's background fetch is done") { !fixture.app.list.isFetchingInBackground }
        fixture.app.tick()
    }

    @Test func sectionModesCycleWithTitlesAndIndexFollowing() throws {
        let fixture = try AppFixture(people: [
            ("", "Nobody", "", 0), ("42", "Numbers", "1st City", 9), ("東京", "Tokyo", "東京", 100), ("Émile", "Zola", "Évian", 62),
        ])
        let list = fixture.app.list
        let count = list.numberOfPeople
        let expected: [(PeopleSectionMode, String)] = [
            (.firstNameInitial, "by first name"), (.city, "by city"), (.ageDecade, "by age"), (.lastNameInitial, ""),
        ]
        for (mode, status) in expected {
            fixture.type("s")
            #expect(list.sectionMode == mode)
            #expect(list.numberOfPeople == count)
            if !status.isEmpty { #expect(fixture.lines[0].contains(status)) }
            let sections = try #require(list.resultsController.sections)
            #expect(Set(sections.map(\.name)).count == sections.count, "sections are contiguous")
            for section in sections {
                for case let person as Person in section.objects {
                    #expect(person.value(forKey: mode.sectionKey).stringValue == section.name)
                }
            }
            #expect(list.resultsController.sectionIndexTitles == sections.map { mode.indexTitle(forSectionName: $0.name) })
        }
        fixture.type("s")  // first names: `#` first, other scripts last
        let names = try #require(list.resultsController.sections).map(\.name)
        #expect(names.first == "#")
        #expect(names.last == PeopleSectionMode.otherScriptsTitle)
        fixture.type("ss")  // ages
        fixture.type("g6")
        let selected = try #require(list.selectedPerson)
        #expect(selected.age / 10 == 6)
        #expect(fixture.lines[2].hasPrefix(" 60–69 "))
    }

    @Test func gThenALetterJumpsAndOtherLettersStayCommands() throws {
        let fixture = try AppFixture()
        fixture.type("gM")
        #expect(fixture.app.list.selectedPerson?.sectionTitle == "M")
        #expect(fixture.lines[2].hasPrefix(" M "))
        fixture.type("g%")
        #expect(fixture.lines.last?.contains("No section %.") == true)
        fixture.type("M")  // a single letter is not a jump
        #expect(fixture.app.list.selectedPerson?.sectionTitle == "M")
    }

    @Test func enterShowsEveryAttributeAndEscapeGoesBack() throws {
        let fixture = try AppFixture()
        let person = try #require(fixture.app.list.selectedPerson)
        fixture.press(.enter)
        let text = fixture.lines.joined(separator: "\n")
        for label in ["First name", "Last name", "Nickname", "Email", "Phone", "City", "Age", "Created", "Avatar", "Object ID"] {
            #expect(text.contains("│ \(label)"), "\(label) is shown")
        }
        #expect(text.contains(person.email))
        #expect(text.contains("┌─ \(person.displayName) "))
        fixture.press(.escape)
        #expect(!fixture.lines.joined().contains("Object ID"))
    }

    @Test(arguments: PeopleStack.Kind.allCases)
    func newEditAndDeleteSaveThroughTheViewContext(stack: PeopleStack.Kind) async throws {
        let fixture = try AppFixture(stack: stack)
        let before = try await fixture.storedCount()
        fixture.type("n")
        fixture.type("Zoë")
        fixture.press(.tab)
        fixture.type("Ærøskøbing")
        fixture.press(.tab, .tab, .tab)
        fixture.type("abc")
        fixture.press(.enter)
        #expect(fixture.lines.contains { $0.contains("↳ expected a whole number, found \"abc\"") })
        fixture.press(.backspace, .backspace, .backspace)
        fixture.type("300")
        fixture.press(.enter)
        #expect(fixture.lines.contains { $0.contains("↳ 300 is above the maximum 200") }, "the model's validation")
        #expect(try await fixture.storedCount() == before)
        #expect(fixture.app.list.numberOfPeople == before, "nothing half-saved shows in the list")
        fixture.press(.backspace, .backspace, .backspace)
        fixture.type("31")
        fixture.press(.enter)
        #expect(try await fixture.storedCount() == before + 1)
        #expect(fixture.app.list.selectedPerson?.displayName == "Ærøskøbing, Zoë")
        #expect(fixture.lines.last?.hasPrefix(" Added Ærøskøbing, Zoë · u undoes") == true)

        fixture.type("e")
        fixture.press(.tab, .tab, .tab)  // City
        fixture.type("Aarhus")
        fixture.press(.enter)
        #expect(try await fixture.storedCount(FetchPredicate(format: "city == 'Aarhus' AND lastName == 'Ærøskøbing'")) == 1)

        fixture.type("d")
        #expect(fixture.lines.contains { $0.contains("Delete Ærøskøbing, Zoë? (y/n)") })
        fixture.type("n")
        #expect(try await fixture.storedCount() == before + 1)
        fixture.type("dy")
        #expect(try await fixture.storedCount() == before)
        #expect(fixture.lines.last?.hasPrefix(" Deleted Ærøskøbing, Zoë · u undoes") == true)
    }

    @Test func helpListsTheKeysAndAnyKeyClosesIt() throws {
        let fixture = try AppFixture()
        fixture.type("?")
        let text = fixture.lines.joined(separator: "\n")
        for key in ["g then a letter", "Enter", "/", "s", "i", "I", "n  e  d", "u", "U", "q"] { #expect(text.contains("│ \(key) ")) }
        #expect(text.contains("undo your last add, edit or delete (nothing to undo)"))
        fixture.type("q")  // closes the help, does not quit
        #expect(!fixture.app.shouldQuit)
        #expect(!fixture.lines.joined().contains("─ Keys ─"))
    }

    @Test(arguments: [100, 80, 50])
    func helpShowsEveryMeaningWholeInAnyWidth(columns: Int) throws {
        let fixture = try AppFixture(size: TerminalSize(columns: columns, rows: 40))
        fixture.type("?")
        // The meanings, without the box's borders and the keys' column, read as one text.
        let text = fixture.lines.filter { $0.contains("│") }
            .map { line in
                let inside = line.split(separator: "│", omittingEmptySubsequences: false).dropFirst().first ?? ""
                return String(inside.dropFirst(1 + PeopleHelp.keyWidth)).trimmingCharacters(in: .whitespaces)
            }
            .joined(separator: " ")
        for entry in PeopleHelp.keys where entry.keys != "i" && entry.keys != "u" && entry.keys != "U" {
            #expect(text.contains(entry.meaning), "at \(columns) columns: \(entry.meaning)")
        }
        // One line per key (and "any key closes") where the window is wide enough for the longest meaning.
        let longest = PeopleHelp.keys.map { DisplayWidth.of($0.meaning) }.max() ?? 0
        let wraps = fixture.lines.filter { $0.contains("│") }.count > PeopleHelp.keys.count + 1
        #expect(wraps == (columns < 4 + PeopleHelp.keyWidth + longest), "at \(columns) columns")
    }

    @Test func aFileImportRunsInTheBackgroundAndReportsSkippedRows() async throws {
        let fixture = try AppFixture()
        let before = try await fixture.storedCount()
        let file = fixture.store.file("new people.csv")
        try Data("firstName,lastName,age\nAda,Lovelace,36\nGrace,Hopper,abc\nAlan,Turing,41\n".utf8).write(to: file)
        fixture.type("I")
        #expect(fixture.lines.contains { $0.hasPrefix(" Import file (JSON or CSV):") })
        fixture.type(file.path)
        fixture.press(.enter)
        #expect(fixture.lines[0].contains("importing"))
        await fixture.finishImports()
        #expect(try await fixture.storedCount() == before + 2)
        #expect(fixture.lines[0].contains("imported 2 in"))
        #expect(fixture.lines[0].contains("1 skipped"))
        #expect(fixture.app.importer?.progress.problems == [#"row 1: 'age': expected a whole number, found "abc""#])
        fixture.type("I")
        fixture.type("/no/such/file.json")
        fixture.press(.enter)
        #expect(fixture.lines.last?.contains("No such file: /no/such/file.json") == true)
    }

    @Test(arguments: PeopleStack.Kind.allCases)
    func threeImportsRunAtOnceUnderOneProgressBar(stack: PeopleStack.Kind) async throws {
        let fixture = try AppFixture(options: .init(batchSize: 100, importOnKey: 300), stack: stack)
        let before = try await fixture.storedCount()
        fixture.type("iii")
        #expect(fixture.app.importers.count == 3)
        #expect(fixture.lines[0].contains("3 imports ▕"))
        await fixture.finishImports()
        #expect(try await fixture.storedCount() == before + 900)
        #expect(fixture.app.list.numberOfPeople == before + 900)
        #expect(fixture.lines[0].contains("imported 900 in"))
        // Generated emails stay distinct across the three imports.
        let emails = (fixture.app.list.resultsController.fetchedObjects ?? []).map(\.email)
        #expect(Set(emails).count == emails.count)
    }

    @Test func clickingTheIndexJumps() throws {
        let fixture = try AppFixture()
        // The index runs down the right edge from the first row line (line 2): A, B, C, …
        let line = try #require(fixture.lines.firstIndex { $0.hasSuffix(" D") })
        fixture.screen.click(column: 99, row: line)
        fixture.app.processInput()
        #expect(fixture.app.list.selectedPerson?.sectionTitle == "D")
    }

    @Test func withoutColoursTheTableUsesAttributes() throws {
        let store = TemporaryStore()
        let stack = try PeopleStack(storeURL: store.url)
        let screen = TestScreen()
        screen.supportsColors = false
        let app = PeopleApp(stack: stack, screen: screen, timeSource: ManualTimeSource(), options: .init())
        #expect(!app.list.tableView.configuration.usesColors)
    }

    /// 300 resizes, tiny and huge ones included: no crash, and the last frame is the one a fresh app
    /// draws at that size.
    @Test func aResizeStormEndsOnACorrectFrame() throws {
        let fixture = try AppFixture()
        fixture.type("gK")
        var random = SplitMix64(seed: 7)
        var sizes = [TerminalSize(columns: 1, rows: 1), TerminalSize(columns: 1, rows: 40), TerminalSize(columns: 180, rows: 1),
                     TerminalSize(columns: 0, rows: 0), TerminalSize(columns: 20, rows: 5), TerminalSize(columns: 19, rows: 5)]
        while sizes.count < 299 {
            sizes.append(TerminalSize(columns: Int(random.next() % 220) + 1, rows: Int(random.next() % 70) + 1))
        }
        sizes.append(TerminalSize(columns: 100, rows: 30))
        let started = ContinuousClock.now
        for size in sizes {
            fixture.screen.resize(to: size)
            fixture.app.processInput()
            #expect(fixture.screen.lastFrame?.size == size)
        }
        print("300 resizes on the test screen took \(ContinuousClock.now - started)")
        let selected = try #require(fixture.app.list.selectedPerson)
        #expect(selected.sectionTitle == "K")
        let final = try #require(fixture.screen.lastFrame)

        let other = TestScreen(size: TerminalSize(columns: 100, rows: 30))
        let fresh = PeopleApp(stack: fixture.stack, screen: other, timeSource: fixture.clock, options: .init())
        try fresh.start()
        fresh.list.tableView.selectRow(at: fresh.list.resultsController.indexPath(forObject: selected))
        let topRow = try #require(fixture.app.list.tableView.indexPathsForVisibleRows.first)
        fresh.list.tableView.scrollToRow(at: topRow, position: .top)
        fresh.render()
        var expected = try #require(other.lastFrame).lines
        var actual = final.lines
        // The timing line differs (it shows measured times); everything else is the same.
        expected.removeLast()
        actual.removeLast()
        #expect(actual == expected)
    }
}
