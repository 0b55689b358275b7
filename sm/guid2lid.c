/*
 * guid2lid.c - owns the guid2lid file: its text format (pure parse/format)
 * and its load/atomic save.  Never decides LIDs: it only reserves into, or
 * reads from, a struct lid_alloc.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "routing/fabric.h"
#include "sm/guid2lid.h"

#define GUID2LID_MAX_FILE (64u << 20) /* far above 48K lines of 33 bytes */
#define GUID2LID_EXPECTED "expected \"0x<guid> 0x<lid> 0x<lid>\""

/* ---- text format (pure) ---- */

/* One line being parsed: [p, end) with no newline inside. */
struct guid2lid_cursor {
	const char *p, *end;
};

static void guid2lid_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Write into err only if nothing is there yet (first error wins). */
static void guid2lid_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0 || err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void guid2lid_skip_blanks(struct guid2lid_cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
		c->p++;
}

static int guid2lid_hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* A hex number, "0x" optional, any number of leading zeros.  Returns 0 or
 * -EINVAL (no digits, overflow, or not followed by a blank / line end). */
static int guid2lid_hex(struct guid2lid_cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0, d;

	guid2lid_skip_blanks(c);
	if (c->end - c->p >= 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X'))
		c->p += 2;
	for (; c->p < c->end && (d = guid2lid_hexval(*c->p)) >= 0; c->p++, digits++) {
		if (v >> 60)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	if (digits == 0)
		return -EINVAL;
	if (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '\r' && *c->p != '#')
		return -EINVAL;
	*out = v;
	return 0;
}

static int guid2lid_at_end(struct guid2lid_cursor *c)
{
	guid2lid_skip_blanks(c);
	return c->p == c->end || *c->p == '#';
}

/* Parse one non-blank line.  Returns 0, or -EINVAL with err filled in. */
static int guid2lid_parse_line(struct guid2lid_cursor *c, const char *name, int line,
			       uint64_t *guid, uint16_t *lid, char *err, size_t errlen)
{
	uint64_t g, base, top;

	if (guid2lid_hex(c, &g) < 0 || guid2lid_hex(c, &base) < 0 || guid2lid_hex(c, &top) < 0 ||
	    !guid2lid_at_end(c)) {
		guid2lid_errf(err, errlen, "%s:%d: " GUID2LID_EXPECTED, name, line);
		return -EINVAL;
	}
	if (g == 0) {
		guid2lid_errf(err, errlen, "%s:%d: port GUID 0 is invalid", name, line);
		return -EINVAL;
	}
	if (base < LID_UNICAST_MIN || base > LID_UNICAST_MAX || top > LID_UNICAST_MAX) {
		guid2lid_errf(err, errlen, "%s:%d: LID 0x%04" PRIx64 " out of unicast range", name,
			      line, base < LID_UNICAST_MIN || base > LID_UNICAST_MAX ? base : top);
		return -EINVAL;
	}
	if (top < base) {
		guid2lid_errf(err, errlen,
			      "%s:%d: top LID 0x%04" PRIx64 " below base LID 0x%04" PRIx64, name,
			      line, top, base);
		return -EINVAL;
	}
	*guid = g;
	*lid = (uint16_t)base;
	return 0;
}

static int guid2lid_is_blank(struct guid2lid_cursor c)
{
	guid2lid_skip_blanks(&c);
	return c.p == c.end || *c.p == '#';
}

int guid2lid_parse(const char *text, size_t len, const char *name,
		   void (*fn)(void *ctx, uint64_t guid, uint16_t lid, int line), void *ctx,
		   char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	int line = 0, bad = 0;

	if (!name)
		name = "guid2lid";
	if (err && errlen > 0)
		err[0] = '\0';
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct guid2lid_cursor c = {p, nl ? nl : end};
		uint64_t guid;
		uint16_t lid;
		int rc;

		line++;
		p = nl ? nl + 1 : end;
		if (guid2lid_is_blank(c))
			continue;
		if (nl) {
			rc = guid2lid_parse_line(&c, name, line, &guid, &lid, err, errlen);
		} else {
			/* no newline and unparsable: the writer died mid-line */
			rc = guid2lid_parse_line(&c, name, line, &guid, &lid, NULL, 0);
			if (rc < 0)
				guid2lid_errf(
				    err, errlen,
				    "%s:%d: truncated last line (no newline at end of file)", name,
				    line);
		}
		if (rc < 0) {
			bad++;
			continue;
		}
		if (fn)
			fn(ctx, guid, lid, line);
	}
	return bad;
}

struct guid2lid_out {
	char *buf;
	size_t len, off;
};

static int guid2lid_format_one(void *ctx, uint64_t guid, uint16_t lid)
{
	struct guid2lid_out *o = ctx;
	size_t room = o->off < o->len ? o->len - o->off : 0;
	int n = snprintf(room ? o->buf + o->off : NULL, room, "0x%016" PRIx64 " 0x%04x 0x%04x\n",
			 guid, lid, lid);

	if (n > 0)
		o->off += (size_t)n;
	return 0;
}

size_t guid2lid_format(const struct lid_alloc *a, char *buf, size_t len)
{
	struct guid2lid_out o = {buf, buf ? len : 0, 0};

	if (o.len > 0)
		buf[0] = '\0';
	lid_alloc_foreach(a, guid2lid_format_one, &o);
	return o.off;
}

/* ---- file I/O ---- */

/* Read all of fd into a malloc'd buffer.  Returns 0 or -errno. */
static int guid2lid_read_fd(int fd, char **out, size_t *outlen)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *nbuf;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			nbuf = cap < GUID2LID_MAX_FILE ? realloc(buf, 2 * cap) : NULL;
			if (!nbuf) {
				free(buf);
				return cap < GUID2LID_MAX_FILE ? -ENOMEM : -EFBIG;
			}
			buf = nbuf;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

static int guid2lid_read_file(const char *path, char **out, size_t *outlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -errno;
	rc = guid2lid_read_fd(fd, out, outlen);
	close(fd);
	return rc;
}

struct guid2lid_loader {
	struct lid_alloc *a;
	const char *path;
	size_t loaded, conflicts;
	int nomem;
	char *err;
	size_t errlen;
};

static void guid2lid_load_one(void *ctx, uint64_t guid, uint16_t lid, int line)
{
	struct guid2lid_loader *l = ctx;
	int rc = lid_alloc_reserve(l->a, guid, lid);

	if (rc == 0) {
		l->loaded++;
		return;
	}
	l->conflicts++;
	if (rc == -EEXIST)
		guid2lid_errf(l->err, l->errlen,
			      "%s:%d: LID 0x%04x already belongs to 0x%016" PRIx64 ", skipped",
			      l->path, line, lid, lid_alloc_owner(l->a, lid));
	else if (rc == -EALREADY)
		guid2lid_errf(l->err, l->errlen,
			      "%s:%d: GUID 0x%016" PRIx64 " already has LID 0x%04x, skipped",
			      l->path, line, guid, lid_alloc_lookup(l->a, guid));
	else if (rc == -ERANGE)
		guid2lid_errf(l->err, l->errlen, "%s:%d: LID 0x%04x above max LID 0x%04x, skipped",
			      l->path, line, lid, l->a->max_lid);
	else
		l->nomem = 1;
}

int guid2lid_load(const char *path, struct lid_alloc *a, size_t *loaded, size_t *bad, char *err,
		  size_t errlen)
{
	struct guid2lid_loader l = {a, path, 0, 0, 0, err, errlen};
	char *text = NULL;
	size_t len = 0;
	int rc, nbad;

	*loaded = 0;
	*bad = 0;
	if (err && errlen > 0)
		err[0] = '\0';
	rc = guid2lid_read_file(path, &text, &len);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0) {
		guid2lid_errf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	nbad = guid2lid_parse(text, len, path, guid2lid_load_one, &l, err, errlen);
	free(text);
	*loaded = l.loaded;
	*bad = (size_t)nbad + l.conflicts;
	if (l.nomem) {
		guid2lid_errf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* The directory part of path ("." or "/" at the least), malloc'd. */
static char *guid2lid_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* mkdir -p dir, mode 0755.  Returns 0 or -errno, err names the directory. */
static int guid2lid_mkdirs(char *dir, char *err, size_t errlen)
{
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			guid2lid_errf(err, errlen, "%s: mkdir: %s", dir, strerror(e));
			*p = saved;
			return -e;
		}
		*p = saved;
		if (saved == '\0')
			return 0;
	}
}

static int guid2lid_write_all(int fd, const char *buf, size_t len)
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
static int guid2lid_write_tmp(const char *tmp, const char *text, size_t len, char *err,
			      size_t errlen)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const char *op = "write";
	int rc;

	if (fd < 0) {
		rc = -errno;
		guid2lid_errf(err, errlen, "%s: open: %s", tmp, strerror(-rc));
		return rc;
	}
	rc = guid2lid_write_all(fd, text, len);
	if (rc == 0 && fsync(fd) < 0) {
		rc = -errno;
		op = "fsync";
	}
	if (close(fd) < 0 && rc == 0) {
		rc = -errno;
		op = "close";
	}
	if (rc < 0)
		guid2lid_errf(err, errlen, "%s: %s: %s", tmp, op, strerror(-rc));
	return rc;
}

/* fsync a directory so a rename in it survives a crash (EINVAL: the file
 * system cannot sync directories; nothing more to do). */
static int guid2lid_sync_dir(const char *dir, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0 || (fsync(fd) < 0 && errno != EINVAL))
		rc = -errno;
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		guid2lid_errf(err, errlen, "%s: fsync: %s", dir, strerror(-rc));
	return rc;
}

static int guid2lid_save_text(const char *path, const char *dir, const char *text, size_t len,
			      char *err, size_t errlen)
{
	char *tmp = malloc(strlen(path) + sizeof(".tmp"));
	int rc;

	if (!tmp)
		return -ENOMEM;
	sprintf(tmp, "%s.tmp", path);
	rc = guid2lid_write_tmp(tmp, text, len, err, errlen);
	if (rc == 0 && rename(tmp, path) < 0) {
		rc = -errno;
		guid2lid_errf(err, errlen, "%s: rename from %s: %s", path, tmp, strerror(-rc));
	}
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	if (rc == 0)
		rc = guid2lid_sync_dir(dir, err, errlen);
	return rc;
}

int guid2lid_save(const char *path, const struct lid_alloc *a, char *err, size_t errlen)
{
	size_t len = guid2lid_format(a, NULL, 0);
	char *text = malloc(len + 1);
	char *dir = guid2lid_dirname(path);
	int rc = -ENOMEM;

	if (err && errlen > 0)
		err[0] = '\0';
	if (text && dir) {
		guid2lid_format(a, text, len + 1);
		rc = guid2lid_mkdirs(dir, err, errlen);
		if (rc == 0)
			rc = guid2lid_save_text(path, dir, text, len, err, errlen);
	}
	if (rc == -ENOMEM)
		guid2lid_errf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	free(text);
	free(dir);
	return rc;
}
