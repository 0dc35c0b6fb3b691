#ifndef THUMBD_CAVIF_SHIM_H
#define THUMBD_CAVIF_SHIM_H
#include <avif/avif.h>
#endif
