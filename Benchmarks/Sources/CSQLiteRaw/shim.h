#include <sqlite3.h>
#include <fcntl.h>
