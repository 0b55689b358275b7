/*
 * sm/daemon/control_priv.h - what the control socket's three files share:
 * a request split into words, the reply being built, and the command
 * table.  control.c parses and answers, control_cmds.c holds the
 * commands, control_socket.c the socket and its bounded reads and writes.
 * Not for use outside sm/daemon/control*.c.
 */
#ifndef NANOSM_SM_DAEMON_CONTROL_PRIV_H
#define NANOSM_SM_DAEMON_CONTROL_PRIV_H

#include <stddef.h>

#include "routing/verify.h"
#include "sm/daemon/control.h"
#include "sm/daemon/control_proto.h"

/* The reply being built: a first-line message (error only) and a body,
 * either printed into body or, for whole texts a producer malloc'ed, owned
 * in text (no copy). */
struct control_reply {
	int failed;
	char msg[512];
	struct text_buf body;
	char *text;
	size_t text_len;
	/* a body made piece by piece while it is written, so that a big answer
	 * (lfts) is never held whole: more(r, b) appends the next piece to b
	 * and returns 1 while pieces remain, 0 after the last, <0 on error
	 * (the answer is then cut short); more_fini frees more_ctx */
	int (*more)(struct control_reply *r, struct text_buf *b);
	void *more_ctx;
	void (*more_fini)(void *ctx);
};

/* One request: its line split into words; arg the words after the command
 * (options where the client put them, a body's length word dropped),
 * NULL-terminated; the body a BODY command carries (borrowed). */
struct control_request {
	char buf[CONTROL_REQUEST_MAX];
	char *word[CONTROL_MAX_WORDS];
	int n;
	char *arg[CONTROL_MAX_WORDS];
	const char *body;
	size_t body_len;
};

/* The handler of a command of sm/daemon/control_proto.c's table. */
struct control_cmd {
	const char *name;
	void (*run)(const struct control_ops *ops, const struct control_request *q,
		    struct control_reply *r);
};

/* Fail the reply with a one-line message (the first failure wins). */
void control_fail(struct control_reply *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Take over a malloc'ed text as the body. */
void control_take_text(struct control_reply *r, char *text, size_t len);
void control_reply_fini(struct control_reply *r);
/* The next piece of a streamed body into b (emptied first): 1 more to
 * come, 0 the last (or no stream), <0 error. */
int control_next_piece(struct control_reply *r, struct text_buf *b);

/* control_lfts.c: the lfts command (streamed, filtered by switch and LIDs). */
void control_cmd_lfts(const struct control_ops *ops, const struct control_request *q,
		      struct control_reply *r);
/* control_cmds.c: the model and its tables, or NULL with the reply failed. */
const struct fabric *control_fabric(const struct control_ops *ops, struct control_reply *r);
const struct lft_set *control_lfts(const struct control_ops *ops, struct control_reply *r);

/* control_cmds.c: the handler of a command, or NULL. */
const struct control_cmd *control_cmd_find(const char *name);

/* control.c: answer the line (len bytes, no newline) and the have bytes of
 * body that came after it into r (control_reply_fini after); the reply's
 * first line ("ok\n" or "error <msg>\n") and its body (borrowed from r). */
void control_run(const struct control_ops *ops, const char *line, size_t len, const char *body,
		 size_t have, struct control_reply *r);
void control_first_line(struct control_reply *r, char *line, size_t size);
void control_body(const struct control_reply *r, const char **body, size_t *len);
/* The body length a request line announces; 0 when none (or the line is
 * one the parser refuses). */
size_t control_announced_body(const char *line, size_t len);

/* control_health.c: `health`, and the health line of `status`. */
void control_cmd_health(const struct control_ops *ops, const struct control_request *q,
			struct control_reply *r);
void control_health_render(struct text_buf *b, const struct fabric *f,
			   const struct control_perf *p);
void control_health_summary(struct text_buf *b, const struct fabric *f,
			    const struct control_perf *p);
/* The DOT picture (malloc'ed, len bytes) with each cable whose verdict is
 * not ok coloured (degrading orange, flapping purple, failing red,
 * penwidth 3); returns the text, moved or not. */
char *control_health_dot(char *dot, size_t *len, const struct fabric *f,
			 const struct control_perf *p);

#endif
