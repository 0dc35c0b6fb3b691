#ifndef THUMBD_CLITTLECMS_SHIM_H
#define THUMBD_CLITTLECMS_SHIM_H
#include <lcms2.h>
#endif
