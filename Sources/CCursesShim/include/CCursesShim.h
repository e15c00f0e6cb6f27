#ifndef CCURSES_SHIM_H
#define CCURSES_SHIM_H
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <stddef.h>
#include <wchar.h>
#include <ncursesw/curses.h>
int cs_wcwidth(wchar_t c);
#endif
