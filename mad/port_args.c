/*
 * mad/port_args.c - parses -d/-p/-g into a struct port_args and numbers into
 * a range (mad/port_args.h).  Owns no state; no I/O: the caller prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "mad/port_args.h"
#include "mad/text.h"

int port_args_number(const char *opt, const char *val, uint64_t min, uint64_t max, uint64_t *out,
		     char *err, size_t errlen)
{
	int hex = val[0] == '0' && (val[1] == 'x' || val[1] == 'X');
	unsigned base = hex ? 16 : 10;
	const char *s = val + (hex ? 2 : 0);
	uint64_t v = 0;

	if (!*s)
		return text_err(err, errlen, -EINVAL, "%s: \"%s\" is not a number", opt, val);
	for (; *s; s++) {
		int d = text_hexval(*s);

		if (d < 0 || (unsigned)d >= base)
			return text_err(err, errlen, -EINVAL, "%s: \"%s\" is not a number", opt,
					val);
		if (v > (UINT64_MAX - (unsigned)d) / base)
			return text_err(err, errlen, -EINVAL,
					"%s: %s is too large (at most %" PRIu64 ")", opt, val, max);
		v = v * base + (unsigned)d;
	}
	if (v < min || v > max)
		return text_err(err, errlen, -EINVAL,
				"%s: %s is out of range %" PRIu64 "..%" PRIu64, opt, val, min, max);
	*out = v;
	return 0;
}

static int port_args_set_ca(struct port_args *a, const char *opt, const char *val, char *err,
			    size_t errlen)
{
	size_t len = strlen(val);

	if (!len || len > PORT_ARGS_CA_MAX)
		return text_err(err, errlen, -EINVAL, "%s: device name must be 1..%d characters",
				opt, PORT_ARGS_CA_MAX);
	memcpy(a->ca, val, len + 1);
	return 0;
}

int port_args_set(struct port_args *a, int letter, const char *opt, const char *val, char *err,
		  size_t errlen)
{
	char name[3] = {'-', (char)letter, '\0'};
	uint64_t v;

	if (!opt)
		opt = name;
	switch (letter) {
	case 'd':
		return port_args_set_ca(a, opt, val, err, errlen);
	case 'p':
		if (port_args_number(opt, val, 1, PORT_ARGS_PORT_MAX, &v, err, errlen) < 0)
			return -EINVAL;
		a->port = (unsigned)v;
		return 0;
	case 'g':
		return port_args_number(opt, val, 1, UINT64_MAX, &a->guid, err, errlen);
	}
	return text_err(err, errlen, -EINVAL, "%s is not a port option (-d, -p or -g)", opt);
}

int port_args_check(const struct port_args *a, char *err, size_t errlen)
{
	if (a->guid && (a->ca[0] || a->port))
		return text_err(
		    err, errlen, -EINVAL,
		    "-g names the local port: give -g GUID or -d CA [-p PORT], not both");
	return 0;
}

const char *port_args_ca(const struct port_args *a)
{
	return a->ca[0] ? a->ca : NULL;
}
