#ifndef THUMBD_CIMAGEQUANT_SHIM_H
#define THUMBD_CIMAGEQUANT_SHIM_H
#include <libimagequant.h>
#endif
