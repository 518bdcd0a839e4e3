/* paths.c - see paths.h. */
#define _XOPEN_SOURCE 700 /* realpath, lstat, kill */

#include "paths.h"

#include "../tensor/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a path names: the file's device and inode when it exists, and in any case its canonical
 * name (the real path of its directory, then its own name): two uses of one file agree on one
 * or the other, however they are spelled. */
typedef struct PathId {
    bool exists;
    dev_t dev;
    ino_t ino;
    char canonical[PATH_MAX + 256];
} PathId;

/* The directory part of path ("." when there is none) and its last component. */
static void split_path(const char *path, char *dir, size_t dir_len, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dir_len, ".");
        *base = path;
    } else {
        snprintf(dir, dir_len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        *base = slash + 1;
    }
}

/* Whether a file can be created next to `base` in dir: tried, with the name of the temporary
 * file an atomic write uses (base.tmp.<pid>, removed at once; paths_remove_stale_temporaries
 * cleans it up if the process dies in between). Permissions alone do not tell: root passes
 * access() on a read-only file system or in /sys. */
static bool can_create_in(const char *dir, const char *base)
{
    char trial[PATH_MAX + 300];
    snprintf(trial, sizeof trial, "%s/%s.tmp.%ld", dir, base, (long)getpid());
    int fd = open(trial, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return errno == EEXIST; /* our own temporary, left by nothing else: the directory is writable */
    close(fd);
    unlink(trial);
    return true;
}

/* The name of the standard stream (standard output or error) whose file is st, or NULL: an
 * output renamed over that file (/dev/stdout with stdout redirected to a file, or the file's own
 * name) would replace what the program prints there. No output streams to them today. */
static const char *standard_stream_of(const struct stat *st)
{
    static const struct { int fd; const char *name; } streams[] = {{STDOUT_FILENO, "standard output"},
                                                                  {STDERR_FILENO, "standard error"}};
    for (size_t k = 0; k < sizeof streams / sizeof streams[0]; k++) {
        struct stat s;
        if (fstat(streams[k].fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino) return streams[k].name;
    }
    return NULL;
}

static bool identify(const PathUse *u, PathId *id, char *err, size_t err_len)
{
    struct stat st, lst;
    memset(id, 0, sizeof *id);
    if (!strcmp(u->path, "-"))
        return errorf(err, err_len, "--%s=-: standard input and output are not supported here: name a file", u->flag);
    bool is_link = lstat(u->path, &lst) == 0 && S_ISLNK(lst.st_mode);
    if (stat(u->path, &st) == 0) {
        id->exists = true;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        if (u->role == PATH_OUTPUT && !S_ISREG(st.st_mode))
            return errorf(err, err_len, "--%s=%s is %s: an output must be a regular file (refusing to replace it)", u->flag,
                          u->path, file_kind(st.st_mode));
        const char *stream = u->role == PATH_OUTPUT ? standard_stream_of(&st) : NULL;
        if (stream)
            return errorf(err, err_len, "--%s=%s is the file %s goes to: writing it would overwrite what is printed there "
                                        "(name another file)", u->flag, u->path, stream);
    } else if (is_link) {
        return errorf(err, err_len, "--%s=%s is a symbolic link to nothing: name the file itself", u->flag, u->path);
    } else if (u->role == PATH_INPUT) {
        return true; /* its reader reports it missing, with its own message */
    }
    char dir[PATH_MAX], real_dir[PATH_MAX];
    const char *base;
    split_path(u->path, dir, sizeof dir, &base);
    if (!*base) return errorf(err, err_len, "--%s=%s names a directory, not a file", u->flag, u->path);
    if (!realpath(dir, real_dir)) {
        if (u->role == PATH_INPUT) return true;
        return errorf(err, err_len, "--%s=%s: its directory %s: %s", u->flag, u->path, dir, strerror(errno));
    }
    if (u->role == PATH_OUTPUT && !can_create_in(real_dir, base))
        return errorf(err, err_len, "--%s=%s: cannot create a file in the directory %s: %s", u->flag, u->path, dir,
                      strerror(errno));
    snprintf(id->canonical, sizeof id->canonical, "%s/%s", real_dir, base);
    if (is_link && id->exists) { /* the link's target is the file: name it by its real path */
        char target[PATH_MAX];
        if (realpath(u->path, target)) snprintf(id->canonical, sizeof id->canonical, "%s", target);
    }
    return true;
}

static bool same_file(const PathId *a, const PathId *b)
{
    if (a->exists && b->exists) return a->dev == b->dev && a->ino == b->ino;
    return a->canonical[0] && !strcmp(a->canonical, b->canonical);
}

static bool may_replace(const char *out, const char *in, const char *const (*pairs)[2], int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(pairs[i][0], out) && !strcmp(pairs[i][1], in)) return true;
    return false;
}

bool paths_check(const PathUse *uses, int n, const char *const (*pairs)[2], int n_pairs, char *err, size_t err_len)
{
    enum { MAX_USES = 16 };
    PathId ids[MAX_USES];
    if (n > MAX_USES) n = MAX_USES;
    for (int i = 0; i < n; i++)
        if (uses[i].path[0] && !identify(&uses[i], &ids[i], err, err_len)) return false;
    for (int i = 0; i < n; i++) {
        if (!uses[i].path[0] || uses[i].role != PATH_OUTPUT) continue;
        for (int j = 0; j < n; j++) {
            if (j == i || !uses[j].path[0] || !same_file(&ids[i], &ids[j])) continue;
            if (uses[j].role == PATH_INPUT && !may_replace(uses[i].flag, uses[j].flag, pairs, n_pairs))
                return errorf(err, err_len, "--%s=%s is the file given as --%s=%s: refusing to overwrite an input",
                              uses[i].flag, uses[i].path, uses[j].flag, uses[j].path);
            if (uses[j].role == PATH_OUTPUT && j > i)
                return errorf(err, err_len, "--%s=%s and --%s=%s name the same file: give each output its own",
                              uses[i].flag, uses[i].path, uses[j].flag, uses[j].path);
        }
    }
    return true;
}

int paths_remove_stale_temporaries(const char *flag, const char *path)
{
    if (!path[0]) return 0;
    char dir[PATH_MAX];
    const char *base;
    split_path(path, dir, sizeof dir, &base);
    size_t n = strlen(base);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        /* exactly <base>.tmp.<digits>: what st_write names its temporary file */
        const char *name = e->d_name;
        if (strncmp(name, base, n) != 0 || strncmp(name + n, ".tmp.", 5) != 0) continue;
        const char *digits = name + n + 5;
        char *end;
        long pid = strtol(digits, &end, 10);
        if (!(*digits >= '0' && *digits <= '9') || *end || pid <= 0) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* its writer may still be running */
        char full[PATH_MAX + 256];
        snprintf(full, sizeof full, "%s/%s", dir, name);
        struct stat st;
        if (lstat(full, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (unlink(full) == 0) {
            removed++;
            fprintf(stderr, "note: --%s: removed %s, an unfinished write left by process %ld, which no longer runs\n", flag,
                    full, pid);
        }
    }
    closedir(d);
    return removed;
}

void paths_follow_link(char *path, size_t len)
{
    struct stat lst;
    char target[PATH_MAX];
    if (path[0] && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, target) && strlen(target) < len)
        memcpy(path, target, strlen(target) + 1);
}
