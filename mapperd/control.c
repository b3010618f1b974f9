// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control socket: connections, their limits, request lines, replies.
 *
 * The socket is open to every local user and shares the daemon's one
 * epoll loop with fanotify, the kernel log, signals and scan completions,
 * so no client may make that loop wait.  Nothing here blocks: a reply is
 * queued whole and sent as the client takes it (EPOLLOUT); a client whose
 * queue is long is not read until it drains; each wakeup handles a few
 * requests of one client and leaves the rest to a later turn (a timerfd
 * that fires at once, so epoll serves every other ready source first);
 * a client that neither asks nor reads for a while is dropped; each user
 * has a bounded number of connections and of requests a second; and some
 * connection slots are kept for root and the control group.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "control.h"
#include "control_io.h"
#include "control_socket.h"
#include "daemon.h"
#include "log.h"
#include "plan_look.h"
#include "ratelimit.h"

/* Connections at once.  Each costs a line buffer and a reply queue; 64 is
 * many more than the administrators and monitoring of one host open. */
#define MAX_CLIENTS 64
/* Of those, the last ROOT_RESERVED are only for root and the last
 * PRIV_RESERVED for root or the control group, so the users who can act
 * on a problem still get in when everyone else has filled the rest. */
#define ROOT_RESERVED 4
#define PRIV_RESERVED 8
/* Connections of one user other than root: mapctl opens one per command,
 * so this leaves room for a few scripts at once and no more. */
#define PER_UID_MAX 8
/* Requests of one user other than root: a burst of 64, then 16 a second.
 * mapctl asks once per connection and monitoring polls once a second;
 * every status request costs database queries in the loop. */
#define RATE_BURST 64.0
#define RATE_PER_SEC 16.0
/* Users remembered for their request budget: every connected user plus
 * those whose budget has not refilled yet. */
#define UID_SLOTS (2 * MAX_CLIENTS)
/* Requests of one client handled per wakeup before the loop serves the
 * others, and requests in one deferred round over all clients: a status
 * reply takes well under a millisecond, so a wakeup stays short. */
#define REQS_PER_WAKEUP 4
#define REQS_PER_ROUND 16
/* Connections accepted per wakeup (the backlog holds the rest). */
#define ACCEPTS_PER_WAKEUP 16
/* Replies waiting beyond this stop the reading of a client's requests
 * until it takes them: about 60 status replies, more than any client
 * that reads its answers has in flight. */
#define OUT_SOFT (64u << 10)
/* A client that neither sends a request byte nor takes a reply byte for
 * this long is dropped: mapctl writes at once and reads to the end, so
 * only a stuck or hostile peer is this slow. */
#define IDLE_TIMEOUT_MS 15000
/* Refused connections are logged at most this often (a flood of connects
 * must not become a flood of log lines). */
#define REFUSE_LOG_MS 10000

struct uid_slot {
	bool used;
	uid_t uid;
	int conns;
	struct md_ratelimit rate;
};

struct client {
	struct md_watch w;
	struct md_control *ctl;
	struct md_peer peer;
	struct uid_slot *slot;		/* NULL for root: no per-user limits */
	struct md_ctl_in in;
	struct md_ctl_out out;
	uint32_t interest;		/* the events epoll watches for now */
	int64_t active_ms;		/* last byte in or out (monotonic) */
	bool plan_wait;			/* its reply is worked out off the loop */
	bool eof;			/* the peer sends no more */
	bool closing;			/* answer no more; close once sent */
};

struct md_control {
	struct md_watch listen;
	struct md_watch timer;		/* deferred requests and idle clients */
	char path[PATH_MAX];
	ino_t ino;			/* of our socket file, to remove only ours */
	struct client *clients[MAX_CLIENTS];
	int nclients;
	int next;			/* round-robin start for deferred requests */
	struct uid_slot uids[UID_SLOTS];
	uint64_t refused, cut_off, timed_out;
	int64_t refuse_log_ms;
	struct md_plan_looks *looks;	/* repair-plan's, off the loop */
};

static int64_t mono_ms(void)
{
	return (int64_t)(md_mono() * 1000.0);
}

/* ---- per-user slots ---- */

static struct uid_slot *uid_slot_get(struct md_control *ctl, uid_t uid, int64_t now)
{
	struct uid_slot *free_slot = NULL;

	for (int i = 0; i < UID_SLOTS; i++) {
		struct uid_slot *s = &ctl->uids[i];

		if (s->used && s->uid == uid)
			return s;
		/* A user with no connection and a full budget is forgotten. */
		if (!free_slot && (!s->used || (s->conns == 0 &&
		    md_ratelimit_full(&s->rate, now / 1000.0, RATE_PER_SEC, RATE_BURST))))
			free_slot = s;
	}
	if (free_slot) {
		free_slot->used = true;
		free_slot->uid = uid;
		free_slot->conns = 0;
		memset(&free_slot->rate, 0, sizeof(free_slot->rate));	/* full */
	}
	return free_slot;
}

/* ---- clients ---- */

static void timer_arm(struct md_daemon *d, int64_t in_ms);

static void client_close(struct md_daemon *d, struct client *c)
{
	struct md_control *ctl = c->ctl;

	for (int i = 0; i < ctl->nclients; i++) {
		if (ctl->clients[i] == c) {
			ctl->clients[i] = ctl->clients[--ctl->nclients];
			break;
		}
	}
	if (c->slot)
		c->slot->conns--;
	if (c->plan_wait)
		md_plan_look_abandon(ctl->looks, c);
	md_watch_del(d, &c->w);
	close(c->w.fd);
	md_ctl_out_free(&c->out);
	free(c);
}

/* Queue a final error and stop taking requests from this client. */
static void client_refuse(struct client *c, const char *msg)
{
	md_ctl_out_add(&c->out, msg, strlen(msg));
	c->closing = true;
}

/* Send what the client takes now; false when the peer is gone. */
static bool client_flush(struct client *c, int64_t now)
{
	size_t sent = 0;
	int rc = md_ctl_out_send(&c->out, c->w.fd, &sent);

	if (sent)
		c->active_ms = now;
	return rc == 0 || rc == -EAGAIN;
}

/* Has requests it may run now (not held back by its unsent replies, nor
 * by a reply still being worked out: replies go in the requests' order)? */
static bool client_runnable(const struct client *c)
{
	return !c->closing && !c->plan_wait && md_ctl_out_pending(&c->out) < OUT_SOFT &&
	       md_ctl_in_has_line(&c->in);
}

/* Handle up to @budget complete lines; returns how many were handled. */
static int client_work(struct md_daemon *d, struct client *c, int budget, int64_t now)
{
	static char line[MD_CTL_LINE_MAX];
	int done = 0;

	/* Not client_runnable(): a line that fills the buffer without ending
	 * must still be taken, to be refused as too long. */
	while (done < budget && !c->closing && !c->plan_wait &&
	       md_ctl_out_pending(&c->out) < OUT_SOFT) {
		int rc = md_ctl_in_take(&c->in, line, sizeof(line));

		if (rc == 0)
			break;
		done++;
		if (rc == -E2BIG) {
			client_refuse(c, "error: request line too long\n");
			break;
		}
		if (rc < 0) {
			client_refuse(c, "error: request contains a NUL byte\n");
			break;
		}
		if (c->slot && !md_ratelimit_take(&c->slot->rate, now / 1000.0, RATE_PER_SEC, RATE_BURST)) {
			c->ctl->cut_off++;
			log_notice("control: %s (pid %d) sends requests faster than %.0f a second: "
				   "disconnected", md_peer_name(&c->peer), (int)c->peer.pid,
				   RATE_PER_SEC);
			client_refuse(c, "error: too many requests; disconnected\n");
			break;
		}
		struct md_buf reply = { 0 };
		bool later = false;

		md_control_handle(d, &c->peer, line, &reply, c, &later);
		c->plan_wait = later;
		rc = reply.failed ? -ENOMEM : md_ctl_out_add(&c->out, reply.p ? reply.p : "",
							     reply.len);
		md_buf_free(&reply);
		if (rc) {
			log_warn("control: reply to %s not sent: %s", md_peer_name(&c->peer),
				 map_strerror(rc));
			client_refuse(c, "error: reply too large or out of memory\n");
		}
	}
	return done;
}

/*
 * After any change: close a client that is finished, else watch for what
 * it is waiting for.  Input is read only while there is room for it and
 * the replies queued are short; output is watched while any is queued.
 */
static void client_update(struct md_daemon *d, struct client *c)
{
	uint32_t want = 0;

	if (md_ctl_out_pending(&c->out) == 0 && !c->plan_wait &&
	    (c->closing || (c->eof && !md_ctl_in_has_line(&c->in)))) {
		client_close(d, c);
		return;
	}
	if (!c->eof && !c->closing && md_ctl_in_room(&c->in) > 0 &&
	    md_ctl_out_pending(&c->out) < OUT_SOFT)
		want |= EPOLLIN | EPOLLRDHUP;
	if (md_ctl_out_pending(&c->out))
		want |= EPOLLOUT;
	if (want != c->interest) {
		struct epoll_event ev = { .events = want, .data.ptr = &c->w };

		if (epoll_ctl(d->epfd, EPOLL_CTL_MOD, c->w.fd, &ev) != 0) {
			client_close(d, c);
			return;
		}
		c->interest = want;
	}
	if (client_runnable(c))
		timer_arm(d, 0);	/* the rest of its requests on a later turn */
}

static void client_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct client *c = w->arg;
	int64_t now = mono_ms();

	if (events & (EPOLLERR | EPOLLHUP)) {
		client_close(d, c);
		return;
	}
	if ((events & EPOLLOUT) && !client_flush(c, now)) {
		client_close(d, c);
		return;
	}
	/* One read per wakeup, at most one line buffer's worth. */
	if ((events & (EPOLLIN | EPOLLRDHUP)) && (c->interest & EPOLLIN)) {
		ssize_t n = recv(w->fd, md_ctl_in_tail(&c->in), md_ctl_in_room(&c->in),
				 MSG_DONTWAIT);

		if (n > 0) {
			md_ctl_in_added(&c->in, (size_t)n);
			c->active_ms = now;
		} else if (n == 0) {
			c->eof = true;	/* answer what came, then close */
		} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			client_close(d, c);
			return;
		}
	}
	client_work(d, c, REQS_PER_WAKEUP, now);
	if (!client_flush(c, now)) {
		client_close(d, c);
		return;
	}
	client_update(d, c);
}

/* ---- replies worked out off the loop (repair-plan) ---- */

/* The reply to @a's repair-plan ends its wait; its next requests run. */
static void plan_done(struct md_daemon *d, const struct md_plan_answer *a)
{
	struct client *c = a->owner;
	struct md_buf reply = { 0 };
	int64_t now = mono_ms();
	int rc;

	md_control_plan_reply(d, a, &reply);
	rc = reply.failed ? -ENOMEM : md_ctl_out_add(&c->out, reply.p ? reply.p : "", reply.len);
	md_buf_free(&reply);
	c->plan_wait = false;
	c->active_ms = now;
	if (rc)
		client_refuse(c, "error: reply too large or out of memory\n");
	if (!client_flush(c, now)) {
		client_close(d, c);
		return;
	}
	client_update(d, c);
	timer_arm(d, 0);	/* the idle sweep left it out while it waited */
}

struct md_plan_looks *md_control_looks(struct md_daemon *d)
{
	return d->ctl ? d->ctl->looks : NULL;
}

/* ---- the timer: deferred requests, idle clients ---- */

static void timer_arm(struct md_daemon *d, int64_t in_ms)
{
	struct md_control *ctl = d->ctl;
	struct itimerspec its = { 0 };

	if (!ctl)
		return;
	if (in_ms <= 0)
		its.it_value.tv_nsec = 1;	/* now, after the sources already ready */
	else
		its.it_value = (struct timespec){ in_ms / 1000, (in_ms % 1000) * 1000000 };
	timerfd_settime(ctl->timer.fd, 0, &its, NULL);
}

static void timer_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct md_control *ctl = w->arg;
	int64_t now = mono_ms(), next = -1;
	uint64_t ticks;
	int budget = REQS_PER_ROUND;

	(void)events;
	if (read(w->fd, &ticks, sizeof(ticks)) < 0) {
		/* EAGAIN: nothing new; the sweep below is harmless */
	}
	/* Deferred requests, round-robin so no client always goes first.  A
	 * client's work closes at most that client, so the snapshot stays
	 * valid for the ones not reached yet. */
	struct client *run[MAX_CLIENTS];
	int nrun = 0;

	for (int k = 0; k < ctl->nclients; k++) {
		struct client *c = ctl->clients[(ctl->next + k) % ctl->nclients];

		if (client_runnable(c))
			run[nrun++] = c;
	}
	ctl->next = ctl->nclients ? (ctl->next + 1) % ctl->nclients : 0;
	for (int k = 0; k < nrun && budget > 0; k++) {
		struct client *c = run[k];

		budget -= client_work(d, c, budget < REQS_PER_WAKEUP ? budget : REQS_PER_WAKEUP,
				      now);
		if (!client_flush(c, now))
			client_close(d, c);
		else
			client_update(d, c);
	}
	/* Idle clients; from the end, as closing moves the last one here. */
	for (int i = ctl->nclients - 1; i >= 0; i--) {
		struct client *c = ctl->clients[i];

		if (c->plan_wait)	/* not idle: waits for us, within PLAN_WAIT_S */
			continue;
		if (now - c->active_ms >= IDLE_TIMEOUT_MS) {
			ctl->timed_out++;
			log_info("control: %s (pid %d) idle for %d s: disconnected",
				 md_peer_name(&c->peer), (int)c->peer.pid, IDLE_TIMEOUT_MS / 1000);
			client_close(d, c);
			continue;
		}
		int64_t due = c->active_ms + IDLE_TIMEOUT_MS - now;
		if (client_runnable(c))
			due = 0;
		if (next < 0 || due < next)
			next = due;
	}
	if (next >= 0) {
		timer_arm(d, next);
	} else {
		struct itimerspec off = { 0 };

		timerfd_settime(w->fd, 0, &off, NULL);
	}
}

/* ---- new connections ---- */

/* Why @p may not connect now, or NULL. */
static const char *admit(struct md_daemon *d, struct md_control *ctl, const struct md_peer *p,
			 struct uid_slot **slot, int64_t now)
{
	bool root = p->uid == 0, priv = md_peer_privileged(d, p);

	*slot = NULL;
	if (ctl->nclients >= MAX_CLIENTS)
		return "error: too many connections\n";
	if (!root && ctl->nclients >= MAX_CLIENTS - ROOT_RESERVED)
		return "error: too many connections (the rest are kept for root)\n";
	if (!priv && ctl->nclients >= MAX_CLIENTS - PRIV_RESERVED)
		return "error: too many connections (the rest are kept for root and the "
		       "control group)\n";
	if (root)
		return NULL;
	*slot = uid_slot_get(ctl, p->uid, now);
	if (!*slot)
		return "error: too many connections\n";
	if ((*slot)->conns >= PER_UID_MAX)
		return "error: too many connections from this user\n";
	return NULL;
}

static void refuse_log(struct md_control *ctl, const struct md_peer *p, const char *why,
		       int64_t now)
{
	ctl->refused++;
	if (ctl->refuse_log_ms && now - ctl->refuse_log_ms < REFUSE_LOG_MS)
		return;
	log_notice("control: connection from uid %u (pid %d) refused: %.*s; %llu refused in "
		   "all", (unsigned int)p->uid, (int)p->pid, (int)strcspn(why + 7, "\n"), why + 7,
		   (unsigned long long)ctl->refused);
	ctl->refuse_log_ms = now;
}

static void listen_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct md_control *ctl = w->arg;
	int64_t now = mono_ms();

	(void)events;
	for (int i = 0; i < ACCEPTS_PER_WAKEUP; i++) {
		int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct uid_slot *slot;
		struct md_peer peer;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_warn("control socket: accept: %s", map_strerror(errno));
			return;
		}
		md_peer_identify(fd, &peer);
		const char *why = admit(d, ctl, &peer, &slot, now);
		if (why) {
			/* A new socket's buffer is empty: this never waits. */
			if (send(fd, why, strlen(why), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
				/* the peer is gone already */
			}
			close(fd);
			refuse_log(ctl, &peer, why, now);
			continue;
		}
		struct client *c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->ctl = ctl;
		c->peer = peer;
		c->slot = slot;
		c->w.fd = fd;
		c->w.ready = client_ready;
		c->w.arg = c;
		c->active_ms = now;
		c->interest = EPOLLIN | EPOLLRDHUP;
		if (md_watch_add(d, &c->w, c->interest)) {
			close(fd);
			free(c);
			continue;
		}
		if (slot)
			slot->conns++;
		ctl->clients[ctl->nclients++] = c;
		if (ctl->nclients == 1)
			timer_arm(d, IDLE_TIMEOUT_MS);
	}
}

void md_control_stats(const struct md_daemon *d, struct md_control_stats *s)
{
	const struct md_control *ctl = d->ctl;

	memset(s, 0, sizeof(*s));
	if (!ctl)
		return;
	s->clients = ctl->nclients;
	s->refused = ctl->refused;
	s->cut_off = ctl->cut_off;
	s->timed_out = ctl->timed_out;
}

/* ---- the socket ---- */

int md_control_start(struct md_daemon *d, const char *path)
{
	struct md_control *ctl = calloc(1, sizeof(*ctl));
	int rc;

	if (!ctl)
		return -ENOMEM;
	ctl->listen.fd = -1;
	ctl->timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	rc = ctl->timer.fd < 0 ? -errno : 0;
	if (rc == 0) {
		ctl->listen.fd = md_ctl_listen(path, &ctl->ino);
		rc = ctl->listen.fd < 0 ? ctl->listen.fd : 0;
	}
	if (rc == 0) {
		ctl->timer.ready = timer_ready;
		ctl->timer.arg = ctl;
		ctl->listen.ready = listen_ready;
		ctl->listen.arg = ctl;
		snprintf(ctl->path, sizeof(ctl->path), "%s", path);
		rc = md_plan_looks_start(d, plan_done, &ctl->looks);
		if (rc == 0)
			rc = md_watch_add(d, &ctl->timer, EPOLLIN);
		if (rc == 0) {
			rc = md_watch_add(d, &ctl->listen, EPOLLIN);
			if (rc)
				md_watch_del(d, &ctl->timer);
		}
		if (rc)
			md_plan_looks_stop(d, ctl->looks);
	}
	if (rc) {
		if (ctl->listen.fd >= 0) {
			close(ctl->listen.fd);
			md_ctl_unlink(path, ctl->ino);
		}
		if (ctl->timer.fd >= 0)
			close(ctl->timer.fd);
		free(ctl);
		return rc;
	}
	d->ctl = ctl;
	return 0;
}

void md_control_stop(struct md_daemon *d)
{
	struct md_control *ctl = d->ctl;

	if (!ctl)
		return;
	while (ctl->nclients > 0)
		client_close(d, ctl->clients[0]);
	md_plan_looks_stop(d, ctl->looks);
	md_watch_del(d, &ctl->listen);
	close(ctl->listen.fd);
	md_watch_del(d, &ctl->timer);
	close(ctl->timer.fd);
	md_ctl_unlink(ctl->path, ctl->ino);
	free(ctl);
	d->ctl = NULL;
}
