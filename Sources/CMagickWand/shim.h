#ifndef THUMBD_CMAGICKWAND_SHIM_H
#define THUMBD_CMAGICKWAND_SHIM_H
/* SwiftPM drops pkg-config's -D flags; these match Debian's ImageMagick 6 Q16 build. */
#define MAGICKCORE_QUANTUM_DEPTH 16
#define MAGICKCORE_HDRI_ENABLE 0
/* libc first, or this module and others disagree about fd_set and FILE. */
#include <sys/types.h>
#include <sys/select.h>
#include <sys/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <wand/MagickWand.h>
#endif
