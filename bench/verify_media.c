// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_verify_media: the kernel's own media verification of Linux 7.x
 * (XFS_IOC_VERIFY_MEDIA) over a filesystem's whole data device, timed, to
 * set against mapctl scan --media (issue 38, item 2).
 *
 * Usage: bench_verify_media MOUNTPOINT [IO_KIB]
 *
 * Reads the data device from sector 0 to its end in IO_KIB reads (default
 * 1024, the kernel's largest).  The ioctl stops at the first read that fails
 * and leaves me_start_daddr there; that read's window is then verified
 * again in 4 KiB reads to find each failing block, and the walk goes on
 * after it.  No REPORT flag: nothing is sent to a health monitor or fanotify.
 * Prints "verify-media-s SECONDS", "verify-media-bytes BYTES" and
 * "verify-media-bad N" with one "bad-sector S" line per failing 4 KiB block.
 * Exit 0 when it ran (bad blocks or not), 2 when the kernel has no such
 * ioctl (ENOTTY) or refuses it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* Linux 7.x xfs_fs.h, as doc/kernel-api-7.x.md describes it: not in
 * Debian 12's headers. */
struct verify_media {
	uint32_t dev;		/* 1: data device */
	uint32_t flags;		/* bit 0: report failures */
	uint64_t start_daddr;	/* in: first sector; out: first not verified */
	uint64_t end_daddr;	/* in/out: end, exclusive (clamped) */
	uint32_t ioerror;	/* out: errno at the very first sector tried */
	uint32_t max_io_size;	/* bytes per read, at most 1 MiB */
	uint32_t rest_us;
	uint32_t pad;
};
_Static_assert(sizeof(struct verify_media) == 40, "struct xfs_verify_media is 40 bytes");
#define VERIFY_MEDIA_IOC _IOWR('X', 70, struct verify_media)
#define DEV_DATA 1
#define SECTORS_4K 8
#define MAX_BAD 100000

static uint64_t nbad;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Verify [start, end) in reads of @io bytes; a failed read of more than 4 KiB
 * is looked at again in 4 KiB reads.  Returns the end reached, or 0 with
 * errno set when the ioctl itself fails. */
static uint64_t walk(int fd, uint64_t start, uint64_t end, uint32_t io)
{
	while (start < end) {
		struct verify_media v = {
			.dev = DEV_DATA, .start_daddr = start, .end_daddr = end, .max_io_size = io,
		};

		if (ioctl(fd, VERIFY_MEDIA_IOC, &v) != 0)
			return 0;
		end = v.end_daddr;	/* clamped to the device */
		if (v.start_daddr >= end)
			break;
		uint64_t win = v.start_daddr + io / 512;

		win = win < end ? win : end;
		if (io > 4096) {
			if (!walk(fd, v.start_daddr, win, 4096))
				return 0;
		} else {
			if (nbad < MAX_BAD)
				printf("bad-sector %" PRIu64 "\n", v.start_daddr);
			nbad++;
		}
		start = win > v.start_daddr ? win : v.start_daddr + SECTORS_4K;
	}
	return end;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench_verify_media MOUNTPOINT [IO_KIB]\n");
		return 2;
	}
	uint32_t io = (argc == 3 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1024) * 1024;
	int fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "bench_verify_media: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	double t0 = now();
	uint64_t end = walk(fd, 0, UINT64_MAX / 2, io);

	if (!end) {
		fprintf(stderr, "bench_verify_media: XFS_IOC_VERIFY_MEDIA: %s\n", strerror(errno));
		return 2;
	}
	printf("verify-media-s %.3f\n", now() - t0);
	printf("verify-media-bytes %" PRIu64 "\n", end * 512);
	printf("verify-media-bad %" PRIu64 "\n", nbad);
	close(fd);
	return 0;
}
