#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE 1
#include <wchar.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <poll.h>
#include <pthread.h>
#include <termios.h>
#include <unistd.h>
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

void cs_die_by_signal(int sig) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    kill(getpid(), sig);
    /* Delivery is asynchronous for a process-directed signal: give it a moment. */
    for (int i = 0; i < 50; i++) { usleep(10000); }
    _exit(128 + sig);
}

int cs_enable_mouse(void) {
    mmask_t wanted = BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
    wanted |= BUTTON5_PRESSED;
#endif
    mouseinterval(0);
    return mousemask(wanted, NULL) != 0 ? 1 : 0;
}

int cs_read_mouse(int *column, int *row, int *kind) {
    MEVENT event;
    if (getmouse(&event) != OK) { return -1; }
    *column = event.x;
    *row = event.y;
    if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) {
        *kind = 1;
    } else if (event.bstate & BUTTON4_PRESSED) {
        *kind = 2;
#ifdef BUTTON5_PRESSED
    } else if (event.bstate & BUTTON5_PRESSED) {
        *kind = 3;
#endif
    } else {
        *kind = 0;
    }
    return 0;
}

/* Reads a cursor position report `ESC [ row ; column R` within `timeout_ms`; returns the column or -1. */
static int cs_read_cursor_column(int fd, int timeout_ms) {
    char reply[32];
    size_t used = 0;
    while (used < sizeof reply - 1) {
        struct pollfd poller = { .fd = fd, .events = POLLIN, .revents = 0 };
        if (poll(&poller, 1, timeout_ms) <= 0) { return -1; }
        ssize_t got = read(fd, reply + used, 1);
        if (got <= 0) { return -1; }
        if (used == 0 && reply[0] != '\033') { continue; } /* typed-ahead keys: dropped */
        used++;
        if (reply[used - 1] == 'R') { break; }
    }
    reply[used] = '\0';
    int row = 0, column = 0;
    if (sscanf(reply, "\033[%d;%dR", &row, &column) != 2) { return -1; }
    return column;
}

static void cs_write_all(int fd, const char *text) {
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t written = write(fd, text, length);
        if (written <= 0) { return; }
        text += written;
        length -= (size_t)written;
    }
}

int cs_probe_display_widths(int input_fd, int output_fd, const char *const *texts, int count, int *widths,
    int timeout_ms) {
    for (int i = 0; i < count; i++) { widths[i] = -1; }
    if (!isatty(input_fd) || !isatty(output_fd)) { return 0; }
    struct termios saved, raw;
    if (tcgetattr(input_fd, &saved) != 0) { return 0; }
    raw = saved;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(input_fd, TCSANOW, &raw) != 0) { return 0; }
    int measured = 0;
    for (int i = 0; i < count; i++) {
        cs_write_all(output_fd, "\r");
        cs_write_all(output_fd, texts[i]);
        cs_write_all(output_fd, "\033[6n");
        int column = cs_read_cursor_column(input_fd, timeout_ms);
        cs_write_all(output_fd, "\r\033[K");
        if (column < 1) { break; }
        widths[i] = column - 1;
        measured++;
    }
    tcsetattr(input_fd, TCSANOW, &saved);
    return measured;
}
