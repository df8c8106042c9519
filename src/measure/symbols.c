#include "measure/symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/profile.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "measure/sample.h"

struct sym {
	uint64_t start, end; /* ELF virtual addresses */
	char *name;
};

struct seg {
	uint64_t offset, filesz, vaddr;
};

struct elf_file {
	char *path;
	int ok; /* read successfully */
	struct sym *syms;
	size_t nr_syms;
	struct seg *segs;
	size_t nr_segs;
};

struct symbols {
	struct elf_file *files;
	size_t nr_files, alloc_files;
};

struct symbols *symbols_new(void)
{
	return xcalloc(1, sizeof(struct symbols));
}

void symbols_free(struct symbols *sy)
{
	if (!sy)
		return;
	for (size_t i = 0; i < sy->nr_files; i++) {
		struct elf_file *f = &sy->files[i];
		for (size_t j = 0; j < f->nr_syms; j++)
			free(f->syms[j].name);
		free(f->syms);
		free(f->segs);
		free(f->path);
	}
	free(sy->files);
	free(sy);
}

char *symbols_binary_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(base);
	static const char deleted[] = " (deleted)";
	if (n > sizeof(deleted) - 1 && !strcmp(base + n - (sizeof(deleted) - 1), deleted))
		n -= sizeof(deleted) - 1;
	return n ? xstrndup(base, n) : xstrdup(path);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Same address: the sized one first (it is kept). */
	return (y->end > y->start) - (x->end > x->start);
}

static void read_symtab(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct elf_file *f, size_t *alloc)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			break;
		int type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
		    !s.st_value)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		ALLOC_GROW(f->syms, f->nr_syms + 1, *alloc);
		f->syms[f->nr_syms++] = (struct sym){
		    .start = s.st_value, .end = s.st_value + s.st_size, .name = xstrdup(name)};
	}
}

static void load_file(struct elf_file *f)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	size_t nph = 0;
	if (elf_getphdrnum(elf, &nph) == 0) {
		f->segs = xcalloc(nph ? nph : 1, sizeof(*f->segs));
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
				f->segs[f->nr_segs++] =
				    (struct seg){ph.p_offset, ph.p_filesz, ph.p_vaddr};
		}
	}
	size_t alloc = 0;
	int have_symtab = 0;
	/* .symtab holds static functions too; .dynsym only exported ones,
	   but it survives `strip`. Read both and keep one per address. */
	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				continue;
			if ((pass == 0 && sh.sh_type == SHT_SYMTAB) ||
			    (pass == 1 && sh.sh_type == SHT_DYNSYM)) {
				read_symtab(elf, scn, &sh, f, &alloc);
				have_symtab |= pass == 0;
			}
		}
	}
	qsort(f->syms, f->nr_syms, sizeof(*f->syms), cmp_sym);
	size_t n = 0;
	for (size_t i = 0; i < f->nr_syms; i++) {
		if (n && f->syms[n - 1].start == f->syms[i].start) {
			free(f->syms[i].name);
			continue;
		}
		f->syms[n++] = f->syms[i];
	}
	f->nr_syms = n;
	/* Size 0 (hand-written assembly): up to the next symbol. */
	for (size_t i = 0; i < n; i++)
		if (f->syms[i].end <= f->syms[i].start)
			f->syms[i].end = i + 1 < n ? f->syms[i + 1].start : f->syms[i].start + 1;
	f->ok = 1;
out:
	if (elf)
		elf_end(elf);
	close(fd);
}

static struct elf_file *get_file(struct symbols *sy, const char *path)
{
	for (size_t i = 0; i < sy->nr_files; i++)
		if (!strcmp(sy->files[i].path, path))
			return &sy->files[i];
	ALLOC_GROW(sy->files, sy->nr_files + 1, sy->alloc_files);
	struct elf_file *f = &sy->files[sy->nr_files++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	if (path[0] == '/' && elf_version(EV_CURRENT) != EV_NONE)
		load_file(f);
	return f;
}

const char *symbols_lookup_file(struct symbols *sy, const char *path, uint64_t file_offset)
{
	struct elf_file *f = get_file(sy, path);
	if (!f->ok)
		return NULL;
	uint64_t vaddr = 0;
	int found = 0;
	for (size_t i = 0; i < f->nr_segs; i++) {
		const struct seg *s = &f->segs[i];
		if (file_offset >= s->offset && file_offset < s->offset + s->filesz) {
			vaddr = file_offset - s->offset + s->vaddr;
			found = 1;
			break;
		}
	}
	if (!found)
		return NULL;
	size_t lo = 0, hi = f->nr_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct sym *s = &f->syms[lo - 1];
	return vaddr < s->end ? s->name : NULL;
}

/* ---- mappings per process ------------------------------------------------ */

struct lookup {
	const struct sample_data *d;
	size_t *order; /* maps sorted by (pid, time) */
};

static int cmp_map(const void *a, const void *b, void *ctx)
{
	const struct sample_data *d = ctx;
	const struct sample_map *x = &d->maps[*(const size_t *)a];
	const struct sample_map *y = &d->maps[*(const size_t *)b];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The last exec of pid at or before time (0: none seen). */
static uint64_t last_exec(const struct sample_data *d, uint32_t pid, uint64_t time)
{
	uint64_t t = 0;
	for (size_t i = 0; i < d->nr_tasks; i++) {
		const struct sample_task *k = &d->tasks[i];
		if (k->kind == SAMPLE_TASK_EXEC && k->pid == pid && k->time <= time && k->time >= t)
			t = k->time;
	}
	return t;
}

static const struct sample_map *find_map(const struct lookup *lk, uint32_t pid, uint64_t time,
					 uint64_t addr, int depth)
{
	const struct sample_data *d = lk->d;
	size_t lo = 0, hi = d->nr_maps;
	while (lo < hi) { /* first map of pid */
		size_t mid = lo + (hi - lo) / 2;
		if (d->maps[lk->order[mid]].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t since = last_exec(d, pid, time);
	const struct sample_map *best = NULL;
	for (size_t i = lo; i < d->nr_maps && d->maps[lk->order[i]].pid == pid; i++) {
		const struct sample_map *m = &d->maps[lk->order[i]];
		if (m->time > time)
			break;
		if (m->time < since)
			continue;
		if (addr >= m->start && addr - m->start < m->len)
			best = m; /* the latest mapping there wins */
	}
	/* After an exec, the parent's mappings are gone. */
	if (best || depth > 16 || since)
		return best;
	for (size_t i = 0; i < d->nr_tasks; i++) {
		const struct sample_task *k = &d->tasks[i];
		if (k->kind == SAMPLE_TASK_FORK && k->pid == pid && k->time <= time)
			return find_map(lk, k->ppid, k->time, addr, depth + 1);
	}
	return NULL;
}

size_t symbols_aggregate(struct symbols *sy, const struct sample_data *d, struct profile_set *ps,
			 struct profile_run *r)
{
	struct lookup lk = {.d = d};
	lk.order = xcalloc(d->nr_maps ? d->nr_maps : 1, sizeof(size_t));
	for (size_t i = 0; i < d->nr_maps; i++)
		lk.order[i] = i;
	qsort_r(lk.order, d->nr_maps, sizeof(size_t), cmp_map, (void *)d);

	size_t unresolved = 0, alloc = 0;
	size_t *frames = NULL;
	struct sbuf name = SBUF_INIT;
	for (size_t i = 0; i < d->nr_samples; i++) {
		const struct sample_rec *s = &d->samples[i];
		ALLOC_GROW(frames, s->nr_ips, alloc);
		for (size_t j = 0; j < s->nr_ips; j++) {
			uint64_t addr = d->ips[s->ip + j] - (j ? 1 : 0);
			const struct sample_map *m = find_map(&lk, s->pid, s->time, addr, 0);
			if (!m) {
				unresolved++;
				frames[j] = profile_func_intern(ps, "[unknown]", "[unknown]");
				continue;
			}
			char *bin = symbols_binary_name(m->path);
			const char *fn =
			    symbols_lookup_file(sy, m->path, addr - m->start + m->pgoff);
			if (!fn) {
				unresolved++;
				sbuf_reset(&name);
				sbuf_addf(&name, "[unknown in %s]", bin);
				fn = name.buf;
			}
			frames[j] = profile_func_intern(ps, fn, bin);
			free(bin);
		}
		profile_run_sample(ps, r, frames, s->nr_ips);
	}
	sbuf_release(&name);
	free(frames);
	free(lk.order);
	return unresolved;
}
