/* CTesseraABI is a header-only target; SwiftPM needs one source file to build it. */
#include "tessera_abi.h"
