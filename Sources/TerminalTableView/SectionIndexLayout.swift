/// Which section index titles fit down the right edge, one per line.
///
/// When every title fits, all are shown. Otherwise titles spread evenly from the first to the last
/// alternate with `•` lines, as iOS compresses its index on short screens.
enum SectionIndexLayout {
    /// One entry per line, top to bottom: the position of the title to show, or nil for a `•` line.
    static func entries(titleCount: Int, lines: Int) -> [Int?] {
        guard titleCount > 0, lines > 0 else { return [] }
        if titleCount <= lines { return Array(0..<titleCount) }
        if lines < 3 { return lines == 1 ? [0] : [0, titleCount - 1] }
        let shown = (lines + 1) / 2
        var entries: [Int?] = []
        for slot in 0..<shown {
            if slot > 0 { entries.append(nil) }
            // Rounded, so that the picks spread evenly and the last title is always shown.
            entries.append((slot * (titleCount - 1) + (shown - 1) / 2) / (shown - 1))
        }
        return entries
    }
}
