/*
 * proc/child_spawn: resolving a program on PATH the way execvp would
 * (child_check_program()), the reason a spawn failed, and the cached
 * posix_spawn attributes and file actions of a run.
 */
#include "proc/child_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

extern char **environ;

static const char *env_get(const char *const *envp, const char *name)
{
	size_t n = strlen(name);
	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* `path` as seen from the child's working directory, for checks here. */
static void from_dir(struct sbuf *out, const char *dir, const char *path)
{
	sbuf_reset(out);
	if (dir && path[0] != '/') {
		sbuf_adds(out, dir);
		sbuf_addch(out, '/');
	}
	sbuf_adds(out, path);
}

/*
 * Find the program to spawn. A name with a slash is used as is (relative
 * paths resolve in the child, after its chdir); otherwise search the PATH of
 * the child's environment, like execvp but with the child's PATH rather than
 * ours. Returns 0 with the path in `path`, or -1 with *eno and a reason.
 */
int child_resolve_program(const char *prog, const char *dir, const char *const *envp,
			  struct sbuf *path, int *eno, struct sbuf *err)
{
	sbuf_reset(path);
	if (strchr(prog, '/')) {
		sbuf_adds(path, prog);
		return 0;
	}
	if (!*prog) {
		*eno = ENOENT;
		sbuf_adds(err, "empty program name");
		return -1;
	}
	const char *search = env_get(envp, "PATH");
	if (!search)
		search = "/bin:/usr/bin";
	struct sbuf check = SBUF_INIT, denied = SBUF_INIT;
	int found = 0;
	for (const char *p = search;; p++) {
		const char *end = strchrnul(p, ':');
		sbuf_reset(path);
		if (end == p)
			sbuf_addch(path, '.');
		else
			sbuf_add(path, p, (size_t)(end - p));
		sbuf_addch(path, '/');
		sbuf_adds(path, prog);
		from_dir(&check, dir, path->buf);
		struct stat st;
		if (!stat(check.buf, &st) && S_ISREG(st.st_mode)) {
			if (!access(check.buf, X_OK)) {
				found = 1;
				break;
			}
			if (!denied.len)
				sbuf_adds(&denied, check.buf);
		}
		if (!*end)
			break;
		p = end;
	}
	if (!found) {
		if (denied.len) {
			*eno = EACCES;
			sbuf_addf(err,
				  "cannot run '%s': permission denied "
				  "(not executable)",
				  denied.buf);
		} else {
			*eno = ENOENT;
			sbuf_addf(err,
				  "command not found: '%s' (searched "
				  "PATH=%s)",
				  prog, search);
		}
	}
	sbuf_release(&check);
	sbuf_release(&denied);
	return found ? 0 : -1;
}

void child_spawn_reason(int eno, const char *prog, const char *dir, struct sbuf *err)
{
	struct stat st;
	if (dir && (eno == ENOENT || eno == ENOTDIR || eno == EACCES) &&
	    (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
		sbuf_addf(err, "cannot change to directory '%s': %s", dir,
			  strerror(errno ? errno : ENOTDIR));
		return;
	}
	struct sbuf shown = SBUF_INIT;
	from_dir(&shown, dir, prog);
	switch (eno) {
	case ENOENT:
		sbuf_addf(err, "cannot run '%s': no such file", shown.buf);
		break;
	case EACCES:
		if (!stat(shown.buf, &st) && S_ISDIR(st.st_mode))
			sbuf_addf(err, "cannot run '%s': is a directory", shown.buf);
		else
			sbuf_addf(err,
				  "cannot run '%s': permission denied "
				  "(not executable)",
				  shown.buf);
		break;
	case ENOEXEC:
		sbuf_addf(err,
			  "cannot run '%s': exec format error "
			  "(a script without a #! line?)",
			  shown.buf);
		break;
	default:
		sbuf_addf(err, "cannot run '%s': %s", shown.buf, strerror(eno));
	}
	sbuf_release(&shown);
}

int child_check_program(const char *prog, const char *dir, const char *const *envp,
			struct sbuf *err)
{
	struct sbuf path = SBUF_INIT, full = SBUF_INIT;
	int eno = 0, rc = 0;
	if (!envp)
		envp = (const char *const *)environ;
	if (child_resolve_program(prog, dir, envp, &path, &eno, err)) {
		rc = -1;
	} else if (strchr(prog, '/')) {
		/* What posix_spawn would find after the child's chdir. */
		struct stat st;
		from_dir(&full, dir, prog);
		if (stat(full.buf, &st) < 0)
			eno = errno == ENOTDIR ? ENOTDIR : ENOENT;
		else if (!S_ISREG(st.st_mode) || access(full.buf, X_OK) < 0)
			eno = EACCES;
		if (eno) {
			child_spawn_reason(eno, prog, dir, err);
			rc = -1;
		}
	}
	sbuf_release(&path);
	sbuf_release(&full);
	return rc;
}

/*
 * posix_spawn attributes and file actions are built once and reused while
 * they stay the same (measured runs repeat one command with the cached
 * /dev/null and tail descriptors): building them costs allocations and a
 * getrlimit per action, every run.
 */
static posix_spawnattr_t spawn_attrs[3];
static int spawn_attrs_ready[3];

/* own_group: 0 = our group, 1 = a new group, 2 = a new session (setsid). */
posix_spawnattr_t *child_spawn_attr(int own_group)
{
	posix_spawnattr_t *attr = &spawn_attrs[own_group];
	if (!spawn_attrs_ready[own_group]) {
		sigset_t none, all;
		short sflags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
		posix_spawnattr_init(attr);
		sigemptyset(&none);
		sigfillset(&all);
		posix_spawnattr_setsigmask(attr, &none);
		posix_spawnattr_setsigdefault(attr, &all);
		if (own_group == 2) {
			sflags |= POSIX_SPAWN_SETSID;
		} else if (own_group) {
			sflags |= POSIX_SPAWN_SETPGROUP;
			posix_spawnattr_setpgroup(attr, 0);
		}
		posix_spawnattr_setflags(attr, sflags);
		spawn_attrs_ready[own_group] = 1;
	}
	return attr;
}

static struct {
	int ready;
	int in, out, err; /* the fds dup'ed onto 0-2 (-1: inherited) */
	int has_dir;
	struct sbuf dir;
	posix_spawn_file_actions_t fa;
} spawn_fa = {.dir = SBUF_INIT};

posix_spawn_file_actions_t *child_spawn_actions(const struct run_fds *f, const char *dir)
{
	if (spawn_fa.ready && spawn_fa.in == f->in && spawn_fa.out == f->out &&
	    spawn_fa.err == f->err && spawn_fa.has_dir == !!dir &&
	    (!dir || !strcmp(spawn_fa.dir.buf, dir)))
		return &spawn_fa.fa;
	if (spawn_fa.ready)
		posix_spawn_file_actions_destroy(&spawn_fa.fa);
	posix_spawn_file_actions_init(&spawn_fa.fa);
	if (f->in >= 0)
		posix_spawn_file_actions_adddup2(&spawn_fa.fa, f->in, 0);
	if (f->out >= 0)
		posix_spawn_file_actions_adddup2(&spawn_fa.fa, f->out, 1);
	if (f->err >= 0)
		posix_spawn_file_actions_adddup2(&spawn_fa.fa, f->err, 2);
	/* Belt and braces over O_CLOEXEC: descriptors another library
	 * opened without it must not leak into the measured program. */
	posix_spawn_file_actions_addclosefrom_np(&spawn_fa.fa, 3);
	if (dir)
		posix_spawn_file_actions_addchdir_np(&spawn_fa.fa, dir);
	spawn_fa.in = f->in;
	spawn_fa.out = f->out;
	spawn_fa.err = f->err;
	spawn_fa.has_dir = !!dir;
	sbuf_reset(&spawn_fa.dir);
	if (dir)
		sbuf_adds(&spawn_fa.dir, dir);
	spawn_fa.ready = 1;
	return &spawn_fa.fa;
}
