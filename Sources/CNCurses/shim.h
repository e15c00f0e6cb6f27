#ifndef CNCURSES_SHIM_H
#define CNCURSES_SHIM_H
// The wide-character API (cchar_t, add_wch, get_wch, ...) is declared only with NCURSES_WIDECHAR.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>
#endif
