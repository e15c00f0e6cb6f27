#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
// The parts of libxml2 that the model loader uses: the parser (with its per-context error record) and the
// tree it builds. Include paths come from pkg-config (`libxml-2.0`: -I/usr/include/libxml2).

// Debian builds libxml2 with ICU, so libxml/encoding.h pulls in the system's <unicode/ucnv.h>, whose enums
// clash with the ICU copy that Foundation ships (_FoundationICU) in a module that imports both. The loader
// never touches encoding handlers (the only structure whose layout ICU changes; everything else holds it by
// pointer), so the ICU part of the headers is left out.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

// `xmlFree` is a global function-pointer variable, which Swift 6 refuses to read from concurrent code.
static inline void clibxml2_free(void *pointer) { xmlFree(pointer); }
#endif
