#ifndef CCURSES_SHIM_H
#define CCURSES_SHIM_H
// C helpers for what Swift cannot import from ncurses: function-like macros (A_BOLD, getmaxyx,
// COLOR_PAIR as attr_t), globals that Swift 6 rejects (stdscr, COLORS, COLOR_PAIRS), the TIOCGWINSZ
// ioctl, and a fatal-signal handler that restores the terminal before a crash report.
//
// Every body lives in shim.c on purpose: editing a static inline body in a header does not trigger a
// rebuild of the Swift code that uses it.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <stddef.h>
#include <wchar.h>
#include <ncursesw/curses.h>

/// The standard screen of the current terminal (ncurses' `stdscr` global).
WINDOW *cs_stdscr(void);
/// `getmaxyx` as a function: the number of rows and columns of `window`.
void cs_getmaxyx(const WINDOW *window, int *rows, int *columns);
/// The number of colours and colour pairs the terminal supports (the `COLORS` and `COLOR_PAIRS` globals).
int cs_colors(void);
int cs_color_pairs(void);

/// Attribute bits (the `A_*` macros).
attr_t cs_a_normal(void);
attr_t cs_a_bold(void);
attr_t cs_a_dim(void);
attr_t cs_a_reverse(void);
attr_t cs_a_underline(void);

/// `KEY_F(n)`.
int cs_key_f(int n);

/// The size of the terminal behind `fd` via `ioctl(TIOCGWINSZ)`. Returns 0 and fills rows and columns
/// on success, -1 when `fd` is not a terminal or the call fails.
int cs_terminal_size(int fd, int *rows, int *columns);

/// Installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT and SIGFPE that call `endwin()`
/// and then re-raise the signal with its default action, so that a crash (a Swift trap included)
/// never leaves the terminal in raw mode on the alternate screen.
void cs_install_fatal_signal_handlers(void);

/// glibc's `wcwidth` (hidden from Swift's Glibc module). Only meaningful after `setlocale`.
int cs_wcwidth(wchar_t c);

/// Sends the process `sig` with its default action restored and unblocked, so that it ends the way a
/// shell reports as 128 + `sig`; if the process is still alive shortly after (the default action of
/// `sig` does not terminate), exits with status 128 + `sig`. Never returns.
void cs_die_by_signal(int sig) __attribute__((noreturn));

/// Turns on mouse reports for button-1 presses and the scroll wheel. Returns 1 when the terminal can
/// report the mouse, 0 otherwise.
int cs_enable_mouse(void);

/// Reads the mouse event ncurses queued with `KEY_MOUSE`. Returns 0 and fills `column` and `row` with
/// the cell, and `kind` with 1 for a button-1 press or click, 2 for wheel up, 3 for wheel down (0 for
/// anything else); returns -1 when there is no event to read.
int cs_read_mouse(int *column, int *row, int *kind);

/// Asks the terminal how many cells each of `count` UTF-8 texts takes when printed, by printing it at
/// the start of the line and requesting a cursor position report (`ESC [ 6 n`). Runs before ncurses
/// takes the terminal: switches `input_fd` to raw mode for the duration, erases what it printed, and
/// restores the terminal settings. `widths[i]` is the width, or -1 when the terminal did not answer
/// within `timeout_ms` milliseconds (the remaining texts are then not tried). Returns how many texts
/// were measured; 0 when either descriptor is not a terminal.
int cs_probe_display_widths(int input_fd, int output_fd, const char *const *texts, int count, int *widths,
    int timeout_ms);
#endif
