/*
 * sm/daemon/control_proto.h - the control protocol as both ends see it: where
 * the socket is, its limits, and the commands and the words each takes, in
 * one table: nanosmctl checks a command line against it before it connects
 * (a usage error never reaches the daemon), and sm/daemon/control.c checks
 * every request line against it.  Pure.  nanosmctl includes this header and
 * nothing else of the daemon.
 *
 * DOC: A unix stream socket (default CONTROL_DEFAULT_PATH, mode 0600, its
 * directory created 0755) with a one-request protocol.  The client sends one
 * line:
 *
 *   status | sweep | reload [--force] | plan FILE LENGTH | topology [ibnetdiscover|json|dot]
 *   | lfts | lids | routes SRC DST | sls [SRC] | metrics
 *
 * (words split on blanks; "double quotes" keep a node name with blanks in
 * one word; which words each command takes is the table below).  "plan"
 * carries the policy file itself: LENGTH bytes of it follow the line, and
 * FILE only names it in messages -- the daemon never opens a path a client
 * gives.  The server answers "ok" or "error
 * <message>" on the first line, then the body, and closes.  One client at
 * a time: control_serve accepts one pending connection, reads its request
 * (CONTROL_READ_TIMEOUT_MS at most, line and body together, so a silent
 * client cannot stall the SM), answers and closes.
 *
 * DOC: A request is one line of words (blank-separated; "double quotes"
 * keep blanks inside one word).  A command flagged CONTROL_GRAMMAR_BODY
 * carries a file: the client reads it (with its own permissions) and sends
 * its bytes after the line; on the line, the FILE argument is only the
 * name used in messages ("policy.yaml:3:5: ..."), and one more word
 * follows it: the body's length in bytes, at most CONTROL_BODY_MAX:
 *
 *   plan policy.yaml 1234\n<1234 bytes>
 *
 * so the daemon never opens a path a client names.  An option word (e.g.
 * "--force") is allowed anywhere after the command when the command lists
 * it; it does not count as an argument and is passed on as it is.
 */
#ifndef NANOSM_SM_DAEMON_CONTROL_PROTO_H
#define NANOSM_SM_DAEMON_CONTROL_PROTO_H

#include <stddef.h>

#define CONTROL_DEFAULT_PATH "/run/nanosm/nanosm.sock"
#define CONTROL_REQUEST_MAX 4096 /* bytes of a request line, newline included */
/* (a body after the line: at most CONTROL_BODY_MAX, below) */
#define CONTROL_READ_TIMEOUT_MS 1000   /* a client has this long to send its line */
#define CONTROL_STALL_TIMEOUT_MS 1000  /* a reply write making no progress this long ends */
#define CONTROL_WRITE_TIMEOUT_MS 10000 /* a reply write ends after this long in total */

#define CONTROL_MAX_ARGS 3    /* positional words after the command */
#define CONTROL_MAX_OPTIONS 2 /* option words a command may list */
/* the most words a request line holds: command, options, arguments, length */
#define CONTROL_MAX_WORDS (1 + CONTROL_MAX_OPTIONS + CONTROL_MAX_ARGS + 1)
#define CONTROL_BODY_MAX (4u << 20) /* bytes of a file sent with a request */
#define CONTROL_GRAMMAR_BODY 1u	    /* flag: the last argument is a FILE sent as the body */
/* "sls" without SRC answers every CA port LID x every LID ("SLID DLID SL",
 * at most 15 bytes a line) only up to this many lines (about 31 MB; 1K
 * CAs on 1.2K LIDs is 1.2M lines); beyond, it asks for one SRC at a time
 * (at most 48K lines, under 720 KB, each). */
#define CONTROL_SLS_MAX_LINES (2u << 20)
#define CONTROL_TOPOLOGY_FORMATS                                                                   \
	"ibnetdiscover, json, dot, svg or html" /* svg, html: nanosmctl draws them */

/* One command: its name, how many arguments it takes, which option words
 * it accepts, and its usage line ("routes SRC DST"). */
struct control_grammar {
	const char *name;
	int min_args, max_args;
	const char *options[CONTROL_MAX_OPTIONS]; /* "--force"; NULL-padded */
	unsigned flags;				  /* CONTROL_GRAMMAR_BODY */
	const char *usage;
};

/* The command called name, or NULL. */
const struct control_grammar *control_grammar_find(const char *name);

/* "status, sweep, reload, ..." (every command, table order) into buf, cut
 * to size; returns buf. */
const char *control_grammar_names(char *buf, size_t size);

/* Check a command line as a user gives it (word[0] the command; a BODY
 * command's FILE is one word).  Returns the command, or NULL with err set:
 * "unknown command 'x' (commands: ...)", "usage: routes SRC DST",
 * "unknown option '--x' (usage: ...)", "empty request (commands: ...)". */
const struct control_grammar *control_grammar_check(char *const *word, int n, char *err,
						    size_t errlen);

/* The same for a request line on the wire: a BODY command's line carries
 * the body's length as its last word, which is checked (a decimal number,
 * at most CONTROL_BODY_MAX) and returned in *body_len (0 for commands
 * without a body); the words before it are checked as above. */
const struct control_grammar *control_grammar_check_wire(char *const *word, int n, size_t *body_len,
							 char *err, size_t errlen);

/* 1 when word is a format "topology" takes on the wire (ibnetdiscover,
 * json, dot). */
int control_grammar_topology_format(const char *word);
/* 1 when option (e.g. "--force") is among args (NULL-terminated). */
int control_grammar_has_option(char *const *args, const char *option);

#endif
