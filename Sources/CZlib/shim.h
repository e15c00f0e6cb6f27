// zlib, for inflating the raw DEFLATE streams Core Data writes (a store's Z_MODELCACHE).
#include <zlib.h>
