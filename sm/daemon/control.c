/*
 * sm/daemon/control.c - the control protocol's answers: a request line
 * (and the body it announces) split into words, checked against
 * control_proto.c's grammar, handed to its command (control_cmds.c), and
 * the reply made ("ok" or "error <message>", then the body).  Never sees
 * the SM's internals, the event loop or a socket (control_socket.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/daemon/control_priv.h"

void control_fail(struct control_reply *r, const char *fmt, ...)
{
	va_list ap;

	if (r->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	for (char *c = r->msg; *c; c++) /* the message is one line */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	r->failed = 1;
}

void control_take_text(struct control_reply *r, char *text, size_t len)
{
	free(r->text);
	r->text = text;
	r->text_len = len;
}

void control_reply_fini(struct control_reply *r)
{
	text_buf_fini(&r->body);
	free(r->text);
	r->text = NULL;
	if (r->more_fini)
		r->more_fini(r->more_ctx);
	r->more = NULL;
	r->more_fini = NULL;
}

int control_next_piece(struct control_reply *r, struct text_buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
	return r->more && !r->failed ? r->more(r, b) : 0;
}

/* ---- Requests ----------------------------------------------------------- */

/* Split the line (len bytes) into words: blanks separate, "..." keeps
 * blanks inside one word.  Returns 0, or -1 with the reply failed. */
static int control_split(const char *line, size_t len, struct control_request *q,
			 struct control_reply *r)
{
	char *p = q->buf;

	if (len >= sizeof(q->buf)) {
		control_fail(r, "request too long (max %d bytes)", CONTROL_REQUEST_MAX - 1);
		return -1;
	}
	memcpy(q->buf, line, len);
	q->buf[len] = '\0';
	for (q->n = 0;; q->n++) {
		int quoted;

		p += strspn(p, " \t");
		if (!*p)
			return 0;
		if (q->n == CONTROL_MAX_WORDS) {
			control_fail(r, "too many words in the request");
			return -1;
		}
		quoted = *p == '"';
		q->word[q->n] = p + quoted;
		p += quoted + strcspn(p + quoted, quoted ? "\"" : " \t\"");
		if (quoted && *p != '"') {
			control_fail(r, "unterminated quote in the request");
			return -1;
		}
		if (!quoted && *p == '"') {
			control_fail(r, "unexpected quote after '%.*s'",
				     (int)(p - q->word[q->n] < 64 ? p - q->word[q->n] : 64),
				     q->word[q->n]);
			return -1;
		}
		if (*p)
			*p++ = '\0';
	}
}

static int control_printable(const char *line, size_t len, struct control_reply *r)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			control_fail(r, "request contains a control character (0x%02x)", c);
			return -1;
		}
	}
	return 0;
}

/* Split and check a request line; 0 with q filled (its body not yet), or
 * -1 with the reply failed. */
static int control_parse(const char *line, size_t len, struct control_request *q,
			 struct control_reply *r)
{
	const struct control_grammar *g;
	char err[sizeof(r->msg)];
	int words;

	if (control_printable(line, len, r) < 0 || control_split(line, len, q, r) < 0)
		return -1;
	g = control_grammar_check_wire(q->word, q->n, &q->body_len, err, sizeof(err));
	if (!g) {
		control_fail(r, "%s", err);
		return -1;
	}
	words = q->n - (g->flags & CONTROL_GRAMMAR_BODY ? 1 : 0); /* the length is no argument */
	memset(q->arg, 0, sizeof(q->arg));
	for (int i = 1; i < words; i++)
		q->arg[i - 1] = q->word[i];
	return 0;
}

size_t control_announced_body(const char *line, size_t len)
{
	struct control_request q;
	struct control_reply r;

	memset(&r, 0, sizeof(r));
	return control_parse(line, len, &q, &r) == 0 ? q.body_len : 0;
}

/* Answer the line (len bytes, no newline) and the have bytes of body
 * that came after it. */
static void control_dispatch(const struct control_ops *ops, const char *line, size_t len,
			     const char *body, size_t have, struct control_reply *r)
{
	struct control_request q;
	const struct control_cmd *cmd;

	if (control_parse(line, len, &q, r) < 0)
		return;
	if (have < q.body_len) {
		control_fail(r, "the request's body is shorter than its length (%zu of %zu bytes)",
			     have, q.body_len);
		return;
	}
	q.body = body;
	cmd = control_cmd_find(q.word[0]);
	if (!cmd) {
		control_fail(r, "%s is not available", q.word[0]);
		return;
	}
	log_debug("control: %.*s", (int)len, line);
	cmd->run(ops, &q, r);
}

/* The first line: "ok\n" or "error <msg>\n" (a body that could not be
 * built turns the reply into an error). */
void control_first_line(struct control_reply *r, char *line, size_t size)
{
	if (r->body.failed && !r->text) {
		r->failed = 0;
		control_fail(r, "out of memory building the reply");
		text_buf_fini(&r->body);
	}
	if (r->failed)
		snprintf(line, size, "error %s\n", r->msg);
	else
		snprintf(line, size, "ok\n");
}

void control_body(const struct control_reply *r, const char **body, size_t *len)
{
	*body = r->text ? r->text : r->body.s;
	*len = r->text ? r->text_len : r->body.len;
	if (!*body)
		*len = 0;
}

void control_run(const struct control_ops *ops, const char *line, size_t len, const char *body,
		 size_t have, struct control_reply *r)
{
	memset(r, 0, sizeof(*r));
	text_buf_init(&r->body);
	control_dispatch(ops, line, len, body, have, r);
}

/* A streamed body, piece after piece, appended to the whole reply. */
static void control_handle_stream(struct control_reply *r, char **reply, size_t *reply_len)
{
	struct text_buf b;
	int more = 1;

	text_buf_init(&b);
	while (*reply && more > 0) {
		char *grown;

		more = control_next_piece(r, &b);
		if (more < 0 || !b.len)
			continue;
		grown = realloc(*reply, *reply_len + b.len + 1);
		if (!grown) {
			free(*reply);
			*reply = NULL;
			break;
		}
		*reply = grown;
		memcpy(*reply + *reply_len, b.s, b.len + 1);
		*reply_len += b.len;
	}
	text_buf_fini(&b);
}

int control_handle(const struct control_ops *ops, const char *request, size_t len, char **reply,
		   size_t *reply_len)
{
	const char *nl = memchr(request, '\n', len);
	size_t line_len = nl ? (size_t)(nl - request) : len;
	struct control_reply r;
	char first[sizeof(r.msg) + 8];
	const char *body;
	size_t first_len, body_len;

	*reply = NULL;
	*reply_len = 0;
	control_run(ops, request, line_len, nl ? nl + 1 : NULL, nl ? len - line_len - 1 : 0, &r);
	control_first_line(&r, first, sizeof(first));
	control_body(&r, &body, &body_len);
	first_len = strlen(first);
	*reply = malloc(first_len + body_len + 1);
	if (*reply) {
		memcpy(*reply, first, first_len);
		if (body_len)
			memcpy(*reply + first_len, body, body_len);
		(*reply)[first_len + body_len] = '\0';
		*reply_len = first_len + body_len;
	}
	control_handle_stream(&r, reply, reply_len);
	control_reply_fini(&r);
	return *reply ? 0 : -ENOMEM;
}
