// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * XFS health monitor records (libmap/healthmon.c): crafted records of each
 * kind, reads that end inside a record, unknown domains and types, and
 * hostile values.  Nothing out of range may be delivered.
 */
#include <errno.h>

#include "check.h"
#include "map_healthmon.h"

#define MAXREC 16

struct got {
	struct map_hm_record r[MAXREC];
	size_t n;
};

static void collect(const struct map_hm_record *r, void *arg)
{
	struct got *g = arg;

	if (g->n < MAXREC)
		g->r[g->n] = *r;
	g->n++;
}

static struct map_hm_raw raw(uint32_t domain, uint32_t type)
{
	struct map_hm_raw x;

	memset(&x, 0, sizeof(x));
	x.domain = domain;
	x.type = type;
	x.time_ns = 1234567890123ULL;
	return x;
}

static struct map_hm_raw file_rec(uint32_t type, uint64_t ino, uint32_t gen, uint64_t pos,
				  uint64_t len, uint32_t error)
{
	struct map_hm_raw x = raw(MAP_HM_DOMAIN_FILERANGE, type);

	x.e.file.ino = ino;
	x.e.file.gen = gen;
	x.e.file.pos = pos;
	x.e.file.len = len;
	x.e.file.error = error;
	return x;
}

static struct map_hm_raw media_rec(uint32_t domain, uint64_t daddr, uint64_t n)
{
	struct map_hm_raw x = raw(domain, MAP_HM_TYPE_MEDIA_ERROR);

	x.e.media.daddr = daddr;
	x.e.media.bbcount = n;
	return x;
}

/* One record alone: accepted (1) or skipped (0). */
static int one(struct map_hm_raw x, struct map_hm_record *out)
{
	struct got g = { 0 };
	size_t used = 0, skipped = 0;
	size_t n = map_healthmon_decode(&x, sizeof(x), &used, &skipped, collect, &g);

	CHECK_INT(used, sizeof(x));
	CHECK_INT(n + skipped, 1);
	if (n == 1 && out)
		*out = g.r[0];
	return (int)n;
}

static void test_each_kind(void)
{
	struct map_hm_record r;
	struct map_hm_raw x;

	CHECK_INT(one(raw(MAP_HM_DOMAIN_MOUNT, MAP_HM_TYPE_RUNNING), &r), 1);
	CHECK_INT(r.kind, MAP_HM_RUNNING);
	CHECK_INT(r.time_ns, 1234567890123ULL);
	CHECK_INT(one(raw(MAP_HM_DOMAIN_MOUNT, MAP_HM_TYPE_UNMOUNT), &r), 1);
	CHECK_INT(r.kind, MAP_HM_UNMOUNT);

	x = raw(MAP_HM_DOMAIN_MOUNT, MAP_HM_TYPE_LOST);
	x.e.lost_count = 7;
	CHECK_INT(one(x, &r), 1);
	CHECK_INT(r.kind, MAP_HM_LOST);
	CHECK_INT(r.lost, 7);

	x = raw(MAP_HM_DOMAIN_MOUNT, MAP_HM_TYPE_SHUTDOWN);
	x.e.shutdown_reasons = 0x5;
	CHECK_INT(one(x, &r), 1);
	CHECK_INT(r.kind, MAP_HM_SHUTDOWN);
	CHECK_INT(r.reasons, 0x5);

	/* A 4 KiB buffered read error at 128 KiB of inode 131 generation 9. */
	CHECK_INT(one(file_rec(MAP_HM_TYPE_BUFREAD, 131, 9, 131072, 4096, EIO), &r), 1);
	CHECK_INT(r.kind, MAP_HM_FILE);
	CHECK_INT(r.ino, 131);
	CHECK_INT(r.gen, 9);
	CHECK_INT(r.start, 131072);
	CHECK_INT(r.length, 4096);
	CHECK_INT(r.error, EIO);
	CHECK_INT(r.type, MAP_HM_TYPE_BUFREAD);
	for (uint32_t t = MAP_HM_TYPE_BUFREAD; t <= MAP_HM_TYPE_DATALOST; t++)
		CHECK_INT(one(file_rec(t, 131, 0, 0, 512, EIO), NULL), 1);

	/* Sectors 2048..2055 of the data device: bytes 1 MiB + 4 KiB. */
	CHECK_INT(one(media_rec(MAP_HM_DOMAIN_DATADEV, 2048, 8), &r), 1);
	CHECK_INT(r.kind, MAP_HM_MEDIA);
	CHECK_INT(r.domain, MAP_HM_DOMAIN_DATADEV);
	CHECK_INT(r.start, 1048576);
	CHECK_INT(r.length, 4096);
	CHECK_INT(one(media_rec(MAP_HM_DOMAIN_LOGDEV, 0, 1), &r), 1);
	CHECK_INT(r.domain, MAP_HM_DOMAIN_LOGDEV);

	x = raw(MAP_HM_DOMAIN_INODE, MAP_HM_TYPE_SICK);
	x.e.inode.mask = 0x10;
	x.e.inode.gen = 3;
	x.e.inode.ino = 4242;
	CHECK_INT(one(x, &r), 1);
	CHECK_INT(r.kind, MAP_HM_HEALTH);
	CHECK_INT(r.ino, 4242);
	CHECK_INT(r.gen, 3);
	CHECK_INT(r.mask, 0x10);

	x = raw(MAP_HM_DOMAIN_AG, MAP_HM_TYPE_CORRUPT);
	x.e.group.mask = 0x2;
	x.e.group.gno = 3;
	CHECK_INT(one(x, &r), 1);
	CHECK_INT(r.gno, 3);
	CHECK_INT(r.mask, 0x2);

	x = raw(MAP_HM_DOMAIN_FS, MAP_HM_TYPE_HEALTHY);
	x.e.fs_mask = 0x1;
	CHECK_INT(one(x, &r), 1);
	CHECK_INT(r.type, MAP_HM_TYPE_HEALTHY);
}

static void test_hostile(void)
{
	struct map_hm_raw x;

	/* Unknown domains and types, and known ones in the wrong pairs. */
	CHECK_INT(one(raw(MAP_HM_DOMAIN_NR, MAP_HM_TYPE_RUNNING), NULL), 0);
	CHECK_INT(one(raw(0xffffffffu, MAP_HM_TYPE_RUNNING), NULL), 0);
	CHECK_INT(one(raw(MAP_HM_DOMAIN_MOUNT, MAP_HM_TYPE_NR), NULL), 0);
	CHECK_INT(one(raw(MAP_HM_DOMAIN_MOUNT, MAP_HM_TYPE_SICK), NULL), 0);
	CHECK_INT(one(raw(MAP_HM_DOMAIN_MOUNT, MAP_HM_TYPE_BUFREAD), NULL), 0);
	CHECK_INT(one(media_rec(MAP_HM_DOMAIN_FILERANGE, 0, 8), NULL), 0);
	CHECK_INT(one(file_rec(MAP_HM_TYPE_MEDIA_ERROR, 131, 0, 0, 4096, EIO), NULL), 0);
	CHECK_INT(one(file_rec(MAP_HM_TYPE_SICK, 131, 0, 0, 4096, EIO), NULL), 0);
	x = raw(MAP_HM_DOMAIN_INODE, MAP_HM_TYPE_BUFREAD);
	x.e.inode.mask = 1;
	x.e.inode.ino = 5;
	CHECK_INT(one(x, NULL), 0);

	/* File ranges: no inode, empty, wrapping, beyond the largest file,
	 * no errno, an errno no kernel returns. */
	CHECK_INT(one(file_rec(MAP_HM_TYPE_BUFREAD, 0, 0, 0, 4096, EIO), NULL), 0);
	CHECK_INT(one(file_rec(MAP_HM_TYPE_BUFREAD, 131, 0, 4096, 0, EIO), NULL), 0);
	CHECK_INT(one(file_rec(MAP_HM_TYPE_BUFREAD, 131, 0, UINT64_MAX - 10, 4096, EIO), NULL), 0);
	CHECK_INT(one(file_rec(MAP_HM_TYPE_BUFREAD, 131, 0, MAP_HM_MAX_FILE_BYTES, 1, EIO), NULL), 0);
	CHECK_INT(one(file_rec(MAP_HM_TYPE_BUFREAD, 131, 0, MAP_HM_MAX_FILE_BYTES - 1, 2, EIO),
		      NULL), 0);
	CHECK_INT(one(file_rec(MAP_HM_TYPE_BUFREAD, 131, 0, MAP_HM_MAX_FILE_BYTES - 1, 1, EIO),
		      NULL), 1);
	CHECK_INT(one(file_rec(MAP_HM_TYPE_BUFREAD, 131, 0, 0, 4096, 0), NULL), 0);
	CHECK_INT(one(file_rec(MAP_HM_TYPE_BUFREAD, 131, 0, 0, 4096, 4096), NULL), 0);
	CHECK_INT(one(file_rec(MAP_HM_TYPE_BUFREAD, 131, 0, 0, 4096, 0x80000005u), NULL), 0);

	/* Media: empty, sector numbers whose bytes would wrap. */
	CHECK_INT(one(media_rec(MAP_HM_DOMAIN_DATADEV, 8, 0), NULL), 0);
	CHECK_INT(one(media_rec(MAP_HM_DOMAIN_DATADEV, 1ULL << 55, 1), NULL), 0);
	CHECK_INT(one(media_rec(MAP_HM_DOMAIN_DATADEV, (1ULL << 55) - 1, 2), NULL), 0);
	CHECK_INT(one(media_rec(MAP_HM_DOMAIN_DATADEV, UINT64_MAX, UINT64_MAX), NULL), 0);
	CHECK_INT(one(media_rec(MAP_HM_DOMAIN_DATADEV, (1ULL << 55) - 1, 1), NULL), 0);
	CHECK_INT(one(media_rec(MAP_HM_DOMAIN_DATADEV, (1ULL << 55) - 2, 1), NULL), 1);

	/* Health: no bits, inode 0; lost: nothing lost. */
	CHECK_INT(one(raw(MAP_HM_DOMAIN_AG, MAP_HM_TYPE_SICK), NULL), 0);
	x = raw(MAP_HM_DOMAIN_INODE, MAP_HM_TYPE_SICK);
	x.e.inode.mask = 1;
	CHECK_INT(one(x, NULL), 0);
	CHECK_INT(one(raw(MAP_HM_DOMAIN_MOUNT, MAP_HM_TYPE_LOST), NULL), 0);
}

/* Several records in one read, a bad one among them, and a read that ends
 * inside the last: the good ones are delivered in order, the partial one is
 * left over, completing it delivers it. */
static void test_buffers(void)
{
	struct map_hm_raw recs[4] = {
		raw(MAP_HM_DOMAIN_MOUNT, MAP_HM_TYPE_RUNNING),
		raw(77, 3),
		file_rec(MAP_HM_TYPE_DIOREAD, 131, 1, 8192, 4096, EIO),
		media_rec(MAP_HM_DOMAIN_DATADEV, 16, 8),
	};
	unsigned char buf[sizeof(recs) + 1];
	struct got g = { 0 };
	size_t used = 0, skipped = 0, n;

	memcpy(buf + 1, recs, sizeof(recs));	/* unaligned on purpose */
	n = map_healthmon_decode(buf + 1, sizeof(recs) - 20, &used, &skipped, collect, &g);
	CHECK_INT(n, 2);
	CHECK_INT(skipped, 1);
	CHECK_INT(used, 3 * sizeof(struct map_hm_raw));
	REQUIRE(g.n == 2, "%zu records", g.n);
	CHECK_INT(g.r[0].kind, MAP_HM_RUNNING);
	CHECK_INT(g.r[1].kind, MAP_HM_FILE);
	CHECK_INT(g.r[1].start, 8192);

	g = (struct got){ 0 };
	skipped = 0;
	n = map_healthmon_decode(buf + 1 + used, sizeof(recs) - used, &used, &skipped, collect, &g);
	CHECK_INT(n, 1);
	CHECK_INT(skipped, 0);
	CHECK_INT(g.r[0].kind, MAP_HM_MEDIA);
	CHECK_INT(g.r[0].start, 8192);

	/* Less than one record: nothing used, nothing delivered. */
	g = (struct got){ 0 };
	n = map_healthmon_decode(buf, 63, &used, &skipped, collect, &g);
	CHECK_INT(n, 0);
	CHECK_INT(used, 0);
	n = map_healthmon_decode(buf, 0, &used, &skipped, collect, &g);
	CHECK_INT(n, 0);
	CHECK_INT(g.n, 0);
}

/* XFS_BS_SICK_* bits to scrub type names; unknown bits and a short
 * buffer leave names out, never overflow. */
static void test_inode_scrub(void)
{
	char buf[96], small[12];

	CHECK_INT(map_healthmon_inode_scrub(0x10, buf, sizeof(buf)), 9);
	CHECK_STR(buf, "directory");
	map_healthmon_inode_scrub(0x1 | 0x2 | 0x80 | 0x100, buf, sizeof(buf));
	CHECK_STR(buf, "inode,bmapbtd,parent,dirtree");
	CHECK_INT(map_healthmon_inode_scrub(0xfffffe00u, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	map_healthmon_inode_scrub(0x1ff, small, sizeof(small));
	CHECK_STR(small, "inode,xattr");
}

int main(void)
{
	test_inode_scrub();
	test_each_kind();
	test_hostile();
	test_buffers();
	CHECK_STR(map_healthmon_type_name(MAP_HM_TYPE_BUFREAD), "bufread");
	CHECK_STR(map_healthmon_type_name(1000), "?");
	CHECK_STR(map_healthmon_domain_name(MAP_HM_DOMAIN_DATADEV), "datadev");
	return check_done();
}
