/*
 * test_control_serve.c - the control socket (sm/daemon/control.c): the socket
 * file (modes, parent directory, stale/live/foreign files), and control_serve
 * with a client in this process: replies, a silent client (bounded by the read
 * timeout), an oversized request, a client that never reads a large reply, and
 * one that reads it all from a second thread.  Part of suite control
 * (test_control.c), over the fixture of control_test.c.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "routing/lft_file.h"
#include "sm/daemon/control.h"
#include "sm/daemon/control_proto.h"
#include "tests/unit/control_test.h"

/* ---- The socket file ---------------------------------------------------- */

static void test_control_listen(void)
{
	char err[256], dir[320], file[192];
	struct stat st;
	int lfd, again;

	lfd = control_listen(tc.path, err, sizeof(err));
	CU_ASSERT_FATAL(lfd >= 0);
	CU_ASSERT_EQUAL(stat(tc.path, &st), 0);
	CU_ASSERT_TRUE(S_ISSOCK(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	snprintf(dir, sizeof(dir), "%s/run/nanosm", tc.dir);
	CU_ASSERT_EQUAL(stat(dir, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0755);
	/* a second daemon on the same path is refused; the first keeps it */
	again = control_listen(tc.path, err, sizeof(err));
	CU_ASSERT_EQUAL(again, -EADDRINUSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "another process answers on it"));
	/* closed without unlinking: a stale socket file, replaced */
	close(lfd);
	CU_ASSERT_EQUAL(stat(tc.path, &st), 0);
	lfd = control_listen(tc.path, err, sizeof(err));
	CU_ASSERT_FATAL(lfd >= 0);
	control_close(lfd, tc.path);
	CU_ASSERT_NOT_EQUAL(stat(tc.path, &st), 0);
	/* something that is not a socket is never removed */
	snprintf(file, sizeof(file), "%s/file", tc.dir);
	fclose(fopen(file, "w"));
	CU_ASSERT_EQUAL(control_listen(file, err, sizeof(err)), -EEXIST);
	snprintf(dir, sizeof(dir), "control socket %s: the path exists and is not a socket", file);
	CU_ASSERT_STRING_EQUAL(err, dir);
	CU_ASSERT_EQUAL(stat(file, &st), 0);
	CU_ASSERT_EQUAL(
	    control_listen("/tmp/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock",
			   err, sizeof(err)),
	    -ENAMETOOLONG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "path too long (max 107 bytes)"));
	CU_ASSERT_EQUAL(control_listen("", err, sizeof(err)), -EINVAL);
}

/* ---- control_serve with a client in this process ------------------------ */

static uint64_t tc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A blocking client socket connected to path, with a 10 s receive bound. */
static int tc_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 10};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static void tc_send(int fd, const char *s, size_t len)
{
	CU_ASSERT_EQUAL(write(fd, s, len), (ssize_t)len);
}

/* Everything until EOF (NUL-terminated, caller frees). */
static char *tc_read_all(int fd, size_t *len_out)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	ssize_t n;

	while (buf && (n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *bigger = realloc(buf, cap * 2 + 1);

			if (!bigger) {
				free(buf);
				return NULL;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (buf)
		buf[len] = '\0';
	if (len_out)
		*len_out = len;
	return buf;
}

/* Connect, send text, serve once, read the reply. */
static char *tc_over_socket(int lfd, const char *text)
{
	int fd = tc_connect(tc.path);
	char *reply;

	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, text, strlen(text));
	control_serve(lfd, &control_test_ops);
	reply = tc_read_all(fd, NULL);
	close(fd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(reply);
	return reply;
}

static void test_control_serve_commands(void)
{
	char err[256], *want, *got;
	size_t len;
	uint64_t t0;
	int lfd = control_listen(tc.path, err, sizeof(err));

	CU_ASSERT_FATAL(lfd >= 0);
	t0 = tc_now_ms();
	control_serve(lfd, &control_test_ops); /* nobody waiting: returns at once */
	CU_ASSERT_TRUE(tc_now_ms() - t0 < 100);
	got = tc_over_socket(lfd, "status\n");
	CU_ASSERT_EQUAL(strncmp(got, "ok\nstate: MASTER\nsweeping: no\n", 30), 0);
	free(got);
	got = tc_over_socket(lfd, "routes host1 host3\r\n");
	CU_ASSERT_EQUAL(strncmp(got, "ok\n", 3), 0);
	CU_ASSERT_STRING_EQUAL(got + 3, control_test_trace_h1_h3);
	free(got);
	CU_ASSERT_EQUAL_FATAL(lft_file_write_dump_fts(&tc.f, &tc.lfts, &want, &len), 0);
	got = tc_over_socket(lfd, "lfts\nignored trailing text");
	CU_ASSERT_STRING_EQUAL(got + 3, want);
	free(want);
	free(got);
	tc.sweeps = 0;
	got = tc_over_socket(lfd, "sweep\n");
	CU_ASSERT_STRING_EQUAL(got, "ok\nsweep requested\n");
	CU_ASSERT_EQUAL(tc.sweeps, 1);
	free(got);
	got = tc_over_socket(lfd, "nonsense\n");
	CU_ASSERT_EQUAL(strncmp(got, "error unknown command 'nonsense'", 32), 0);
	free(got);
	control_close(lfd, tc.path);
}

/* A request the client ends with shutdown() instead of a newline. */
static void test_control_serve_eof_request(void)
{
	char err[256], *got;
	int lfd = control_listen(tc.path, err, sizeof(err)), fd;

	CU_ASSERT_FATAL(lfd >= 0);
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, "lids", 4);
	shutdown(fd, SHUT_WR);
	control_serve(lfd, &control_test_ops);
	got = tc_read_all(fd, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(strncmp(got, "ok\n0x0002c90300a00011 1 host1\n", 30), 0);
	free(got);
	close(fd);
	/* a client that connects and leaves at once: nothing to answer */
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	control_serve(lfd, &control_test_ops);
	control_close(lfd, tc.path);
}

/* Send part of a request, then nothing: control_serve gives up after the
 * read timeout with the answer want. */
static void tc_serve_stalled(const char *part, const char *want)
{
	char err[256], *got;
	int lfd = control_listen(tc.path, err, sizeof(err)), fd;
	uint64_t t0, took;

	CU_ASSERT_FATAL(lfd >= 0);
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, part, strlen(part));
	t0 = tc_now_ms();
	control_serve(lfd, &control_test_ops);
	took = tc_now_ms() - t0;
	CU_ASSERT_TRUE(took >= CONTROL_READ_TIMEOUT_MS - 50);
	CU_ASSERT_TRUE(took < CONTROL_READ_TIMEOUT_MS + 500);
	got = tc_read_all(fd, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	close(fd);
	control_close(lfd, tc.path);
}

/* Connected, but never a line: control_serve gives up after the timeout. */
static void test_control_serve_silent_client(void)
{
	tc_serve_stalled("sta", "error no request line within 1 s\n");
}

static void test_control_serve_oversized(void)
{
	char err[256], *got, *huge = malloc(CONTROL_REQUEST_MAX + 100);
	int lfd = control_listen(tc.path, err, sizeof(err)), fd;
	uint64_t t0;

	CU_ASSERT_FATAL(lfd >= 0 && huge != NULL);
	memset(huge, 'a', CONTROL_REQUEST_MAX + 100);
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, huge, CONTROL_REQUEST_MAX + 100);
	t0 = tc_now_ms();
	control_serve(lfd, &control_test_ops);
	CU_ASSERT_TRUE(tc_now_ms() - t0 < 500);
	got = tc_read_all(fd, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_STRING_EQUAL(got, "error request too long (max 4095 bytes)\n");
	free(got);
	close(fd);
	/* the longest line that fits: 4095 bytes and its newline */
	memset(huge, ' ', CONTROL_REQUEST_MAX - 1);
	memcpy(huge + CONTROL_REQUEST_MAX - 7, "status", 6);
	huge[CONTROL_REQUEST_MAX - 1] = '\n';
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, huge, CONTROL_REQUEST_MAX);
	control_serve(lfd, &control_test_ops);
	got = tc_read_all(fd, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(strncmp(got, "ok\nstate: MASTER\n", 17), 0);
	free(got);
	close(fd);
	free(huge);
	control_close(lfd, tc.path);
}

/* A client that asks for a large reply and never reads it (nor closes):
 * the server stops after the stall timeout instead of blocking the SM. */
static void test_control_serve_stuck_reader(void)
{
	char err[256];
	int lfd = control_listen(tc.path, err, sizeof(err)), fd;
	uint64_t t0, took;

	CU_ASSERT_FATAL(lfd >= 0);
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, "plan big 0\n", 11);
	t0 = tc_now_ms();
	control_serve(lfd, &control_test_ops);
	took = tc_now_ms() - t0;
	CU_ASSERT_TRUE(took >= CONTROL_STALL_TIMEOUT_MS - 50);
	CU_ASSERT_TRUE(took < CONTROL_STALL_TIMEOUT_MS + 1000);
	close(fd);
	/* one that leaves right after asking: no SIGPIPE, the server goes on */
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, "plan big 0\n", 11);
	close(fd);
	control_serve(lfd, &control_test_ops);
	control_close(lfd, tc.path);
}

struct tc_reader {
	int fd;
	char *text;
	size_t len;
};

static void *tc_reader_main(void *arg)
{
	struct tc_reader *r = arg;

	r->text = tc_read_all(r->fd, &r->len);
	return NULL;
}

/* The same large reply, read by a client thread: it arrives whole. */
static void test_control_serve_large_reply(void)
{
	char err[256];
	int lfd = control_listen(tc.path, err, sizeof(err));
	struct tc_reader r = {0};
	pthread_t th;
	size_t i;

	CU_ASSERT_FATAL(lfd >= 0);
	r.fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(r.fd >= 0);
	tc_send(r.fd, "plan big 0\n", 11);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, tc_reader_main, &r), 0);
	control_serve(lfd, &control_test_ops);
	pthread_join(th, NULL);
	close(r.fd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.text);
	CU_ASSERT_EQUAL(r.len, 3 + TC_BIG_PLAN);
	CU_ASSERT_EQUAL(strncmp(r.text, "ok\nxxx", 6), 0);
	for (i = 3; i < r.len && r.text[i] == 'x'; i++)
		;
	CU_ASSERT_EQUAL(i, r.len);
	free(r.text);
	control_close(lfd, tc.path);
}

struct tc_writer {
	int fd;
	const char *buf;
	size_t len;
	char *reply;
};

/* Send a whole request (larger than the socket buffer), then read the
 * reply. */
static void *tc_writer_main(void *arg)
{
	struct tc_writer *w = arg;
	size_t done = 0;

	while (done < w->len) {
		ssize_t n = write(w->fd, w->buf + done, w->len - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	shutdown(w->fd, SHUT_WR);
	w->reply = tc_read_all(w->fd, NULL);
	return NULL;
}

/* A plan's body of 1 MiB over the socket: the op gets every byte, under
 * the name the client gave. */
static void test_control_serve_plan_body(void)
{
	const size_t body = 1u << 20;
	char err[256], head[64];
	char *req = malloc(body + sizeof(head));
	int lfd = control_listen(tc.path, err, sizeof(err));
	struct tc_writer w = {0};
	size_t hl;
	pthread_t th;

	CU_ASSERT_FATAL(lfd >= 0 && req != NULL);
	hl = (size_t)snprintf(head, sizeof(head), "plan \"my policy.yaml\" %zu\n", body);
	memcpy(req, head, hl);
	memset(req + hl, '#', body);
	memcpy(req + hl, "sm: {}", 6);
	w.fd = tc_connect(tc.path);
	w.buf = req;
	w.len = hl + body;
	CU_ASSERT_FATAL(w.fd >= 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, tc_writer_main, &w), 0);
	control_serve(lfd, &control_test_ops);
	pthread_join(th, NULL);
	close(w.fd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w.reply);
	CU_ASSERT_STRING_EQUAL(w.reply, "ok\nrouting: ftree,updn,minhop -> minhop\nnothing would "
					"change\n");
	CU_ASSERT_STRING_EQUAL(tc.plan_name, "my policy.yaml");
	CU_ASSERT_EQUAL(tc.plan_len, body);
	CU_ASSERT_EQUAL(strncmp(tc.plan_text, "sm: {}####", 10), 0);
	free(w.reply);
	free(req);
	control_close(lfd, tc.path);
}

/* A body that stops coming: refused after the read timeout, the op never
 * runs. */
static void test_control_serve_body_timeout(void)
{
	tc.plan_calls = 0;
	tc_serve_stalled("plan p.yaml 10\nsm:",
			 "error the request's body did not come within 1 s (3 of 10 bytes)\n");
	CU_ASSERT_EQUAL(tc.plan_calls, 0);
}

/* The tests of this file, in suite control (test_control.c). */
void test_control_serve_add(CU_pSuite s)
{
	CU_add_test(s, "socket file: modes, stale, live, foreign", test_control_listen);
	CU_add_test(s, "serve: commands over the socket", test_control_serve_commands);
	CU_add_test(s, "serve: request ended by EOF, client gone", test_control_serve_eof_request);
	CU_add_test(s, "serve: silent client times out", test_control_serve_silent_client);
	CU_add_test(s, "serve: oversized request", test_control_serve_oversized);
	CU_add_test(s, "serve: client never reads the reply", test_control_serve_stuck_reader);
	CU_add_test(s, "serve: large reply read by a thread", test_control_serve_large_reply);
	CU_add_test(s, "serve: a plan's 1 MiB body", test_control_serve_plan_body);
	CU_add_test(s, "serve: a body that stops coming", test_control_serve_body_timeout);
}
