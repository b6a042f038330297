/*
 * tessera_c_notes.h — the one symbol the C Notes plugin library exports: its entry, as
 * tessera_plugin.h describes it (TESSERA_C_ENTRY_SYMBOL). Everything else in the library is
 * hidden, so the host, which looks up nothing else, can find nothing else.
 */
#ifndef TESSERA_C_NOTES_H
#define TESSERA_C_NOTES_H

#include <stdint.h>

#include "tessera_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin's table of functions, or NULL for a host of another C ABI major. */
__attribute__((visibility("default")))
const tessera_plugin_api_t *tessera_c_plugin_entry(uint32_t host_c_abi_major, uint32_t host_c_abi_minor);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_NOTES_H */
