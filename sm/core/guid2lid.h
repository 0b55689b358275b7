/*
 * sm/core/guid2lid.h - the persisted GUID -> LID map, in OpenSM's guid2lid format.
 *
 * DOC: One mapping per line: "0x<port guid> 0x<lid> 0x<lid>" (base LID and
 * top LID; equal with LMC 0), optionally followed by "# seen <seconds>":
 * when nanosm last saw the port (Unix time).  Blank lines and '#' comments
 * are skipped.  nanosm writes GUID2LID_HEADER as the first line and
 * "# nanosm end <entries> <crc32>" as the last (CRC-32 of every byte before
 * that line), so a cut or damaged file is seen as a whole.  OpenSM reads
 * all of it: '#' lines are comments to it, and it reads only the two LIDs
 * after a GUID.  guid2lid_parse_map is pure (the fuzz target calls it);
 * guid2lid_load/guid2lid_save do the file I/O: the save is atomic and keeps
 * the previous good file as <path>.bak; the load falls back to <path>.bak
 * when <path> is unusable.  docs/operations.md, "LIDs across restarts".
 */
#ifndef NANOSM_SM_CORE_GUID2LID_H
#define NANOSM_SM_CORE_GUID2LID_H

#include <stddef.h>
#include <stdint.h>

#include "routing/lid_alloc.h"

#define GUID2LID_HEADER "# nanosm guid2lid 1"
#define GUID2LID_END "# nanosm end"
#define GUID2LID_MAX_DIAG 32 /* messages kept per parse; the rest are counted */

struct guid2lid_entry {
	uint64_t guid;
	uint16_t lid;
	uint64_t seen; /* Unix seconds, 0 = not in the file */
	int line;
};

/* One message about one line: "NSM-W11x <name>:<line>: what". */
struct guid2lid_diag {
	int line;
	char msg[232];
};

/* What one parse found.  Lines skipped: unparsable, out of range, binary
 * data, a cut last line (NSM-W111); a GUID or a LID on two lines (NSM-W112:
 * an exact repeat is skipped, conflicting lines are all dropped so that
 * the ports' own LIDs decide). */
struct guid2lid_map {
	struct guid2lid_entry *e; /* the good mappings, file order (owned) */
	size_t n;
	size_t lines;	 /* mapping lines, good and bad */
	size_t bad;	 /* mapping lines skipped */
	int signed_file; /* nanosm's header or end line is there */
	int unusable;	 /* the whole file is refused; why says why */
	char why[160];
	struct guid2lid_diag diag[GUID2LID_MAX_DIAG]; /* in line order */
	size_t n_diag, more_diag;		      /* kept / left out */
};

/* Parse len bytes (any bytes: need not be text nor NUL-terminated); name
 * goes into messages.  A file is unusable when it is empty or holds
 * comments only, when more than a quarter of its mapping lines are bad,
 * or when it carries nanosm's
 * header or end line and the end line is missing, not last, or its count
 * or checksum disagree.  Returns 0 or -ENOMEM (m then holds nothing);
 * free with guid2lid_map_fini either way. */
int guid2lid_parse_map(const char *text, size_t len, const char *name, struct guid2lid_map *m);
void guid2lid_map_fini(struct guid2lid_map *m);

/* The whole file text for a (header, one line per mapping in LID order
 * with its last-seen time when known, end line) into buf, NUL-terminated;
 * returns the length it needs (like snprintf): call with NULL/0 to size. */
size_t guid2lid_format(const struct lid_alloc *a, char *buf, size_t len);

enum guid2lid_source {
	GUID2LID_NONE = 0, /* neither file exists: a first start */
	GUID2LID_MAIN,	   /* <path> was used */
	GUID2LID_BAK,	   /* <path> was unusable or missing: <path>.bak used */
	GUID2LID_EMPTY,	   /* both unusable: nothing loaded */
};

struct guid2lid_msg {
	int warn; /* 1: a warning (carries its NSM- ID), 0: information */
	char text[300];
};

/* What guid2lid_load did, with every message to log, in order. */
struct guid2lid_report {
	enum guid2lid_source source;
	size_t loaded;		  /* mappings reserved */
	struct guid2lid_msg *msg; /* owned */
	size_t n_msg;
};

/* Read path (else path.bak) into a: each good mapping is reserved and
 * stamped with its last-seen time (now when the file has none).  A mapping
 * that conflicts with one already in a (a static LID) is skipped
 * (NSM-W115).  Returns 0, or -ENOMEM; free r with guid2lid_report_fini. */
int guid2lid_load(const char *path, struct lid_alloc *a, uint64_t now, struct guid2lid_report *r);
void guid2lid_report_fini(struct guid2lid_report *r);

/* Write a to path atomically (temp file, fsync, rename, fsync of the
 * directory), creating the directory if needed.  Before the rename, the
 * file being replaced is copied to path.bak when it parses as usable (a
 * damaged one never overwrites a good backup).  Returns 0; 1 when saved
 * but path.bak was not refreshed (err says why); or negative errno with err
 * filled in (the old file is untouched). */
int guid2lid_save(const char *path, const struct lid_alloc *a, char *err, size_t errlen);

#endif
