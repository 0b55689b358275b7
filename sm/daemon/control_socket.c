/*
 * sm/daemon/control_socket.c - the control socket itself: made (its
 * directory, a stale socket replaced, a live one refused), one client
 * accepted at a time, its request read within CONTROL_READ_TIMEOUT_MS, the
 * reply written within the write bounds, closed.  Owns the socket file.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "mad/text.h"
#include "sm/core/log.h"
#include "sm/daemon/control_priv.h"

#define CONTROL_DRAIN_MAX 65536

/* ---- The socket file ---------------------------------------------------- */

/* mkdir -p of path's directory; directories it creates get mode 0755. */
static int control_make_parent(const char *path, char *err, size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		char keep = *p;

		if (keep != '/' && keep != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) == 0)
			chmod(dir, 0755); /* whatever the umask */
		else if (errno != EEXIST)
			return text_err(err, errlen, -errno,
					"control socket %s: cannot create %s: %s", path, dir,
					strerror(errno));
		*p = keep;
		if (!keep)
			return 0;
	}
}

static int control_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

/* Remove a stale socket file; refuse a live one or anything else. */
static int control_clear_stale(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0
				       : text_err(err, errlen, -errno, "control socket %s: %s",
						  path, strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return text_err(err, errlen, -EEXIST,
				"control socket %s: the path exists and is not a socket", path);
	if (control_connect(path) == 0)
		return text_err(err, errlen, -EADDRINUSE,
				"control socket %s: another process answers on it "
				"(is nanosm already running?)",
				path);
	if (unlink(path) < 0 && errno != ENOENT)
		return text_err(err, errlen, -errno, "control socket %s: cannot remove it: %s",
				path, strerror(errno));
	return 0;
}

/* bind, then chmod 0600 before listen: nobody can connect in between. */
static int control_bind(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), rc;
	const char *what = "socket";

	if (fd < 0)
		return text_err(err, errlen, -errno, "control socket %s: socket: %s", path,
				strerror(errno));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		what = "bind";
	else if (chmod(path, 0600) < 0)
		what = "chmod";
	else if (listen(fd, 16) < 0)
		what = "listen";
	else
		return fd;
	rc = -errno;
	text_err(err, errlen, rc, "control socket %s: %s: %s", path, what, strerror(-rc));
	if (strcmp(what, "bind"))
		unlink(path);
	close(fd);
	return rc;
}

int control_listen(const char *path, char *err, size_t errlen)
{
	int rc;

	if (errlen)
		err[0] = '\0';
	if (!path || !path[0])
		return text_err(err, errlen, -EINVAL, "control socket: empty path");
	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return text_err(err, errlen, -ENAMETOOLONG,
				"control socket %s: path too long (max %zu bytes)", path,
				sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
	rc = control_make_parent(path, err, errlen);
	if (!rc)
		rc = control_clear_stale(path, err, errlen);
	if (!rc)
		rc = control_bind(path, err, errlen);
	return rc;
}

void control_close(int lfd, const char *path)
{
	if (lfd < 0)
		return;
	close(lfd);
	if (path)
		unlink(path);
}

/* ---- One client --------------------------------------------------------- */

static uint64_t control_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wait for events on fd until deadline; 1 ready, 0 timed out, -errno.
 * ppoll, not poll: under ibsim, umad2sim wraps poll() behind a lock that
 * a send blocked in umad2sim holds (a simulator that stopped reading), and
 * the loop thread must never wait for a send (docs/design.md, Threads). */
static int control_wait(int fd, short events, uint64_t deadline)
{
	for (;;) {
		uint64_t now = control_now_ms(), ms;
		struct pollfd pfd = {.fd = fd, .events = events};
		struct timespec left;
		int n;

		if (now >= deadline)
			return 0;
		ms = deadline - now;
		left = (struct timespec){(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
		n = ppoll(&pfd, 1, &left, NULL);
		if (n > 0)
			return 1;
		if (n == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

enum control_read_result { CONTROL_LINE, CONTROL_GONE, CONTROL_TIMEOUT, CONTROL_TOO_LONG };

/* A request as read from a client: its line (newline and a CR before it
 * cut) and the body the line announces. */
struct control_in {
	char line[CONTROL_REQUEST_MAX + 1];
	size_t line_len; /* bytes of the line, without its newline */
	size_t have;	 /* bytes read into line[] (the body's first ones included) */
	size_t rest;	 /* where the bytes after the newline start in line[] */
	char *body;	 /* malloc'ed, body_len bytes announced, body_have read */
	size_t body_len, body_have;
};

/* Find the line's newline in in->line; 1 if there was one. */
static int control_cut_line(struct control_in *in)
{
	char *nl = memchr(in->line, '\n', in->have);

	if (!nl)
		return 0;
	*nl = '\0';
	in->rest = (size_t)(nl - in->line) + 1;
	in->line_len = (size_t)(nl - in->line);
	if (nl > in->line && nl[-1] == '\r')
		nl[-1] = '\0', in->line_len--;
	return 1;
}

/* Read up to cap bytes more into buf at *have: 1 some came, 0 EOF, or
 * CONTROL_TIMEOUT / CONTROL_GONE (negated) once deadline passed. */
static int control_read_some(int fd, char *buf, size_t *have, size_t cap, uint64_t deadline)
{
	for (;;) {
		ssize_t got = read(fd, buf + *have, cap - *have);
		int w;

		if (got > 0) {
			*have += (size_t)got;
			return 1;
		}
		if (got == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -CONTROL_GONE;
		w = control_wait(fd, POLLIN, deadline);
		if (w <= 0)
			return w == 0 ? -CONTROL_TIMEOUT : -CONTROL_GONE;
	}
}

/* Read one request line into in->line: up to its newline, or EOF after
 * some bytes; until deadline. */
static enum control_read_result control_read_line(int fd, struct control_in *in, uint64_t deadline)
{
	for (;;) {
		int rc = control_read_some(fd, in->line, &in->have, CONTROL_REQUEST_MAX, deadline);

		if (rc < 0)
			return (enum control_read_result) - rc;
		in->line[in->have] = '\0';
		if (rc == 0) {
			in->line_len = in->rest = in->have;
			return in->have ? CONTROL_LINE : CONTROL_GONE;
		}
		if (control_cut_line(in))
			return CONTROL_LINE;
		if (in->have == CONTROL_REQUEST_MAX)
			return CONTROL_TOO_LONG;
	}
}

/* Read the body the line announces (what came with the line first), until
 * EOF, its length or deadline.  A short body is left for
 * control_dispatch to refuse. */
static enum control_read_result control_read_body(int fd, struct control_in *in, uint64_t deadline)
{
	size_t extra = in->have - in->rest;
	int rc = 1;

	in->body_len = control_announced_body(in->line, in->line_len);
	if (!in->body_len)
		return CONTROL_LINE;
	in->body = malloc(in->body_len);
	if (!in->body) {
		log_warnx("NSM-W701 control: out of memory for a %zu-byte request", in->body_len);
		return CONTROL_GONE;
	}
	in->body_have = extra < in->body_len ? extra : in->body_len;
	memcpy(in->body, in->line + in->rest, in->body_have);
	while (rc > 0 && in->body_have < in->body_len)
		rc = control_read_some(fd, in->body, &in->body_have, in->body_len, deadline);
	return rc < 0 ? (enum control_read_result) - rc : CONTROL_LINE;
}

/* Send all of buf: stop after CONTROL_STALL_TIMEOUT_MS without progress or
 * CONTROL_WRITE_TIMEOUT_MS in all.  Returns 0 or -errno. */
static int control_write_all(int fd, const char *buf, size_t len)
{
	uint64_t end = control_now_ms() + CONTROL_WRITE_TIMEOUT_MS;
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, buf + done, len - done, MSG_NOSIGNAL);
		uint64_t stall;
		int w;

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		stall = control_now_ms() + CONTROL_STALL_TIMEOUT_MS;
		w = control_wait(fd, POLLOUT, stall < end ? stall : end);
		if (w <= 0)
			return w < 0 ? w : -ETIMEDOUT;
	}
	return 0;
}

/* Discard what an oversized request still has queued (best effort), so
 * the client reads our error rather than a reset. */
static void control_drain(int fd)
{
	char junk[4096];
	size_t total = 0;
	ssize_t n;

	while (total < CONTROL_DRAIN_MAX && (n = read(fd, junk, sizeof(junk))) > 0)
		total += (size_t)n;
}

/* Only root and our own user may talk to the SM. */
static int control_peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return 0;
	return cred.uid == 0 || cred.uid == geteuid();
}

/* Answer the request: first line, then the body, without copying it. */
static void control_answer(int fd, const struct control_ops *ops, const struct control_in *in)
{
	struct control_reply r;
	char first[sizeof(r.msg) + 8];
	const char *body;
	size_t len;
	int rc;

	control_run(ops, in->line, in->line_len, in->body, in->body_have, &r);
	control_first_line(&r, first, sizeof(first));
	control_body(&r, &body, &len);
	rc = control_write_all(fd, first, strlen(first));
	if (!rc && len)
		rc = control_write_all(fd, body, len);
	if (!rc && r.more) { /* a streamed body: one piece at a time */
		struct text_buf b;
		int more = 1;

		text_buf_init(&b);
		while (!rc && more > 0) {
			more = control_next_piece(&r, &b);
			if (b.len)
				rc = control_write_all(fd, b.s, b.len);
			len += b.len;
		}
		text_buf_fini(&b);
	}
	if (rc < 0)
		log_warnx("NSM-W702 control: reply to '%.40s' not delivered (%zu bytes): %s",
			  in->line, strlen(first) + len,
			  rc == -ETIMEDOUT ? "the client stopped reading" : strerror(-rc));
	control_reply_fini(&r);
}

static void control_refuse(int fd, const char *msg)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "error %s\n", msg);

	control_write_all(fd, line, (size_t)n);
}

/* The line, then its body, both within CONTROL_READ_TIMEOUT_MS. */
static enum control_read_result control_read_request(int fd, struct control_in *in)
{
	uint64_t deadline = control_now_ms() + CONTROL_READ_TIMEOUT_MS;
	enum control_read_result rc = control_read_line(fd, in, deadline);

	return rc == CONTROL_LINE ? control_read_body(fd, in, deadline) : rc;
}

static void control_timed_out(int fd, const struct control_in *in)
{
	char msg[160];

	if (in->body_len)
		snprintf(msg, sizeof(msg),
			 "the request's body did not come within 1 s (%zu of %zu bytes)",
			 in->body_have, in->body_len);
	else
		snprintf(msg, sizeof(msg), "no request line within 1 s");
	log_warnx("NSM-W701 control: %s; dropped the client", msg);
	control_refuse(fd, msg);
}

void control_serve(int lfd, const struct control_ops *ops)
{
	struct control_in in;
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		    errno != ECONNABORTED)
			log_warn("NSM-W701 control: accept");
		return;
	}
	if (!control_peer_allowed(fd)) {
		log_warnx("NSM-W701 control: a client of another user was refused");
		control_refuse(fd, "permission denied");
		close(fd);
		return;
	}
	memset(&in, 0, sizeof(in));
	switch (control_read_request(fd, &in)) {
	case CONTROL_LINE:
		control_answer(fd, ops, &in);
		break;
	case CONTROL_TIMEOUT:
		control_timed_out(fd, &in);
		break;
	case CONTROL_TOO_LONG:
		log_warnx("NSM-W701 control: request longer than %d bytes refused",
			  CONTROL_REQUEST_MAX - 1);
		control_drain(fd);
		control_refuse(fd, "request too long (max 4095 bytes)");
		break;
	case CONTROL_GONE:
		break;
	}
	free(in.body);
	close(fd);
}
