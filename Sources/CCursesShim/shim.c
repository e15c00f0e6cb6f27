#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE 1
#include <wchar.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include "CCursesShim.h"

WINDOW *cs_stdscr(void) { return stdscr; }

void cs_getmaxyx(const WINDOW *window, int *rows, int *columns) {
    int y = 0, x = 0;
    if (window != NULL) { getmaxyx(window, y, x); }
    *rows = y;
    *columns = x;
}

int cs_colors(void) { return COLORS; }
int cs_color_pairs(void) { return COLOR_PAIRS; }

attr_t cs_a_normal(void) { return A_NORMAL; }
attr_t cs_a_bold(void) { return A_BOLD; }
attr_t cs_a_dim(void) { return A_DIM; }
attr_t cs_a_reverse(void) { return A_REVERSE; }
attr_t cs_a_underline(void) { return A_UNDERLINE; }

int cs_key_f(int n) { return KEY_F(n); }

int cs_terminal_size(int fd, int *rows, int *columns) {
    struct winsize size;
    memset(&size, 0, sizeof size);
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 || size.ws_col == 0) { return -1; }
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}

static void cs_restore_terminal_and_reraise(int sig) {
    endwin();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cs_install_fatal_signal_handlers(void) {
    static const int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = cs_restore_terminal_and_reraise;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        sigaction(signals[i], &action, NULL);
    }
}

int cs_wcwidth(wchar_t c) { return wcwidth(c); }
