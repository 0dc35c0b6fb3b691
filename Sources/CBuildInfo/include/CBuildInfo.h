#ifndef THUMBD_CBUILDINFO_H
#define THUMBD_CBUILDINFO_H

/// The version the build was given (deploy/package: the package's), or "" (see CBuildInfo.c).
const char *cbuildinfo_version(void);

/// The commit thumbd was built from, or "unknown" (see CBuildInfo.c).
const char *cbuildinfo_commit(void);

#endif
