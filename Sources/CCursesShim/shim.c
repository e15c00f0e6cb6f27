#define _XOPEN_SOURCE 700
#include <wchar.h>
#include "CCursesShim.h"
int cs_wcwidth(wchar_t c) { return wcwidth(c); }
