/*
 * sm/core/atomic_file.c - crash-safe replacement of a state file (see
 * atomic_file.h).  File I/O only; knows nothing of what the text says.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sm/core/atomic_file.h"

static void atomic_file_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Write into err only if nothing is there yet (first error wins). */
static void atomic_file_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0 || err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The directory part of path ("." or "/" at the least), malloc'd. */
static char *atomic_file_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* mkdir -p dir, mode 0755.  Returns 0 or -errno, err names the directory. */
static int atomic_file_mkdirs(char *dir, char *err, size_t errlen)
{
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			atomic_file_errf(err, errlen, "%s: mkdir: %s", dir, strerror(e));
			*p = saved;
			return -e;
		}
		*p = saved;
		if (saved == '\0')
			return 0;
	}
}

static int atomic_file_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Write text into tmp and make it durable.  Returns 0 or -errno. */
static int atomic_file_write_tmp(const char *tmp, const char *text, size_t len, char *err,
				 size_t errlen)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const char *op = "write";
	int rc;

	if (fd < 0) {
		rc = -errno;
		atomic_file_errf(err, errlen, "%s: open: %s", tmp, strerror(-rc));
		return rc;
	}
	rc = atomic_file_write_all(fd, text, len);
	if (rc == 0 && fsync(fd) < 0) {
		rc = -errno;
		op = "fsync";
	}
	if (close(fd) < 0 && rc == 0) {
		rc = -errno;
		op = "close";
	}
	if (rc < 0)
		atomic_file_errf(err, errlen, "%s: %s: %s", tmp, op, strerror(-rc));
	return rc;
}

/* fsync a directory so a rename in it survives a crash (EINVAL: the file
 * system cannot sync directories; nothing more to do). */
static int atomic_file_sync_dir(const char *dir, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0 || (fsync(fd) < 0 && errno != EINVAL))
		rc = -errno;
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		atomic_file_errf(err, errlen, "%s: fsync: %s", dir, strerror(-rc));
	return rc;
}

int atomic_file_replace(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	char *tmp = malloc(strlen(path) + sizeof(".tmp"));
	int rc;

	if (!tmp)
		return -ENOMEM;
	sprintf(tmp, "%s.tmp", path);
	rc = atomic_file_write_tmp(tmp, text, len, err, errlen);
	if (rc == 0 && rename(tmp, path) < 0) {
		rc = -errno;
		atomic_file_errf(err, errlen, "%s: rename from %s: %s", path, tmp, strerror(-rc));
	}
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

int atomic_file_prepare_dir(const char *path, char *err, size_t errlen)
{
	char *dir = atomic_file_dirname(path);
	int rc = dir ? atomic_file_mkdirs(dir, err, errlen) : -ENOMEM;

	if (rc == -ENOMEM)
		atomic_file_errf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	free(dir);
	return rc;
}

int atomic_file_write(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	char *dir = atomic_file_dirname(path);
	int rc = dir ? atomic_file_mkdirs(dir, err, errlen) : -ENOMEM;

	if (rc == 0)
		rc = atomic_file_replace(path, text, len, err, errlen);
	if (rc == 0)
		rc = atomic_file_sync_dir(dir, err, errlen);
	if (rc == -ENOMEM)
		atomic_file_errf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	free(dir);
	return rc;
}
