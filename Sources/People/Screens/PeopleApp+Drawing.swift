import Foundation
import ObjectGraph
import TerminalTableView

extension PeopleApp {
    /// The smallest screen the browser draws on; smaller ones get a short note instead.
    static let minimumSize = TerminalSize(columns: 20, rows: 5)

    /// Draws a frame and presents it.
    ///
    /// From the top: the status line, the list (column titles, rows, the section index), then at the
    /// bottom the filter field (with a marker under the failing column of an invalid predicate), a prompt
    /// when one is open, and the key line with the update and frame times. The detail view, the form and
    /// the help are drawn over the list.
    public func render() {
        let started = timeSource.now
        let size = screen.size
        var buffer = ScreenBuffer(size: size)
        if size.columns < Self.minimumSize.columns || size.rows < Self.minimumSize.rows {
            buffer.write("Window too small: \(size.columns)×\(size.rows).", at: 0, row: 0)
            buffer.write("Need at least \(Self.minimumSize.columns)×\(Self.minimumSize.rows).", at: 0, row: 1)
        } else {
            drawStatusLine(into: &buffer, width: size.columns)
            var bottom = size.rows - 1
            drawKeyLine(into: &buffer, row: bottom, width: size.columns)
            // Lower lines go first, and only while at least two list lines remain.
            if let prompt = promptText(), bottom - 1 >= 3 {
                bottom -= 1
                drawPrompt(prompt, into: &buffer, row: bottom, width: size.columns)
            }
            if let error = filterError, bottom - 1 >= 4 {
                bottom -= 1
                drawFilterError(error, into: &buffer, row: bottom, width: size.columns)
            }
            if showsFilterLine, bottom - 1 >= 3 {
                bottom -= 1
                drawFilterLine(into: &buffer, row: bottom, width: size.columns)
            }
            let listRect = TerminalRect(x: 0, y: 1, width: size.columns, height: bottom - 1)
            list.tableView.render(into: &buffer, in: listRect)
            if list.numberOfPeople == 0, listRect.height >= 3 {
                let note = list.isLoading ? "Reading \(NumberText.grouped(nextSerial - 1)) people…"
                    : list.filter.text.isEmpty ? "No people yet: i imports some." : "No one matches the filter."
                buffer.write(note, at: 2, row: listRect.y + 2, style: .dim, maxWidth: listRect.width - 2)
            }
            drawOverlay(into: &buffer, in: listRect)
        }
        screen.present(buffer)
        needsDisplay = false
        lastRenderAt = timeSource.now
        lastFrameDuration = lastRenderAt.map { $0 - started } ?? .zero
    }

    private var showsFilterLine: Bool {
        if case .filtering = mode { return true }
        // (Also for a filter still being read on another thread: the typed text stays in view.)
        return !list.filter.text.isEmpty || filterError != nil || !(list.backgroundTarget?.filter.text.isEmpty ?? true)
    }

    // MARK: - Lines

    private func drawStatusLine(into buffer: inout ScreenBuffer, width: Int) {
        buffer.fill(TerminalRect(x: 0, y: 0, width: width, height: 1), style: .reverse)
        let people = list.numberOfPeople
        let sections = list.numberOfSections
        let count = "\(NumberText.grouped(people)) \(people == 1 ? "person" : "people")"
        var sectioning = "\(NumberText.grouped(sections)) \(sections == 1 ? "section" : "sections")"
        if list.sectionMode != .lastNameInitial { sectioning += " by \(list.sectionMode.title)" }
        let status = importActivity.statusText(now: timeSource.now, listIsCatchingUp: listIsCatchingUp)
        let right = status.map { $0.text + " " } ?? ""
        // The longest title that leaves the import's status whole: the sections, then the name, give way.
        // A background fetch for a new filter or sort is named; the count is still the shown list's.
        let fetching = list.backgroundTarget.map { $0.mode == list.sectionMode ? " · filtering…" : " · sorting…" } ?? ""
        let titles = list.isLoading ? [" People · loading…", " loading…"]
            : [" People · \(count) · \(sectioning)\(fetching)", " People · \(count)\(fetching)", " \(count)\(fetching)",
                " \(count)"]
        let room = width - DisplayWidth.of(right) - 2
        let left = titles.first { DisplayWidth.of($0) <= room } ?? titles[titles.count - 1]
        let used = buffer.write(left, at: 0, row: 0, style: .reverse)
        guard let (_, isFailure) = status else { return }
        let column = max(used + 2, width - DisplayWidth.of(right))
        let failureStyle = screen.supportsColors ? TextStyle(foreground: .red, bold: true, reverse: true)
            : TextStyle(bold: true, reverse: true, underline: true)
        buffer.write(right, at: column, row: 0, style: isFailure ? failureStyle : .reverse, maxWidth: width - column)
    }

    private func drawKeyLine(into buffer: inout ScreenBuffer, row: Int, width: Int) {
        let timing = "update \(Self.milliseconds(list.lastUpdateDuration)) · frame \(Self.milliseconds(lastFrameDuration)) ms "
        let timingWidth = DisplayWidth.of(timing)
        let room = width - timingWidth - 1
        let errorStyle = screen.supportsColors ? TextStyle(foreground: .red, bold: true) : TextStyle(bold: true)
        var showsTiming = room > 10
        if let failure = saveFailure {
            let text = " " + failure.text + (failure.count > 1 ? " (\(failure.count) times)" : "")
            buffer.write(text, at: 0, row: row, style: errorStyle, maxWidth: showsTiming ? room : width)
        } else if let message {
            let style = message.isError ? errorStyle : .plain
            buffer.write(" " + message.text, at: 0, row: row, style: style, maxWidth: showsTiming ? room : width)
        } else {
            // The timings give way when not even the hints that always stay fit beside them.
            let hints = keyHints.fitted(to: room)
            showsTiming = showsTiming && DisplayWidth.of(hints) <= room
            buffer.write(showsTiming ? hints : keyHints.fitted(to: width), at: 0, row: row, style: .dim,
                maxWidth: showsTiming ? room : width)
        }
        if showsTiming { buffer.write(timing, at: width - timingWidth, row: row, style: .dim) }
    }

    /// The keys of the current mode, the most needed first (see ``KeyHints``).
    var keyHints: KeyHints {
        switch mode {
        case .filtering: KeyHints(inOrder: ["type to filter", "Enter keep", "Esc clear", "↑↓ move"])
        case .jumping: KeyHints(inOrder: ["type a section's index letter", "any other key cancels"])
        case .detail: KeyHints(inOrder: ["Esc/q back", "e edit", "d delete"])
        case .form: KeyHints(inOrder: ["Enter save", "Esc cancel", "Tab/↑↓ next field"])
        case .help: KeyHints(inOrder: ["any key closes the help"])
        case .importPrompt: KeyHints(inOrder: ["Enter import", "Esc cancel"])
        case .confirmingDelete: KeyHints(inOrder: ["y delete", "any other key keeps"])
        case .confirmingBatchDelete: KeyHints(inOrder: ["y delete them all", "any other key keeps them"])
        case .browsing:
            // Filtering, help and quitting stay longest; adding, editing and undoing go first.
            KeyHints([
                .init(text: "/ filter", rank: 0), .init(text: "s sort", rank: 3), .init(text: "Enter show", rank: 2),
                .init(text: "i import", rank: 4), .init(text: "n e d", rank: 5), .init(text: "u undo", rank: 6),
                .init(text: "? help", rank: 0), .init(text: "q quit", rank: 0),
            ], separator: "  ")
        }
    }

    private func promptText() -> (label: String, editor: LineEditor?)? {
        switch mode {
        case .jumping: ("Jump to section: ", nil)
        case .importPrompt(let editor): ("Import file (JSON or CSV): ", editor)
        case .confirmingDelete(let person): ("Delete \(person.displayName)? (y/n) ", nil)
        case .confirmingBatchDelete(let filter, let count): (Self.batchDeletePrompt(filter, count: count), nil)
        default: nil
        }
    }

    private func drawPrompt(_ prompt: (label: String, editor: LineEditor?), into buffer: inout ScreenBuffer, row: Int, width: Int) {
        let used = buffer.write(" " + prompt.label, at: 0, row: row, style: .bold)
        if let editor = prompt.editor {
            editor.draw(into: &buffer, column: used, row: row, width: width - used)
        }
    }

    /// The filter field's prefix; the marker line lines up with it.
    static let filterPrefix = " / "

    private func drawFilterLine(into buffer: inout ScreenBuffer, row: Int, width: Int) {
        let editing: Bool
        if case .filtering = mode { editing = true } else { editing = false }
        let used = buffer.write(Self.filterPrefix, at: 0, row: row, style: .bold)
        let editor = editing ? filterEditor : LineEditor(filterEditor.text)
        let suffix = filterError == nil && !filterEditor.text.isEmpty
            ? (list.filter.isPredicate ? "  (predicate)" : "  (names, email, city)") : ""
        let suffixWidth = DisplayWidth.of(suffix)
        let fieldWidth = max(1, width - used - suffixWidth)
        editor.draw(into: &buffer, column: used, row: row, width: fieldWidth, showsCursor: editing)
        if suffixWidth > 0, width - suffixWidth > used + DisplayWidth.of(filterEditor.text) {
            buffer.write(suffix, at: width - suffixWidth, row: row, style: .dim)
        }
    }

    /// `^` under the character the error points at, then what is wrong.
    private func drawFilterError(_ error: FetchPredicateError, into buffer: inout ScreenBuffer, row: Int, width: Int) {
        let style = screen.supportsColors ? TextStyle(foreground: .red, bold: true) : TextStyle(bold: true)
        var reason = error.message
        if let detail = error.reason { reason += ": \(detail)" }
        guard let offset = error.offset else {
            buffer.write(Self.filterPrefix + reason, at: 0, row: row, style: style)
            return
        }
        let text = filterEditor.text
        let column = DisplayWidth.of(Self.filterPrefix) + DisplayWidth.of(String(text.prefix(offset)))
        let markerColumn = min(column, width - 1)
        buffer.write("^", at: markerColumn, row: row, style: style)
        let note = " " + reason + " (column \(offset + 1))"
        if markerColumn + 1 + DisplayWidth.of(note) <= width {
            buffer.write(note, at: markerColumn + 1, row: row, style: style)
        } else if markerColumn > DisplayWidth.of(note) {
            buffer.write(note.dropFirst() + " ", at: markerColumn - DisplayWidth.of(note), row: row, style: style)
        } else {
            buffer.write(note, at: markerColumn + 1, row: row, style: style, maxWidth: width - markerColumn - 1)
        }
    }

    // MARK: - Overlays

    private func drawOverlay(into buffer: inout ScreenBuffer, in rect: TerminalRect) {
        switch mode {
        case .detail(let person):
            let lines = PersonDetailView.lines(for: person, sectionMode: list.sectionMode).count
            let box = TerminalRect(x: rect.x + 2, y: rect.y + 1, width: min(rect.width - 4, 90),
                height: min(rect.height - 2, lines + 4))
            PersonDetailView.draw(person, sectionMode: list.sectionMode, into: &buffer, in: box)
        case .form(let form, _):
            form.draw(into: &buffer, in: rect, usesColors: screen.supportsColors)
        case .help:
            let undo = PeopleHelp.UndoState(
                undoName: undoManager.map { $0.canUndo ? $0.undoActionName : "" } ?? "",
                redoName: undoManager.map { $0.canRedo ? $0.redoActionName : "" } ?? "")
            PeopleHelp.draw(importOnKey: options.importOnKey, undo: undo, into: &buffer, in: rect)
        default:
            break
        }
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f", duration.seconds * 1000)
    }
}
