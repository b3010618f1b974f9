// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel log as mapperd's event source (fanotify turned off): devices
 * that log their media errors, as real disks do.
 *  1. null_blk (memory backed) with a bad range under a file: the read fails,
 *     the block layer logs "I/O error, dev NAME, sector N", and within a
 *     second the database has the file's finding with its exact offset;
 *  2. scsi_debug with an MBR partition starting at sector 8192 and a medium
 *     error under a file: "critical medium error, dev sda, sector N" is a
 *     whole-disk sector; mapperd subtracts the partition start and names the
 *     file and offset exactly.
 * Both with the events table saying "kmsg", and no report ever taken from
 * mapperd's own verification reads of the bad sectors.
 *
 * Usage (in the guest, kernel booted with scsi_debug.dev_size_mb=600):
 *   vm_mapperd_kmsg MAPPERD MAPCTL
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "mdtest.h"
#include "vmtest.h"

#define KiB 1024ULL
#define NULLB_CFG "/sys/kernel/config/nullb/mdnull0"
#define NULLB_DEV "/dev/mdnull0"
#define SD_DEV "/dev/sda"
#define PART_START 8192ULL		/* sectors: the partition starts at 4 MiB */
#define PART_SECTORS 1000000ULL
#define MNT "/mnt/kmsg"

static void write_random(const char *path, size_t size)
{
	char *buf = malloc(size);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	REQUIRE(buf && fd >= 0, "%s: %s", path, strerror(errno));
	for (size_t i = 0; i < size; i++)
		buf[i] = (char)(rand() & 0xff);
	REQUIRE(write(fd, buf, size) == (ssize_t)size, "write %s: %s", path, strerror(errno));
	REQUIRE(fsync(fd) == 0, "fsync: %s", strerror(errno));
	close(fd);
	free(buf);
}

static void put(const char *file, const char *value)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);

	REQUIRE(fd >= 0, "%s: %s", file, strerror(errno));
	REQUIRE(write(fd, value, strlen(value)) == (ssize_t)strlen(value), "%s <- %s: %s", file,
		value, strerror(errno));
	close(fd);
}

/* One primary partition [start, start+sectors) in an MBR, then re-read. */
static void make_partition(const char *dev, uint32_t start, uint32_t sectors)
{
	unsigned char mbr[512] = { 0 };
	unsigned char *e = mbr + 446;
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	REQUIRE(fd >= 0, "%s: %s", dev, strerror(errno));
	e[0] = 0x00;
	e[1] = 0xfe; e[2] = 0xff; e[3] = 0xff;	/* CHS: use the LBA fields */
	e[4] = 0x83;				/* Linux */
	e[5] = 0xfe; e[6] = 0xff; e[7] = 0xff;
	for (int i = 0; i < 4; i++) {
		e[8 + i] = (unsigned char)(start >> (8 * i));
		e[12 + i] = (unsigned char)(sectors >> (8 * i));
	}
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	REQUIRE(pwrite(fd, mbr, sizeof(mbr), 0) == (ssize_t)sizeof(mbr), "MBR: %s", strerror(errno));
	REQUIRE(fsync(fd) == 0, "fsync %s", dev);
	REQUIRE(ioctl(fd, BLKRRPART) == 0, "BLKRRPART %s: %s", dev, strerror(errno));
	close(fd);
}

struct want {
	uint64_t ino;
	uint64_t offset;
};

static bool match(const struct map_finding *f, void *arg)
{
	const struct want *w = arg;

	return f->source == MAP_SOURCE_EVENT && !strcmp(f->kind, "file") && f->ino == w->ino &&
	       f->has_offset && f->offset == w->offset;
}

static uint64_t ino_of(const char *path)
{
	struct stat st;

	REQUIRE(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
	return st.st_ino;
}

/* Read @path (EIO expected) and wait for its finding at @offset. */
static void expect_finding(const char *what, const char *path, const char *rel, uint64_t offset)
{
	struct want w = { ino_of(path), offset };
	struct map_finding f;

	tl_evict(path);
	double t0 = tl_mono();
	int err = tl_read_file(path);
	CHECK(err == EIO, "%s: reading %s: %s, expected EIO", what, path, strerror(err));
	double latency = mdt_wait_finding(match, &w, t0, 10, &f);
	CHECK(latency >= 0, "%s: no finding for %s offset %llu within 10 s", what, rel,
	      (unsigned long long)offset);
	if (latency < 0)
		return;
	printf("%s: logged error -> stored finding in %.3f s\n", what, latency);
	CHECK(latency < 1.0, "%s: finding stored %.3f s after the error, wanted < 1 s", what,
	      latency);
	CHECK_INT(f.length, 4096);
	CHECK_INT(f.npaths, 1);
	if (f.npaths == 1)
		CHECK_STR(f.paths[0], rel);
	map_finding_clear(&f);
}

int main(int argc, char **argv)
{
	char value[64];

	vt_require_vm();
	mdt_args(argc, argv);
	srand(42);
	mdt_write_config("fanotify = no\n");
	mdt_no_fanotify = true;
	pid_t pid = mdt_start(NULL);
	tl_must("mkdir -p %s", MNT);

	/* 1. null_blk, whole disk. */
	tl_must("mkdir %s", NULLB_CFG);
	put(NULLB_CFG "/memory_backed", "1");
	put(NULLB_CFG "/size", "512");		/* MB */
	put(NULLB_CFG "/power", "1");
	tl_must("mkfs.xfs -q -f -m rmapbt=1 %s && mount %s %s", NULLB_DEV, NULLB_DEV, MNT);
	tl_must("mkdir -p %s/data", MNT);
	write_random(MNT "/data/null.bin", 1024 * KiB);
	REQUIRE(mdt_wait_watched(MNT, true, 10) >= 0, "mapperd does not watch the null_blk fs");
	uint64_t phys = tl_file_physical(MNT "/data/null.bin", 256 * KiB);
	REQUIRE(phys % 4096 == 0, "unaligned");
	snprintf(value, sizeof(value), "+%llu-%llu", (unsigned long long)(phys / 512),
		 (unsigned long long)(phys / 512 + 7));
	put(NULLB_CFG "/badblocks", value);
	expect_finding("null_blk", MNT "/data/null.bin", "data/null.bin", 256 * KiB);
	tl_must("umount %s", MNT);
	put(NULLB_CFG "/power", "0");
	tl_must("rmdir %s", NULLB_CFG);
	CHECK(mdt_wait_watched(MNT, false, 10) >= 0, "unmount of the null_blk fs not noticed");

	/* 2. scsi_debug, a partition at sector 8192. */
	make_partition(SD_DEV, PART_START, PART_SECTORS);
	tl_must("test -b %s1 && cat /sys/class/block/sda1/start", SD_DEV);
	tl_must("mkfs.xfs -q -f -m rmapbt=1 %s1 && mount %s1 %s", SD_DEV, SD_DEV, MNT);
	tl_must("mkdir -p %s/part", MNT);
	write_random(MNT "/part/scsi.bin", 1024 * KiB);
	REQUIRE(mdt_wait_watched(MNT, true, 10) >= 0, "mapperd does not watch the scsi_debug fs");
	phys = tl_file_physical(MNT "/part/scsi.bin", 512 * KiB);
	uint64_t disk_sector = PART_START + phys / 512;
	printf("victim: part/scsi.bin offset 512 KiB = partition byte %llu = disk sector %llu\n",
	       (unsigned long long)phys, (unsigned long long)disk_sector);
	snprintf(value, sizeof(value), "%llu", (unsigned long long)disk_sector);
	put("/sys/module/scsi_debug/parameters/medium_error_start", value);
	put("/sys/module/scsi_debug/parameters/medium_error_count", "8");
	put("/sys/bus/pseudo/drivers/scsi_debug/opts", "2");	/* SDEBUG_OPT_MEDIUM_ERR */
	expect_finding("scsi_debug", MNT "/part/scsi.bin", "part/scsi.bin", 512 * KiB);
	put("/sys/bus/pseudo/drivers/scsi_debug/opts", "0");
	tl_must("umount %s", MNT);

	/* Our own reads of the bad sectors are logged too: they must not come
	 * back as reports (that would loop). */
	long long before = mdt_status_number("\"received\":");
	tl_sleep(3);
	long long after = mdt_status_number("\"received\":");
	printf("reports received: %lld, 3 s later %lld\n", before, after);
	CHECK(before == after, "reports keep coming: %lld then %lld", before, after);

	int nk = mdt_count_events("kmsg"), nf = mdt_count_events("fanotify");
	printf("events table: %d kmsg, %d fanotify\n", nk, nf);
	CHECK(nk >= 2, "%d kmsg events stored, expected at least 2", nk);
	CHECK_INT(nf, 0);
	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	tl_sh("dmesg | grep -E 'error, dev' | head -20");
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
