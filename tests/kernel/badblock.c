// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "badblock.h"
#include "ktest.h"
#include "map.h"
#include "vmtest.h"

#include "kt_require.h"

/* dm-dust counts in blocks of this size (kt_dust_create). */
#define DUST_BLOCK 4096

void bb_setup(const char *backing, const char *mkfs_opts)
{
	tl_allow_small_fs(BB_DEV);
	kt_dust_create(BB_DUST, backing);
	tl_mkfs(BB_DEV, "%s %s", vt_features(), mkfs_opts);
	tl_mount(BB_DEV, BB_MNT, NULL);
}

uint64_t bb_fork_daddr(uint64_t ino, bool attr_fork, uint64_t fileoff)
{
	unsigned long long off, start, daddr;
	const char *out;

	/* "attr offset 1 startblock 123 (0/123) count 8 flag 0" */
	out = tl_out("xfs_db -r -c 'inode %llu' -c 'bmap %s %llu 1' %s", (unsigned long long)ino,
		     attr_fork ? "-a" : "-d", (unsigned long long)fileoff, BB_DEV);
	REQUIRE(sscanf(out, "%*s offset %llu startblock %llu", &off, &start) == 2 &&
			off <= fileoff,
		"xfs_db finds no block %llu in the %s fork of inode %llu: %s",
		(unsigned long long)fileoff, attr_fork ? "attr" : "data", (unsigned long long)ino,
		out);
	/* "0x2680 (9856)" */
	out = tl_out("xfs_db -r -c 'convert fsb %llu daddr' %s", start + (fileoff - off), BB_DEV);
	REQUIRE(sscanf(out, "%*s (%llu)", &daddr) == 1, "xfs_db convert: %s", out);
	return daddr;
}

uint64_t bb_damage_daddr(uint64_t daddr)
{
	uint64_t blk = daddr * 512 / DUST_BLOCK;

	kt_dust_add(BB_DUST, blk, 0);
	kt_dust_enable(BB_DUST, true);
	tl_mount(BB_DEV, BB_MNT, NULL);
	return blk;
}

uint64_t bb_damage(uint64_t ino, bool attr_fork, uint64_t fileoff)
{
	tl_umount(BB_MNT);
	uint64_t daddr = bb_fork_daddr(ino, attr_fork, fileoff);

	printf("inode %llu %s fork block %llu: daddr %llu, dust block %llu\n",
	       (unsigned long long)ino, attr_fork ? "attr" : "data", (unsigned long long)fileoff,
	       (unsigned long long)daddr, (unsigned long long)(daddr * 512 / DUST_BLOCK));
	return bb_damage_daddr(daddr);
}

#define TRACE_PIPE "/sys/kernel/tracing/trace_pipe"

/* "removebadblock @blk" to dm-dust through the ioctl (no fork, no udev). */
static int dust_remove_block(uint64_t blk)
{
	union {
		struct dm_ioctl io;
		char bytes[sizeof(struct dm_ioctl) + sizeof(struct dm_target_msg) + 64];
	} req;
	struct dm_target_msg *msg = (void *)(req.bytes + sizeof(struct dm_ioctl));
	int ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	int rc;

	if (ctl < 0)
		return -errno;
	memset(&req, 0, sizeof(req));
	req.io.version[0] = DM_VERSION_MAJOR;
	req.io.data_size = sizeof(req);
	req.io.data_start = sizeof(struct dm_ioctl);
	snprintf(req.io.name, sizeof(req.io.name), "%s", BB_DUST);
	snprintf(msg->message, 64, "removebadblock %llu", (unsigned long long)blk);
	rc = ioctl(ctl, DM_TARGET_MSG, &req) == 0 ? 0 : -errno;
	close(ctl);
	return rc;
}

struct healer {
	const char *needle;
	uint64_t blk;
};

static void heal(void *arg, int ready)
{
	const struct healer *h = arg;
	static char buf[65536];
	size_t len = 0;
	int tp = open(TRACE_PIPE, O_RDONLY);

	if (tp < 0 || write(ready, "r", 1) != 1)
		_exit(2);
	while (len < sizeof(buf) - 1) {
		ssize_t n = read(tp, buf + len, sizeof(buf) - 1 - len);

		if (n <= 0)
			_exit(3);
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, h->needle)) {
			int rc = dust_remove_block(h->blk);

			printf("healer: removed dust block %llu (%d) after:\n%s",
			       (unsigned long long)h->blk, rc, buf);
			fflush(stdout);
			_exit(rc == 0 ? 0 : 4);
		}
	}
	_exit(5);
}

pid_t bb_healer_start(const char *needle, uint64_t blk)
{
	struct healer h = { needle, blk };
	pid_t pid = tl_fork_ready(heal, &h);

	REQUIRE(pid > 0, "the healer could not open " TRACE_PIPE);
	return pid;
}

bool bb_healer_done(pid_t pid)
{
	int status = -1;

	if (waitpid(pid, &status, WNOHANG) == 0) {
		/* Still waiting: the line never came. */
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int bb_trace_start(const char *const *events, size_t n)
{
	const char *on[16];
	size_t non = 0;
	int missing = 0;

	REQUIRE(n <= sizeof(on) / sizeof(on[0]), "too many trace events");
	for (size_t i = 0; i < n; i++) {
		char path[256];
		const char *colon = strchr(events[i], ':');

		REQUIRE(colon, "trace event %s has no system", events[i]);
		snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%.*s/%s",
			 (int)(colon - events[i]), events[i], colon + 1);
		if (access(path, F_OK) == 0) {
			on[non++] = events[i];
		} else {
			fprintf(stderr, "FAIL: the kernel has no trace event %s\n", events[i]);
			missing++;
		}
	}
	kt_trace_start(on, non);
	return missing;
}

int bb_scrub(const char *path, uint32_t type, uint32_t iflags, uint32_t *oflags)
{
	struct xfs_bstat bs;
	struct stat st;
	__u64 ino;
	__s32 count = 0;
	struct xfs_fsop_bulkreq req = {
		.lastip = &ino, .icount = 1, .ubuffer = &bs, .ocount = &count,
	};
	int fd;

	REQUIRE(lstat(path, &st) == 0, "lstat %s: %s", path, strerror(errno));
	fd = tl_open(BB_MNT, O_RDONLY | O_DIRECTORY);
	/* The scrub call wants the generation too, and a symlink cannot be
	 * opened for FS_IOC_GETVERSION: ask bulkstat. */
	ino = st.st_ino;
	REQUIRE(ioctl(fd, XFS_IOC_FSBULKSTAT_SINGLE, &req) == 0 && count == 1,
		"bulkstat of %s: %s", path, strerror(errno));
	close(fd);
	return kt_scrub_ino(BB_MNT, type, st.st_ino, bs.bs_gen, iflags, oflags);
}

bool bb_fs_alive(void)
{
	char path[] = BB_MNT "/alive";
	struct statvfs sv;
	int fd;

	if (statvfs(BB_MNT, &sv) != 0)
		return false;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return false;
	bool ok = write(fd, "alive\n", 6) == 6 && fsync(fd) == 0;

	close(fd);
	return ok && unlink(path) == 0;
}

int bb_finish(void)
{
	int failed = 0;

	tl_umount(BB_MNT);
	/* xfs_repair reads in big chunks that cover free space too. */
	kt_dust_enable(BB_DUST, false);
	if (tl_sh("xfs_repair -n %s", BB_DEV) != 0) {
		fprintf(stderr, "FAIL: xfs_repair -n finds damage after the online repair\n");
		failed++;
	}
	kt_dust_remove(BB_DUST);
	failed += vt_kernel_log_problems() != 0;
	return failed;
}
