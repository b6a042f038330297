#ifndef TESSERA_PLUGIN_STAMP_H
#define TESSERA_PLUGIN_STAMP_H
#include "../../CTesseraABI/include/tessera_abi.h"
#endif
