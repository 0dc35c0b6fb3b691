// What the build was told about itself. Swift takes no string from the build's command line, C's
// preprocessor does. deploy/package writes the package's version and commit into a header,
// thumbd_build_info.h, and builds with -Xcc -I naming its directory: the compiler's command lines
// stay the same from one commit to the next, so a new commit recompiles this file alone, not
// every module (a -D on the command line would change them all). Other builds have no such header
// and say the source's release and "unknown".
#include "CBuildInfo.h"

#if __has_include(<thumbd_build_info.h>)
#include <thumbd_build_info.h>
#endif

#ifndef BUILD_INFO_VERSION
#define BUILD_INFO_VERSION ""
#endif
#ifndef BUILD_INFO_COMMIT
#define BUILD_INFO_COMMIT "unknown"
#endif

const char *cbuildinfo_version(void) {
    return BUILD_INFO_VERSION;
}

const char *cbuildinfo_commit(void) {
    return BUILD_INFO_COMMIT;
}
