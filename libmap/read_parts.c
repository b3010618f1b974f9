// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Read several parts of an O_DIRECT descriptor at once, with Linux native
 * AIO (raw system calls: the kernel's ABI is all this needs).  The verifier
 * uses it to split a failed read: on a device where every read costs a few
 * milliseconds whatever its size, the rounds of waiting, not the bytes, are
 * what finding the bad block costs.
 *
 * AIO contexts are kept for the life of the process in a small pool:
 * io_destroy waits for an RCU grace period, which in a slow machine costs
 * more than the reads (measured in the TCG guest: every EIO report of
 * mapperd took 25 ms longer with a context made and destroyed per split).
 */
#include <errno.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "map_internal.h"

#define POOL 8	/* contexts kept: more than the readers that split at once */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static aio_context_t pool[POOL];
static int pool_free, pool_made;

/* A context for MAP_READ_PARTS_MAX reads: from the pool, or a new one while
 * the pool is not full; 0 or -errno (-EBUSY: every pooled one is in use). */
static int ctx_get(aio_context_t *ctx)
{
	int rc = 0;

	pthread_mutex_lock(&pool_lock);
	if (pool_free > 0) {
		*ctx = pool[--pool_free];
	} else if (pool_made >= POOL) {
		rc = -EBUSY;
	} else {
		*ctx = 0;
		if (syscall(SYS_io_setup, MAP_READ_PARTS_MAX, ctx) == 0)
			pool_made++;
		else
			rc = -errno;
	}
	pthread_mutex_unlock(&pool_lock);
	return rc;
}

static void ctx_put(aio_context_t ctx)
{
	pthread_mutex_lock(&pool_lock);
	pool[pool_free++] = ctx;
	pthread_mutex_unlock(&pool_lock);
}

/* Wait for the @n reads submitted to @ctx and fill @err; 0 or -errno when
 * the completions could not be collected. */
static int reap(aio_context_t ctx, const struct iocb *cbs, int n, int *err)
{
	struct io_event ev[MAP_READ_PARTS_MAX];
	int got = 0;

	while (got < n) {
		long r = syscall(SYS_io_getevents, ctx, 1, n - got, ev, NULL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (long k = 0; k < r; k++) {
			int i = (int)ev[k].data;

			if (ev[k].res < 0)
				err[i] = (int)-ev[k].res;
			else	/* short: the device ends inside the part */
				err[i] = (uint64_t)ev[k].res == cbs[i].aio_nbytes ? 0 : EIO;
		}
		got += (int)r;
	}
	return 0;
}

int map_read_parts(int fd, char *buf, const struct map_range *parts, int n, int *err)
{
	struct iocb cbs[MAP_READ_PARTS_MAX], *ptr[MAP_READ_PARTS_MAX];
	aio_context_t ctx;
	int sent = 0, rc;

	if (n <= 0 || n > MAP_READ_PARTS_MAX)
		return -EINVAL;
	/* Refused by a seccomp filter, or the system's aio-max-nr is used up
	 * (any local user can do that): the caller reads one part at a time. */
	rc = ctx_get(&ctx);
	if (rc)
		return rc;
	memset(cbs, 0, sizeof(cbs));
	for (int i = 0; i < n; i++) {
		cbs[i].aio_data = (uint64_t)i;
		cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
		cbs[i].aio_fildes = (uint32_t)fd;
		cbs[i].aio_buf = (uint64_t)(uintptr_t)(buf + (parts[i].start - parts[0].start));
		cbs[i].aio_nbytes = parts[i].length;
		cbs[i].aio_offset = (int64_t)parts[i].start;
		ptr[i] = &cbs[i];
		err[i] = EIO;
	}
	while (sent < n) {
		long r = syscall(SYS_io_submit, ctx, n - sent, ptr + sent);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : -EAGAIN;
			break;
		}
		sent += (int)r;
	}
	/* Even after a failed submit, what was sent must complete before its
	 * buffer is reused. */
	int e = reap(ctx, cbs, sent, err);

	if (e) {
		/* Reads may still be in flight: only destroying the context
		 * waits for them.  It is not reused. */
		syscall(SYS_io_destroy, ctx);
		pthread_mutex_lock(&pool_lock);
		pool_made--;
		pthread_mutex_unlock(&pool_lock);
		return rc ? rc : e;
	}
	ctx_put(ctx);
	return rc;
}
