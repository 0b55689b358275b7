/*
 * sm/core/atomic_file.h - replace a small state file so that a crash leaves either
 * the old or the new text, never a mix: write <path>.tmp, fsync it, rename
 * it over <path>, fsync the directory.  Used for guid2lid and the topology
 * written at SUBNET UP.  Every function fills err (when it is still empty:
 * the first error wins) with the path and what failed.
 */
#ifndef NANOSM_SM_CORE_ATOMIC_FILE_H
#define NANOSM_SM_CORE_ATOMIC_FILE_H

#include <stddef.h>

/* mkdir -p the directory of path (mode 0755).  Returns 0 or -errno. */
int atomic_file_prepare_dir(const char *path, char *err, size_t errlen);
/* Write text to <path>.tmp, make it durable and rename it over path (the
 * directory is not synced).  Returns 0 or -errno; <path>.tmp is removed on
 * failure and path is untouched. */
int atomic_file_replace(const char *path, const char *text, size_t len, char *err, size_t errlen);
/* The whole of it: prepare the directory, replace path, sync the
 * directory.  Returns 0 or -errno. */
int atomic_file_write(const char *path, const char *text, size_t len, char *err, size_t errlen);

#endif
