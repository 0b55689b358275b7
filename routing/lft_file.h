/*
 * lft_file.h - read and write switch forwarding tables as text.
 *
 * DOC: Two text formats carry the unicast LFTs of a whole fabric:
 *
 *  - dump_fts / ibroute output (infiniband-diags; also what
 *    lft_file_write_dump_fts prints):
 *      Unicast lids [0x0-0x6] of switch DR path slid 0; dlid 0; 0,1 guid 0x0002c90300b00101 (sw1):
 *        Lid  Out   Destination
 *             Port     Info
 *      0x0001 001 : (Channel Adapter portguid 0x0002c90300a00111: 'host1')
 *      6 valid lids dumped
 *    ("of switch Lid 2 guid ..." in ibroute's and our own output).  The
 *    range in the header is hex, its end is the switch's LinearFDBTop.
 *
 *  - OpenSM's opensm-lfts.dump (written when OpenSM logs routing, -D 0x43,
 *    into --dump_files_dir / OSM_TMP_DIR):
 *      Unicast lids [0-6] of switch Lid 2 guid 0x0002c90300b00101 ('sw1'):
 *      0x0001 001 # Channel Adapter portguid 0x0002c90300a00111: 'host1'
 *      6 lids dumped
 *    The range is decimal.
 *
 * Both print only routed entries: a LID without a line is dropped (the
 * table entry is LFT_DROP), as is an explicit port 255.  Switches are
 * matched to the fabric by node GUID.  Pure: text in, lft_set out.
 */
#ifndef NANOSM_ROUTING_LFT_FILE_H
#define NANOSM_ROUTING_LFT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "mad/text.h"
#include "routing/fabric.h"

enum lft_file_format {
	LFT_FILE_AUTO = 0, /* decided by the first header (0x range: dump_fts) */
	LFT_FILE_DUMP_FTS, /* dump_fts, ibroute, lft_file_write_dump_fts */
	LFT_FILE_OPENSM,   /* opensm-lfts.dump */
};

/* What a parse found besides the tables (all counts 0 on a clean file). */
struct lft_file_info {
	enum lft_file_format format; /* the format actually read */
	size_t switches;	     /* switch records read */
	size_t entries;		     /* LID lines read */
	size_t missing;		     /* fabric switches with no record (all drop) */
	uint64_t first_missing;	     /* NodeGUID of the first of them */
	size_t top_skipped;	     /* records whose LinearFDBTop entry is absent
				      * although top is a multiple of 64: dump_fts
				      * and ibroute never read that block */
	size_t unknown_lids;	     /* entries for LIDs no port has in the fabric */
	char top_note[256];	     /* the first top_skipped case and */
	char lid_note[256];	     /* the first unknown LID: "<name>:<line>: ..." */
};

/* "dump_fts", "ibroute" (same format), "opensm" or "auto" -> format.
 * Returns 0 or -EINVAL. */
int lft_file_format_from_name(const char *name, enum lft_file_format *fmt);

/* Parse text (len bytes, need not be NUL-terminated) holding the LFTs of the
 * switches of f.  out must be lft_set_init'ed; on success it holds one table
 * per switch of f, in fabric order, each sized to its record's LinearFDBTop
 * (a switch without a record gets top 0, every entry LFT_DROP).  info may be
 * NULL.  Errors name the place: "<name>:<line>: <what>" - unknown switch
 * GUID, a node that is not a switch, a switch listed twice, a LID above the
 * header's range or listed twice, a port above 255, an entry before any
 * header, an unrecognised line, and an entry whose destination port GUID
 * contradicts the fabric's owner of that LID (topology from another run).
 * Returns 0, -EINVAL (err set, out left empty) or -ENOMEM. */
int lft_file_parse(const char *text, size_t len, const char *name, enum lft_file_format fmt,
		   const struct fabric *f, struct lft_set *out, struct lft_file_info *info,
		   char *err, size_t errlen);

/* Print s in the dump_fts format ("of switch Lid N guid ..."), one record per
 * table in set order, only entries that are not LFT_DROP, each described by
 * the fabric port owning the LID.  *text is malloc'ed and NUL-terminated
 * (caller frees), *len its length.  Returns 0, -EINVAL (a table's node is
 * not a switch of f) or -ENOMEM. */
int lft_file_write_dump_fts(const struct fabric *f, const struct lft_set *s, char **text,
			    size_t *len);

/* The same, one table at a time (a daemon streams a big dump without
 * holding it whole): init finds each LID's owner once (0 or -ENOMEM);
 * dump_table appends one record to b, its entries limited to LIDs first
 * .. last (0, -EINVAL: not a switch of the fabric, -ENOMEM). */
struct lft_file_dump {
	const struct fabric *f;
	int *owner;
};
int lft_file_dump_init(struct lft_file_dump *d, const struct fabric *f);
void lft_file_dump_fini(struct lft_file_dump *d);
int lft_file_dump_table(const struct lft_file_dump *d, const struct lft *t, unsigned first,
			unsigned last, struct text_buf *b);

#endif
