// CTesseraImage.h: a mapped image's build ID, read from its notes in memory.
#define _GNU_SOURCE
#include "CTesseraImage.h"

#include <link.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uintptr_t address;
    unsigned char *out;
    size_t capacity;
    long answer;
} search_t;

static int holds(const struct dl_phdr_info *info, uintptr_t address) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        if (segment->p_type == PT_LOAD && address >= start && address - start < segment->p_memsz) return 1;
    }
    return 0;
}

// The build ID among one note segment's notes, or 0. Notes are padded to the segment's
// alignment: 4 bytes, or 8 in a segment aligned to 8 (as `.note.gnu.property` is).
static long build_id_in(const unsigned char *notes, size_t size, size_t alignment, search_t *search) {
    size_t pad = alignment == 8 ? 7 : 3;
    size_t offset = 0;
    while (offset + sizeof(ElfW(Nhdr)) <= size) {
        const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)(notes + offset);
        size_t name = offset + sizeof(ElfW(Nhdr));
        size_t desc = (name + note->n_namesz + pad) & ~pad;
        if (desc + note->n_descsz > size) return 0;
        if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(notes + name, "GNU", 4) == 0) {
            size_t count = note->n_descsz < search->capacity ? note->n_descsz : search->capacity;
            memcpy(search->out, notes + desc, count);
            return (long)note->n_descsz;
        }
        offset = (desc + note->n_descsz + pad) & ~pad;
    }
    return 0;
}

static int visit(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    search_t *search = data;
    if (!holds(info, search->address)) return 0;
    search->answer = 0;
    for (int i = 0; i < info->dlpi_phnum && search->answer == 0; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_NOTE) continue;
        const unsigned char *notes = (const unsigned char *)(info->dlpi_addr + segment->p_vaddr);
        search->answer = build_id_in(notes, segment->p_memsz, segment->p_align, search);
    }
    return 1;
}

long tessera_image_build_id(const void *address, unsigned char *out, size_t capacity) {
    search_t search = { (uintptr_t)address, out, capacity, -1 };
    dl_iterate_phdr(visit, &search);
    return search.answer;
}
