// What the dynamic linker knows about the images mapped in this process, for what Swift's Glibc
// module does not import (`dl_iterate_phdr` needs `_GNU_SOURCE`).
#ifndef CTESSERA_IMAGE_H
#define CTESSERA_IMAGE_H

#include <stddef.h>

/// The GNU build ID (`.note.gnu.build-id`, written by the linker) of the mapped image — the
/// executable or a shared library — whose segments hold `address`. Copies at most `capacity`
/// bytes of it to `out` and returns its length; 0 when the image has no build ID, -1 when no
/// mapped image holds `address`. Reads only the mapped program headers and notes: no file is opened.
long tessera_image_build_id(const void *address, unsigned char *out, size_t capacity);

#endif
