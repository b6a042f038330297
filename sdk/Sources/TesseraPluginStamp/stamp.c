/*
 * The stamp every plugin carries. This file is compiled into each plugin (the SDK's static product
 * `TesseraPluginStamp`), so the values below are the ones of the SDK headers and the compiler that
 * built *the plugin*, not of whatever SDK is loaded at run time.
 *
 * `used` and `retain` keep the record through the compiler and the linker's --gc-sections.
 */
#include "tessera_plugin_stamp.h"

__attribute__((used, retain, section(TESSERA_STAMP_SECTION), visibility("hidden")))
const tessera_stamp_t tessera_stamp_record = {
    TESSERA_STAMP_MAGIC,
    sizeof(tessera_stamp_t),
    TESSERA_SDK_ABI_MAJOR,
    TESSERA_SDK_ABI_MINOR,
    __clang_version__,
    {0, 0, 0, 0},
};

/* Hidden, so that each image's own code reads its own stamp: a plugin must never bind to the host's
 * (or another plugin's) copy of this function through the dynamic symbol table. */
__attribute__((visibility("hidden")))
const tessera_stamp_t *tessera_plugin_stamp(void) { return &tessera_stamp_record; }
