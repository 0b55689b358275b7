/*
 * policy_doc.c - the one way a policy error names its place: "file:line:
 * col: message" for a node of the parsed document (policy_doc.h), on one
 * line.  The schema files (policy_build.c and the sections) and the
 * monitor section report through it.  Pure.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "config/policy_doc.h"

int policy_doc_vfail(const char *name, const struct policy_doc *at, char *err, size_t errlen,
		     const char *fmt, va_list ap)
{
	int n;

	if (!err || !errlen)
		return -EINVAL;
	n = snprintf(err, errlen, "%s:%u:%u: ", name, at->line, at->col);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	for (char *c = err; *c; c++) /* one line, whatever text it quotes */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -EINVAL;
}
