/*
 * guid2lid.h - the persisted GUID -> LID map, in OpenSM's guid2lid format.
 *
 * DOC: One mapping per line: "0x<port guid> 0x<lid> 0x<lid>" (base LID and
 * top LID; equal with LMC 0).  Blank lines and '#' comments are skipped.
 * guid2lid_parse is pure; guid2lid_load/guid2lid_save do the file I/O, the
 * save atomically (temp file, fsync, rename, fsync dir).
 */
#ifndef NANOSM_SM_GUID2LID_H
#define NANOSM_SM_GUID2LID_H

#include <stddef.h>
#include <stdint.h>

#include "lid_alloc.h"

/* Per bad line: "<name>:<line>: <what>" is written into err (first error
 * only) and the line is skipped.  Each good line calls fn(ctx, guid, lid,
 * line).  Returns the number of bad lines (0 = clean). */
int guid2lid_parse(const char *text, size_t len, const char *name,
		   void (*fn)(void *ctx, uint64_t guid, uint16_t lid, int line), void *ctx, char *err,
		   size_t errlen);

/* Format every mapping of a into buf (NUL-terminated); returns the length it
 * needs (like snprintf), so call with NULL/0 to size it. */
size_t guid2lid_format(const struct lid_alloc *a, char *buf, size_t len);

/* Read path into a (reserving each mapping).  A missing file is not an
 * error (returns 0 with *loaded = 0).  Conflicting lines (a LID claimed
 * twice) are reported in err and skipped.  Returns 0, or negative errno on
 * an unreadable file; *bad = number of bad/conflicting lines. */
int guid2lid_load(const char *path, struct lid_alloc *a, size_t *loaded, size_t *bad, char *err,
		  size_t errlen);
/* Write a to path atomically, creating the parent directory if needed. */
int guid2lid_save(const char *path, const struct lid_alloc *a, char *err, size_t errlen);

#endif
