#ifndef THUMBD_CFASTCGI_SHIM_H
#define THUMBD_CFASTCGI_SHIM_H
#include <stdio.h>
#include <fcgiapp.h>
#endif
