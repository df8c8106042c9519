/*
 * measure/symbols: from sampled addresses to (function, binary), and from
 * a run's samples to its per-function counts and folded stacks.
 *
 * An address of process P at time T is looked up in the executable
 * mappings P had then (MMAP2 records since its last exec; before its own
 * first mapping, the parent's as at the fork). Its file offset (address -
 * mapping start + the mapping's pgoff) is turned into the ELF's virtual
 * address through the PT_LOAD segment that holds that offset, which makes
 * position-independent executables, shared libraries and ASLR all one case.
 * The function is the ELF symbol (STT_FUNC or IFUNC, from `.symtab` when
 * the file has one, and `.dynsym`) whose [value, value + size) holds the
 * address; a symbol of size 0 reaches to the next one.
 *
 * Nothing is dropped: an address in a mapped file without a symbol for it
 * (a stripped binary, a file deleted or replaced since, [vdso], JIT code)
 * is counted as "[unknown in NAME]" of binary NAME (the file name of the
 * mapping), and an address outside every known mapping as "[unknown]" of
 * binary "[unknown]".
 *
 * Return addresses (every frame but the leaf) are looked up at address - 1,
 * inside the call instruction, so that a call that ends a function is not
 * attributed to the next one.
 *
 * Call order:
 *
 *	struct symbols *sy = symbols_new();      ELF files are read once
 *	per run: symbols_aggregate(sy, &data, &set, run);
 *	symbols_free(sy);
 */
#ifndef KAGARI_MEASURE_SYMBOLS_H
#define KAGARI_MEASURE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct profile_run;
struct profile_set;
struct sample_data;

struct symbols;

struct symbols *symbols_new(void);
void symbols_free(struct symbols *sy);

/*
 * The function holding vaddr-translated `file_offset` in the ELF file
 * `path`: its name (owned by sy, valid until symbols_free), or NULL when
 * the file cannot be read or has no symbol there.
 */
const char *symbols_lookup_file(struct symbols *sy, const char *path, uint64_t file_offset);

/* The display name of a binary: the last path component, without a
   " (deleted)" suffix, into a buffer owned by the caller (freed by it). */
char *symbols_binary_name(const char *path);

/*
 * Add every sample of d to run r of ps (see the header comment). Returns
 * the number of frames that could not be resolved to a symbol.
 */
size_t symbols_aggregate(struct symbols *sy, const struct sample_data *d, struct profile_set *ps,
			 struct profile_run *r);

#endif
