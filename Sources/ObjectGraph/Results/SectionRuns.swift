/// The distinct section names a controller has seen, each with a small number, so that entries carry a
/// number instead of a string.
struct SectionNames: Sendable {
    private(set) var names: [String] = []
    private var numbers: [String: Int32] = [:]
    private var lastNumber: Int32?

    /// The number of `name`, handing out a new one the first time.
    mutating func number(for name: String) -> Int32 {
        // Sorted results come section by section: most names are the one asked for just before.
        if let last = lastNumber, names[Int(last)] == name { return last }
        if let number = numbers[name] {
            lastNumber = number
            return number
        }
        return add(name)
    }

    private mutating func add(_ name: String) -> Int32 {
        let number = Int32(names.count)
        names.append(name)
        numbers[name] = number
        lastNumber = number
        return number
    }

    subscript(number: Int32) -> String { names[Int(number)] }
}

/// The sections of the ordered results as runs: section number and object count, in order.
///
/// Sections are contiguous (the first sort criterion groups them), so a change of k entries changes k
/// counts and, rarely, adds or removes a run. When a sort order that does not group sections splits one
/// (which ``AnyFetchedResultsController/performFetch()`` rejects, but later value changes can cause),
/// the runs are rebuilt from the entries and a name may appear in several runs.
struct SectionRuns: Sendable {
    private(set) var sections: [Int32] = []
    private(set) var counts: [Int] = []
    private var starts: [Int] = []
    private var startsAreCurrent = true
    private var runBySection: [Int32: Int] = [:]
    /// Whether some section name appears in more than one run (an order that does not group sections).
    private(set) var hasRepeats = false

    init() {}

    /// The runs of `entries` (in order).
    init<Entries: Sequence<ResultsEntry>>(of entries: Entries) {
        for entry in entries { appendOne(to: entry.section) }
    }

    /// Counts one more entry at the end, of `section`: into the last run, or a new run after it.
    mutating func appendOne(to section: Int32) {
        if sections.last == section {
            counts[counts.count - 1] += 1
        } else {
            if runBySection[section] != nil { hasRepeats = true }
            runBySection[section] = sections.count
            sections.append(section)
            counts.append(1)
        }
        startsAreCurrent = false
    }

    /// Runs as recorded elsewhere (a section cache's header): `sections[i]` holds `counts[i]` entries.
    init(sections: [Int32], counts: [Int]) {
        self.sections = sections
        self.counts = counts
        reindex()
        hasRepeats = runBySection.count != sections.count
    }

    var count: Int { sections.count }

    /// The offset of the first entry of run `index`.
    mutating func start(of index: Int) -> Int {
        refreshStarts()
        return starts[index]
    }

    /// The run holding the entry at `position` and the entry's row within it.
    mutating func locate(_ position: Int) -> (section: Int, row: Int) {
        refreshStarts()
        let run = starts.indexOfLastStart(atOrBefore: position)
        return (run, position - starts[run])
    }

    private mutating func refreshStarts() {
        guard !startsAreCurrent else { return }
        starts.removeAll(keepingCapacity: true)
        var start = 0
        for count in counts {
            starts.append(start)
            start += count
        }
        startsAreCurrent = true
    }

    /// The run of `section` when names do not repeat.
    func run(of section: Int32) -> Int? { hasRepeats ? nil : runBySection[section] }

    /// Counts one entry of `section` out (its run stays, possibly empty, until ``removeEmptyRuns()``).
    mutating func removeOne(from section: Int32) {
        guard let run = runBySection[section] else { return }
        counts[run] -= 1
        startsAreCurrent = false
    }

    /// Counts one entry of an existing `section` in; false when the section has no run.
    mutating func addOne(to section: Int32) -> Bool {
        guard let run = runBySection[section] else { return false }
        counts[run] += 1
        startsAreCurrent = false
        return true
    }

    /// Adds a run for a new section with `count` entries right after run `previous` (-1: first).
    mutating func insertRun(_ section: Int32, count: Int, after previous: Int) {
        sections.insert(section, at: previous + 1)
        counts.insert(count, at: previous + 1)
        reindex()
    }

    /// Drops runs whose entries all left.
    mutating func removeEmptyRuns() {
        guard counts.contains(0) else { return }
        var keptSections: [Int32] = []
        var keptCounts: [Int] = []
        for (section, count) in zip(sections, counts) where count > 0 {
            keptSections.append(section)
            keptCounts.append(count)
        }
        sections = keptSections
        counts = keptCounts
        reindex()
    }

    private mutating func reindex() {
        runBySection.removeAll(keepingCapacity: true)
        for (index, section) in sections.enumerated() { runBySection[section] = index }
        startsAreCurrent = false
    }
}
