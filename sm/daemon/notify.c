/*
 * sm/daemon/notify.c - sd_notify(3) by hand: build the datagram (pure), send it to
 * $NOTIFY_SOCKET (a few lines of socket code).  Owns one datagram socket;
 * knows nothing of the SM beyond struct sm_sweep_stats, nor of the loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sm/core/log.h"
#include "sm/daemon/notify.h"

/* ---- Pure ---------------------------------------------------------------- */

static const char *notify_head(enum notify_event ev)
{
	switch (ev) {
	case NOTIFY_READY:
		return "READY=1\n";
	case NOTIFY_STATUS:
		return "";
	case NOTIFY_RELOADING:
		return "RELOADING=1\n";
	case NOTIFY_STOPPING:
		return "STOPPING=1\n";
	}
	return NULL;
}

int notify_format(enum notify_event ev, const char *status, uint64_t mono_usec, char *buf,
		  size_t size)
{
	const char *head = notify_head(ev);
	int n;

	if (!head)
		return -EINVAL;
	n = snprintf(buf, size, "%s", head);
	if (ev == NOTIFY_RELOADING && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "MONOTONIC_USEC=%llu\n",
			      (unsigned long long)mono_usec);
	if (status && status[0] && n >= 0 && (size_t)n < size) {
		int at = n + 7; /* after "STATUS=" */

		n += snprintf(buf + n, size - (size_t)n, "STATUS=%s\n", status);
		for (int i = at; i < n - 1 && (size_t)i < size; i++)
			if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
				buf[i] = ' ';
	}
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	if (n > 0 && buf[n - 1] == '\n') /* no newline after the last assignment */
		buf[--n] = '\0';
	return n;
}

int notify_addr(const char *value, struct sockaddr_un *sa, socklen_t *len)
{
	size_t n = value ? strlen(value) : 0;

	if (!n || (value[0] != '/' && value[0] != '@'))
		return -EINVAL;
	if (n > sizeof(sa->sun_path) - (value[0] == '/'))
		return -ENAMETOOLONG;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, value, n);
	if (value[0] == '@')
		sa->sun_path[0] = '\0';
	/* a path counts its NUL; an abstract name is exactly its bytes */
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (value[0] == '/'));
	return 0;
}

int notify_status_sweep(const struct sm_sweep_stats *st, unsigned last_good, char *buf, size_t size)
{
	if (st->sm_state == SM_STATE_STANDBY)
		return snprintf(buf, size, "standby (sweep %u)", st->number);
	if (st->status) {
		if (last_good)
			return snprintf(buf, size,
					"sweep %u failed (%s); last good sweep %u in force",
					st->number, strerror(-st->status), last_good);
		return snprintf(buf, size, "sweep %u failed (%s); no good sweep yet", st->number,
				strerror(-st->status));
	}
	return snprintf(buf, size, "sweep %u ok: %zu switches, %zu CAs, %zu LIDs, engine %s",
			st->number, st->switches, st->cas, st->lids,
			st->engine ? st->engine : "none");
}

/* ---- The socket ---------------------------------------------------------- */

int notify_open(struct notify *n)
{
	const char *value = getenv("NOTIFY_SOCKET");
	int rc;

	memset(n, 0, sizeof(*n));
	n->fd = -1;
	if (!value)
		return 0;
	rc = notify_addr(value, &n->sa, &n->len);
	if (rc < 0) {
		log_warnx("NSM-W910 NOTIFY_SOCKET='%s' is not a unix socket path or @name: %s; "
			  "systemd will not hear from nanosm",
			  value, strerror(-rc));
		return rc;
	}
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (n->fd < 0) {
		rc = -errno;
		log_warn("NSM-W910 NOTIFY_SOCKET %s: socket", value);
		return rc;
	}
	return 0;
}

static uint64_t notify_mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void notify_send(struct notify *n, enum notify_event ev, const char *status)
{
	char msg[NOTIFY_MSG_MAX];
	int len;

	if (n->fd < 0)
		return;
	len = notify_format(ev, status, ev == NOTIFY_RELOADING ? notify_mono_usec() : 0, msg,
			    sizeof(msg));
	if (len < 0) /* a status too long: the event without it */
		len = notify_format(ev, NULL, notify_mono_usec(), msg, sizeof(msg));
	if (len <= 0)
		return;
	if (sendto(n->fd, msg, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&n->sa,
		   n->len) < 0) {
		if (!n->warned)
			log_warn("NSM-W910 sd_notify to NOTIFY_SOCKET failed (said once)");
		n->warned = 1;
		return;
	}
	if (ev == NOTIFY_READY)
		n->ready = 1;
	log_debug("sd_notify: %.*s", len, msg);
}

void notify_close(struct notify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}
