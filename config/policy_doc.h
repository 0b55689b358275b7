/*
 * policy_doc.h - a parsed YAML document as a plain tree (internal to config/).
 *
 * DOC: policy_yaml.c turns YAML text into this tree (and is the only file
 * that sees libyaml); policy_build.c walks it into a struct policy.  Every
 * node keeps the 1-based line and column where it starts, so each error can
 * name its place.  No anchors, aliases or tags survive: the reader refuses
 * them.
 */
#ifndef NANOSM_CONFIG_POLICY_DOC_H
#define NANOSM_CONFIG_POLICY_DOC_H

#include <stdarg.h>
#include <stddef.h>

struct policy;

#define POLICY_DOC_MAX_DEPTH 32 /* deeper nesting is refused */

enum policy_doc_kind {
	POLICY_DOC_SCALAR,
	POLICY_DOC_LIST,
	POLICY_DOC_MAP,
};

struct policy_doc {
	enum policy_doc_kind kind;
	unsigned line, col;	  /* 1-based */
	int plain;		  /* scalar written without quotes */
	char *text;		  /* scalar: NUL-terminated bytes */
	size_t len;		  /* scalar: bytes in text (it may hold a NUL) */
	struct policy_doc **kids; /* list: the items; map: key, value, key, value, ... */
	size_t n;		  /* entries in kids (a map of k pairs has n = 2k) */
};

/* Parse text into *root (NULL for an empty file).  Returns 0, -EINVAL with
 * "name:line:col: ..." in err, or -ENOMEM. */
int policy_yaml_read(const char *text, size_t len, const char *name, struct policy_doc **root,
		     char *err, size_t errlen);
void policy_yaml_free(struct policy_doc *d);

/* Walk root (NULL = empty file) into out, which policy_init has set.
 * Returns 0, -EINVAL with "name:line:col: ..." in err, or -ENOMEM. */
int policy_build(const struct policy_doc *root, const char *name, struct policy *out, char *err,
		 size_t errlen);

/* policy_doc.c: "name:line:col: <fmt>" into err (one line: control bytes
 * become '?'); returns -EINVAL.  Every section's checks report through it. */
int policy_doc_vfail(const char *name, const struct policy_doc *at, char *err, size_t errlen,
		     const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

struct text_sink;
struct policy_monitor;

/* policy_monitor.c: the monitor section (val may be null: defaults stay);
 * "name:line:col: monitor.key: ..." in err.  0, -EINVAL. */
int policy_monitor_build(const struct policy_doc *val, const char *name, struct policy_monitor *out,
			 char *err, size_t errlen);
/* The section in canonical form, printed only when it differs from the
 * defaults (so files without one print as before); the diff's lines. */
void policy_monitor_print(struct text_sink *o, const struct policy_monitor *m);
void policy_monitor_diff(struct text_sink *o, const struct policy_monitor *a,
			 const struct policy_monitor *b);

#endif
