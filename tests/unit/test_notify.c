/*
 * test_notify.c - unit tests for sm/daemon/notify.c: the datagrams (READY,
 * STATUS, RELOADING with MONOTONIC_USEC, STOPPING; a status cut to one
 * line; too long for the buffer), $NOTIFY_SOCKET parsing (path, @abstract,
 * the length limits, forms we refuse), the sweep status text, and one
 * datagram really sent to an abstract socket this test binds.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sm/core/log.h"
#include "sm/daemon/notify.h"
#include "tests/unit/unit.h"

static void test_notify_format(void)
{
	char buf[NOTIFY_MSG_MAX], tiny[16];

	CU_ASSERT_EQUAL(notify_format(NOTIFY_READY, "sweep 1 ok", 0, buf, sizeof(buf)),
			(int)strlen("READY=1\nSTATUS=sweep 1 ok"));
	CU_ASSERT_STRING_EQUAL(buf, "READY=1\nSTATUS=sweep 1 ok");
	notify_format(NOTIFY_STATUS, "sweep 2 ok", 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "STATUS=sweep 2 ok");
	notify_format(NOTIFY_RELOADING, "reloading", 1234567, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "RELOADING=1\nMONOTONIC_USEC=1234567\nSTATUS=reloading");
	notify_format(NOTIFY_STOPPING, "stopping", 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "STOPPING=1\nSTATUS=stopping");
	/* no status: the event alone */
	notify_format(NOTIFY_READY, NULL, 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "READY=1");
	notify_format(NOTIFY_STOPPING, "", 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "STOPPING=1");
	CU_ASSERT_EQUAL(notify_format(NOTIFY_STATUS, NULL, 0, buf, sizeof(buf)), 0);
	/* a status cannot smuggle in another assignment */
	notify_format(NOTIFY_STATUS, "x\nREADY=1\tb\x7f", 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "STATUS=x READY=1 b ");
	/* too long, unknown event */
	CU_ASSERT_EQUAL(notify_format(NOTIFY_READY, "a status too long", 0, tiny, sizeof(tiny)),
			-ENOSPC);
	CU_ASSERT_EQUAL(notify_format(NOTIFY_RELOADING, NULL, 1234567890123ULL, tiny, sizeof(tiny)),
			-ENOSPC);
	CU_ASSERT_EQUAL(notify_format((enum notify_event)99, "x", 0, buf, sizeof(buf)), -EINVAL);
}

static void test_notify_addr(void)
{
	struct sockaddr_un sa;
	socklen_t len = 0;
	char name[sizeof(sa.sun_path) + 2];
	size_t base = offsetof(struct sockaddr_un, sun_path);

	CU_ASSERT_EQUAL(notify_addr("/run/systemd/notify", &sa, &len), 0);
	CU_ASSERT_EQUAL(sa.sun_family, AF_UNIX);
	CU_ASSERT_STRING_EQUAL(sa.sun_path, "/run/systemd/notify");
	CU_ASSERT_EQUAL(len, base + strlen("/run/systemd/notify") + 1);

	CU_ASSERT_EQUAL(notify_addr("@/org/freedesktop/systemd1/notify/42", &sa, &len), 0);
	CU_ASSERT_EQUAL(sa.sun_path[0], '\0');
	CU_ASSERT_EQUAL(memcmp(sa.sun_path + 1, "/org/freedesktop/systemd1/notify/42", 35), 0);
	CU_ASSERT_EQUAL(len, base + 36); /* the NUL and the name, nothing after */

	/* the limits: a path needs room for its NUL, an abstract name does not */
	memset(name, 'a', sizeof(name));
	name[0] = '/';
	name[sizeof(sa.sun_path) - 1] = '\0';
	CU_ASSERT_EQUAL(notify_addr(name, &sa, &len), 0);
	name[sizeof(sa.sun_path) - 1] = 'a';
	name[sizeof(sa.sun_path)] = '\0';
	CU_ASSERT_EQUAL(notify_addr(name, &sa, &len), -ENAMETOOLONG);
	name[0] = '@';
	CU_ASSERT_EQUAL(notify_addr(name, &sa, &len), 0);
	CU_ASSERT_EQUAL(len, base + sizeof(sa.sun_path));
	name[sizeof(sa.sun_path)] = 'a';
	name[sizeof(sa.sun_path) + 1] = '\0';
	CU_ASSERT_EQUAL(notify_addr(name, &sa, &len), -ENAMETOOLONG);

	CU_ASSERT_EQUAL(notify_addr(NULL, &sa, &len), -EINVAL);
	CU_ASSERT_EQUAL(notify_addr("", &sa, &len), -EINVAL);
	CU_ASSERT_EQUAL(notify_addr("run/notify", &sa, &len), -EINVAL);
	CU_ASSERT_EQUAL(notify_addr("vsock:2:1234", &sa, &len), -EINVAL);
}

static void test_notify_status(void)
{
	struct sm_sweep_stats st = {.number = 3,
				    .switches = 2,
				    .cas = 4,
				    .lids = 6,
				    .engine = "updn",
				    .sm_state = SM_STATE_MASTER};
	char buf[160];

	notify_status_sweep(&st, 3, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "sweep 3 ok: 2 switches, 4 CAs, 6 LIDs, engine updn");
	st.engine = NULL;
	notify_status_sweep(&st, 3, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "sweep 3 ok: 2 switches, 4 CAs, 6 LIDs, engine none");
	st.number = 4;
	st.status = -ETIMEDOUT;
	notify_status_sweep(&st, 3, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "sweep 4 failed (Connection timed out); last good sweep 3 in "
				    "force");
	notify_status_sweep(&st, 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "sweep 4 failed (Connection timed out); no good sweep yet");
	st.status = 0;
	st.number = 5;
	st.sm_state = SM_STATE_STANDBY;
	notify_status_sweep(&st, 3, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "standby (sweep 5)");
}

/* A datagram socket bound to an abstract name, as systemd's would be. */
static int tn_listen(char *env, size_t size)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(env, size, "@nanosm-unit-notify-%d", (int)getpid());
	if (fd < 0 || notify_addr(env, &sa, &len) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, len) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void test_notify_send(void)
{
	struct notify n;
	char env[64], got[NOTIFY_MSG_MAX];
	int fd = tn_listen(env, sizeof(env)), level = log_level_get();
	ssize_t len;

	CU_ASSERT_FATAL(fd >= 0);
	/* unset: off, every send a no-op */
	unsetenv("NOTIFY_SOCKET");
	CU_ASSERT_EQUAL(notify_open(&n), 0);
	CU_ASSERT_EQUAL(n.fd, -1);
	notify_send(&n, NOTIFY_READY, "x");
	CU_ASSERT_EQUAL(n.ready, 0);
	notify_close(&n);

	setenv("NOTIFY_SOCKET", env, 1);
	CU_ASSERT_EQUAL_FATAL(notify_open(&n), 0);
	CU_ASSERT(n.fd >= 0);
	notify_send(&n, NOTIFY_READY, "sweep 1 ok");
	CU_ASSERT_EQUAL(n.ready, 1);
	len = recv(fd, got, sizeof(got) - 1, MSG_DONTWAIT);
	CU_ASSERT_EQUAL_FATAL(len, (ssize_t)strlen("READY=1\nSTATUS=sweep 1 ok"));
	got[len] = '\0';
	CU_ASSERT_STRING_EQUAL(got, "READY=1\nSTATUS=sweep 1 ok");
	notify_send(&n, NOTIFY_RELOADING, NULL);
	len = recv(fd, got, sizeof(got) - 1, MSG_DONTWAIT);
	CU_ASSERT_FATAL(len > 0);
	got[len] = '\0';
	CU_ASSERT_EQUAL(strncmp(got, "RELOADING=1\nMONOTONIC_USEC=", 27), 0);
	notify_close(&n);
	CU_ASSERT_EQUAL(n.fd, -1);

	/* nobody listening any more: the send fails quietly (logged once) */
	log_init(LOG_LVL_ERR, NULL);
	CU_ASSERT_EQUAL_FATAL(notify_open(&n), 0);
	close(fd);
	notify_send(&n, NOTIFY_STOPPING, "stopping");
	notify_send(&n, NOTIFY_STOPPING, "stopping");
	CU_ASSERT_EQUAL(n.warned, 1);
	notify_close(&n);
	/* a form we do not speak: refused, off */
	setenv("NOTIFY_SOCKET", "vsock:2:1", 1);
	CU_ASSERT_EQUAL(notify_open(&n), -EINVAL);
	CU_ASSERT_EQUAL(n.fd, -1);
	unsetenv("NOTIFY_SOCKET");
	log_init(level, NULL);
}

void test_notify_register(void)
{
	CU_pSuite s = CU_add_suite("notify", NULL, NULL);

	CU_add_test(s, "datagram text", test_notify_format);
	CU_add_test(s, "NOTIFY_SOCKET: path, @abstract, limits", test_notify_addr);
	CU_add_test(s, "status after a sweep", test_notify_status);
	CU_add_test(s, "send to an abstract socket", test_notify_send);
}
