import CCursesShim
import CNCurses

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The real terminal, through ncurses (wide-character build): the only type that calls ncurses.
///
/// It draws a ``ScreenBuffer`` by sending only the cells that changed since the previous frame, and
/// decodes the keyboard into ``TerminalEvent``s without blocking. Create one per process, use it from
/// one thread (the main queue), and ``close()`` it before exiting; `deinit` closes it too.
///
/// Window-size changes: ncurses reports them as a `.resize` event once it knows. An app that watches
/// `SIGWINCH` with a dispatch signal source calls ``handleWindowSizeChange()`` from that source.
///
/// Colours are used when the terminal has them and `NO_COLOR` is not set (see ``supportsColors``); the
/// mouse is reported when the terminal can (clicks and the wheel, as ``MouseEvent``s); and before
/// taking the terminal, the screen asks it how wide it draws emoji sequences (see ``EmojiWidths``).
public final class CursesScreen: TerminalScreen {
    private let screen: OpaquePointer
    private let window: UnsafeMutablePointer<WINDOW>
    private let ownedFiles: [UnsafeMutablePointer<FILE>]
    private let outputDescriptor: Int32
    private var isClosed = false
    private var previousFrame: ScreenBuffer?
    private var needsFullRedraw = true
    private var hasColors = false
    private let colorsWanted: Bool
    private var defaultColorsWork = false
    private var colorPairs: [ColorPairKey: Int16] = [:]
    private var styleCache: [TextStyle: (attributes: attr_t, pair: Int16)] = [:]
    /// The style drawn last, and a cell in it: ASCII cells only swap the character in.
    private var lastStyle: (style: TextStyle, attributes: attr_t, pair: Int16, template: cchar_t)?
    /// Room for one cell's wide characters: a spacing character, up to four marks, the terminating zero.
    private var characterScratch = [wchar_t](repeating: 0, count: 6)
    /// How many cells the last ``present(_:)`` sent to ncurses: unchanged cells cost nothing.
    public private(set) var cellsDrawnByLastPresent = 0

    private struct ColorPairKey: Hashable {
        var foreground: Int16
        var background: Int16
    }

    /// Opens the terminal and switches it to full-screen mode.
    ///
    /// - Parameters:
    ///   - terminalType: the terminfo name; nil uses `TERM`.
    ///   - inputPath: read keys from this file instead of standard input (tests use `/dev/null`).
    ///   - outputPath: draw into this file instead of standard output (tests use `/dev/null`).
    ///   - installsFatalSignalHandlers: restore the terminal before a crash (a trap, a segmentation
    ///     fault) re-raises its signal, so a crash never leaves the user's shell in raw mode. The
    ///     handlers replace the Swift runtime's backtracer for those signals, which would otherwise
    ///     print over the screen and wait for a key press.
    ///   - reportsMouse: ask the terminal to report clicks and the wheel.
    ///   - probesEmojiWidths: when drawing on the real terminal (no paths given), ask it how wide it
    ///     draws emoji sequences and set ``DisplayWidth/emojiWidths`` accordingly.
    /// - Throws: ``CursesScreenError`` when the terminal type is unknown or a file cannot be opened.
    public init(
        terminalType: String? = nil, inputPath: String? = nil, outputPath: String? = nil,
        installsFatalSignalHandlers: Bool = true, reportsMouse: Bool = true, probesEmojiWidths: Bool = true
    ) throws(CursesScreenError) {
        Self.selectUTF8Locale()
        colorsWanted = getenv("NO_COLOR").map { $0.pointee == 0 } ?? true
        if probesEmojiWidths, inputPath == nil, outputPath == nil {
            DisplayWidth.emojiWidths = Self.probeEmojiWidths()
        }
        var owned: [UnsafeMutablePointer<FILE>] = []
        func open(
            _ path: String?, mode: String, descriptor: Int32
        ) throws(CursesScreenError)
            -> UnsafeMutablePointer<FILE>
        {
            let file = path.map { fopen($0, mode) } ?? fdopen(dup(descriptor), mode)
            guard let file else { throw .cannotOpen(path: path ?? "fd \(descriptor)", errno: errno) }
            owned.append(file)
            return file
        }
        do throws(CursesScreenError) {
            let output = try open(outputPath, mode: "w", descriptor: STDOUT_FILENO)
            let input = try open(inputPath, mode: "r", descriptor: STDIN_FILENO)
            let opened = terminalType.map { newterm($0, output, input) } ?? newterm(nil, output, input)
            guard let opened, let window = cs_stdscr() else {
                throw CursesScreenError.unknownTerminal(type: terminalType ?? Self.environmentTerminalType)
            }
            self.screen = opened
            self.window = window
            self.outputDescriptor = fileno(output)
        } catch {
            owned.forEach { _ = fclose($0) }
            throw error
        }
        ownedFiles = owned
        if installsFatalSignalHandlers { cs_install_fatal_signal_handlers() }
        configureTerminal()
        if reportsMouse { _ = cs_enable_mouse() }
    }

    deinit {
        close()
    }

    private static var environmentTerminalType: String {
        getenv("TERM").map { String(cString: $0) } ?? "(TERM is not set)"
    }

    /// Wide characters need a UTF-8 `LC_CTYPE`: the user's, or C.UTF-8 when theirs is not UTF-8.
    private static func selectUTF8Locale() {
        _ = setlocale(LC_ALL, "")
        let current = setlocale(LC_CTYPE, nil).map { String(cString: $0).lowercased() } ?? ""
        if !current.contains("utf-8") && !current.contains("utf8") {
            _ = setlocale(LC_CTYPE, "C.UTF-8")
        }
    }

    /// Asks the terminal on standard input and output how it draws ``EmojiWidths/probeTexts``; the
    /// standard widths when it does not answer within a fifth of a second.
    private static func probeEmojiWidths() -> EmojiWidths {
        var texts = EmojiWidths.probeTexts.map { strdup($0) }
        defer { texts.forEach { free($0) } }
        var widths = [Int32](repeating: -1, count: texts.count)
        let measured = texts.withUnsafeMutableBufferPointer { textPointers in
            textPointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constTexts in
                cs_probe_display_widths(
                    STDIN_FILENO, STDOUT_FILENO, constTexts.baseAddress, Int32(constTexts.count), &widths, 200)
            }
        }
        return measured > 0 ? EmojiWidths(measuredWidths: widths.map(Int.init)) : .standard
    }

    private func configureTerminal() {
        _ = cbreak()
        _ = noecho()
        _ = nonl()
        _ = keypad(window, true)
        _ = nodelay(window, true)
        _ = curs_set(0)
        _ = set_escdelay(25)
        if has_colors() {
            hasColors = start_color() == OK
            defaultColorsWork = hasColors && use_default_colors() == OK
        }
    }

    // MARK: - TerminalScreen

    /// Whether colours are drawn: the terminal has them and `NO_COLOR` is not set. Without them every
    /// colour is dropped and only attributes (bold, underline, reverse, dim) show.
    public var supportsColors: Bool { hasColors && colorsWanted }

    /// The terminal's current size, as ncurses knows it.
    public var size: TerminalSize {
        guard !isClosed else { return .zero }
        var rows: Int32 = 0
        var columns: Int32 = 0
        cs_getmaxyx(window, &rows, &columns)
        return TerminalSize(columns: Int(columns), rows: Int(rows))
    }

    /// Draws `buffer`, sending only the cells that differ from the previously presented frame.
    public func present(_ buffer: ScreenBuffer) {
        guard !isClosed else { return }
        let screenSize = size
        let full = needsFullRedraw || previousFrame?.size != buffer.size
        // A frame that covers the screen overwrites every cell; only a smaller one leaves some to clear.
        if full, buffer.size != screenSize { _ = werase(window) }
        let rows = min(screenSize.rows, buffer.size.rows)
        let columns = min(screenSize.columns, buffer.size.columns)
        var drawn = 0
        let previous = full ? nil : previousFrame
        buffer.cells.withUnsafeBufferPointer { cells in
            (previous?.cells ?? []).withUnsafeBufferPointer { old in
                let width = buffer.size.columns
                for row in 0..<rows {
                    let start = row * width
                    // Most lines of most frames are unchanged: compare whole lines first.
                    if !old.isEmpty, old[start..<(start + width)].elementsEqual(cells[start..<(start + width)]) {
                        continue
                    }
                    for column in 0..<columns where !cells[start + column].isContinuation {
                        if !old.isEmpty, old[start + column] == cells[start + column] { continue }
                        draw(cells[start + column], row: row, column: column)
                        drawn += 1
                    }
                }
            }
        }
        cellsDrawnByLastPresent = drawn
        _ = wnoutrefresh(window)
        _ = doupdate()
        previousFrame = buffer
        needsFullRedraw = false
    }

    /// Makes the next ``present(_:)`` repaint the whole terminal, every cell, as after Ctrl-L: for a
    /// screen that something else drew over.
    public func setNeedsFullRedraw() {
        guard !isClosed else { return }
        needsFullRedraw = true
        _ = clearok(window, true)
    }

    /// Drains the keyboard: every key waiting, and a `.resize` after the window changed size.
    public func readEvents() -> [TerminalEvent] {
        guard !isClosed else { return [] }
        var events: [TerminalEvent] = []
        var value: wint_t = 0
        // Bounded so that a stream that never runs dry cannot stall the main queue.
        for _ in 0..<4096 {
            let status = wget_wch(window, &value)
            if status == ERR { break }
            if status == KEY_CODE_YES {
                if Int32(bitPattern: value) == KEY_MOUSE {
                    if let event = Self.readMouseEvent() { events.append(.mouse(event)) }
                } else if Int32(bitPattern: value) == KEY_RESIZE {
                    needsFullRedraw = true
                    events.append(.resize(size))
                } else if let key = Self.key(forKeyCode: Int32(bitPattern: value)) {
                    events.append(.key(key))
                }
            } else if let key = Self.key(forCharacter: value) {
                events.append(.key(key))
            }
        }
        return events
    }

    // MARK: - Window size

    /// Call when the process receives `SIGWINCH`: reads the new size from the terminal and resizes
    /// ncurses' screens, which then queue a `.resize` event for the next ``readEvents()``.
    public func handleWindowSizeChange() {
        guard !isClosed else { return }
        var rows: Int32 = 0
        var columns: Int32 = 0
        guard cs_terminal_size(outputDescriptor, &rows, &columns) == 0 else { return }
        resize(to: TerminalSize(columns: Int(columns), rows: Int(rows)))
    }

    /// Resizes ncurses' idea of the screen, as after a window-size change; for terminals that cannot
    /// report their size (tests draw into `/dev/null`).
    public func resize(to newSize: TerminalSize) {
        guard !isClosed, !newSize.isEmpty else { return }
        _ = resizeterm(Int32(clamping: newSize.rows), Int32(clamping: newSize.columns))
        needsFullRedraw = true
    }

    // MARK: - Closing

    /// Restores the terminal (leaves full-screen mode, shows the cursor). Safe to call more than once.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = endwin()
        delscreen(screen)
        ownedFiles.forEach { _ = fclose($0) }
    }

    // MARK: - Drawing

    private func draw(_ cell: ScreenCell, row: Int, column: Int) {
        let (attributes, pair) = cursesStyle(for: cell.style)
        if let ascii = cell.character.asciiValue, var complex = lastStyle?.template {
            // The common case, without setcchar: the style's cell with this character.
            complex.chars.0 = wchar_t(ascii)
            _ = mvwadd_wch(window, Int32(row), Int32(column), &complex)
            return
        }
        // One spacing character plus up to four combining marks, then the terminating zero.
        var count = 0
        for scalar in cell.character.unicodeScalars {
            if count == 5 { break }
            characterScratch[count] = wchar_t(bitPattern: scalar.value)
            count += 1
        }
        characterScratch[count] = 0
        var complex = cchar_t()
        var status = characterScratch.withUnsafeBufferPointer { setcchar(&complex, $0.baseAddress, attributes, pair, nil) }
        if status != OK {
            // A sequence of several spacing characters (a joined emoji the terminal draws as one
            // glyph) does not fit an ncurses cell: draw its first character, which keeps the columns.
            characterScratch[1] = 0
            status = characterScratch.withUnsafeBufferPointer { setcchar(&complex, $0.baseAddress, attributes, pair, nil) }
            guard status == OK else { return }
        }
        _ = mvwadd_wch(window, Int32(row), Int32(column), &complex)
    }

    private func cursesStyle(for style: TextStyle) -> (attributes: attr_t, pair: Int16) {
        if let lastStyle, lastStyle.style == style { return (lastStyle.attributes, lastStyle.pair) }
        let result = uncachedCursesStyle(for: style)
        var template = cchar_t()
        var blank: [wchar_t] = [32, 0]
        _ = setcchar(&template, &blank, result.attributes, result.pair, nil)
        lastStyle = (style, result.attributes, result.pair, template)
        return result
    }

    private func uncachedCursesStyle(for style: TextStyle) -> (attributes: attr_t, pair: Int16) {
        if let cached = styleCache[style] { return cached }
        var attributes = cs_a_normal()
        if style.bold { attributes |= cs_a_bold() }
        if style.dim { attributes |= cs_a_dim() }
        if style.reverse { attributes |= cs_a_reverse() }
        if style.underline { attributes |= cs_a_underline() }
        let foreground = colorNumber(style.foreground, isForeground: true)
        if foreground.needsBold, supportsColors { attributes |= cs_a_bold() }
        let background = colorNumber(style.background, isForeground: false)
        let result = (attributes, colorPair(foreground: foreground.number, background: background.number))
        styleCache[style] = result
        return result
    }

    /// The ncurses colour number for `color` (-1 for the terminal default). On 8-colour terminals the
    /// bright colours fall back to their base colour, drawn bold when used as the foreground.
    private func colorNumber(_ color: TerminalColor, isForeground: Bool) -> (number: Int16, needsBold: Bool) {
        guard let index = color.ansiIndex else {
            return (defaultColorsWork ? -1 : (isForeground ? Int16(COLOR_WHITE) : Int16(COLOR_BLACK)), false)
        }
        if index < 8 || cs_colors() >= 16 { return (Int16(index), false) }
        return (Int16(index - 8), isForeground)
    }

    /// The colour pair for a foreground and background, allocated the first time it is needed.
    /// Pair 0 is the terminal's default; when the pairs run out, the default is used.
    private func colorPair(foreground: Int16, background: Int16) -> Int16 {
        guard supportsColors else { return 0 }
        let defaultForeground: Int16 = defaultColorsWork ? -1 : Int16(COLOR_WHITE)
        let defaultBackground: Int16 = defaultColorsWork ? -1 : Int16(COLOR_BLACK)
        if foreground == defaultForeground && background == defaultBackground { return 0 }
        let key = ColorPairKey(foreground: foreground, background: background)
        if let pair = colorPairs[key] { return pair }
        let next = colorPairs.count + 1
        guard next < min(Int(cs_color_pairs()), Int(Int16.max)),
            init_pair(Int16(next), foreground, background) == OK
        else { return 0 }
        colorPairs[key] = Int16(next)
        return Int16(next)
    }

    // MARK: - Test support

    /// Pushes `key` back into ncurses' input queue, as if it had been typed (tests).
    func simulateKeyPress(_ key: Key) {
        if case .character(let character) = key, let scalar = character.unicodeScalars.first {
            _ = unget_wch(wchar_t(bitPattern: scalar.value))
        } else if let code = Self.keyCodes.first(where: { $0.key == key })?.code {
            _ = ungetch(code)
        } else if let value = Self.characterCodes[key] {
            _ = unget_wch(value)
        }
    }

    private static let characterCodes: [Key: wchar_t] = [.enter: 13, .escape: 27, .backspace: 127, .tab: 9]

    /// The text ncurses holds for line `row` of its virtual screen, trailing spaces removed (tests).
    func textOfLine(_ row: Int) -> String {
        let width = size.columns
        guard !isClosed, width > 0 else { return "" }
        var characters = [wchar_t](repeating: 0, count: width + 1)
        _ = mvwinnwstr(window, Int32(row), 0, &characters, Int32(width))
        let scalars = characters.prefix { $0 != 0 }.compactMap { Unicode.Scalar(UInt32(bitPattern: $0)) }
        var line = String(String.UnicodeScalarView(scalars))
        while line.last == " " { line.removeLast() }
        return line
    }
}
