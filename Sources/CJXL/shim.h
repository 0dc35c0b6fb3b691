#ifndef THUMBD_CJXL_SHIM_H
#define THUMBD_CJXL_SHIM_H
#include <jxl/encode.h>
#endif
