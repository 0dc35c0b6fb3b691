#ifndef THUMBD_CBUILDINFO_H
#define THUMBD_CBUILDINFO_H

/// The commit thumbd was built from, or "unknown" (see CBuildInfo.c).
const char *cbuildinfo_commit(void);

#endif
