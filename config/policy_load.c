/*
 * policy_load.c - reads the policy file and hands its text to policy_parse.
 * The only file in config/ that does I/O; it never interprets the text.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/policy.h"

/* All of fd (at most POLICY_MAX_FILE bytes) into a malloc'd buffer. */
static int policy_load_read(int fd, char **out, size_t *outlen)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);

	while (buf) {
		ssize_t n;

		if (len == cap) {
			char *bigger = cap >= POLICY_MAX_FILE ? NULL : realloc(buf, cap * 2);

			if (!bigger) {
				free(buf);
				return cap >= POLICY_MAX_FILE ? -EFBIG : -ENOMEM;
			}
			buf = bigger;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int rc = -errno;

			free(buf);
			return rc;
		}
		if (n == 0) {
			*out = buf;
			*outlen = len;
			return 0;
		}
		len += (size_t)n;
	}
	return -ENOMEM;
}

int policy_load(const char *path, struct policy *out, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	int fd, rc;

	policy_init(out);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
	} else {
		rc = policy_load_read(fd, &text, &len);
		close(fd);
	}
	if (rc < 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path,
				 rc == -EFBIG ? "too large for a policy file" : strerror(-rc));
		return rc;
	}
	rc = policy_parse(text, len, path, out, err, errlen);
	free(text);
	return rc;
}
