// What the build was told about itself. Swift takes no string from the build's command line, C's
// preprocessor does: deploy/package and deploy/common.sh build with
// -Xcc -DTHUMBD_COMMIT='"<git commit>"'; other builds say "unknown".
#include "CBuildInfo.h"

#ifndef THUMBD_COMMIT
#define THUMBD_COMMIT "unknown"
#endif

const char *cbuildinfo_commit(void) {
    return THUMBD_COMMIT;
}
