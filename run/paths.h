/* paths.h - the files a run reads and writes, checked before the first step: no output may be
 * an input or another output (under any spelling: ./a/../x, a symbolic link, an absolute
 * path), no output may be a directory, a device, a FIFO or a socket, nor the file standard
 * output or standard error goes to (/dev/stdout with stdout redirected to a file: its atomic
 * write would replace what the program prints; no output is a stream meant for them), and each
 * output's directory must exist and be writable. Nothing is written before these checks pass. */
#ifndef RUN_PATHS_H
#define RUN_PATHS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum PathRole { PATH_INPUT, PATH_OUTPUT } PathRole;

typedef struct PathUse {
    const char *flag;  /* "data", "log", ... for messages */
    const char *path;  /* "" when the flag is not given */
    PathRole role;
} PathUse;

/* Checks the paths of one run. An output may be the same file as an input only where
 * `may_replace` names that pair: (output flag, input flag), e.g. {"save", "load"}, a checkpoint
 * replaced by its own continuation (written atomically). Returns false with a message that
 * names both flags. */
bool paths_check(const PathUse *uses, int n, const char *const (*may_replace)[2], int n_replace, char *err,
                 size_t err_len);

/* An output that is a symbolic link is written through it: path becomes the link's target
 * (checked by paths_check to exist), so that an atomic write (a rename onto the path) replaces
 * the file the link points to, not the link. Unchanged for anything else. */
void paths_follow_link(char *path, size_t len);

/* Removes the temporary files FILE.tmp.<pid> that an atomic write of `path` left behind when
 * its process was killed (the process no longer runs); says so on stderr. Returns how many. */
int paths_remove_stale_temporaries(const char *flag, const char *path);

#endif
