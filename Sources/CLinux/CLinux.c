// Everything is in include/CLinux.h; SwiftPM builds a C target only from a source file.
#include "CLinux.h"
