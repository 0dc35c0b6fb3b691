// Everything is in include/CSharedMemory.h; SwiftPM builds a C target only from a source file.
#include "CSharedMemory.h"
