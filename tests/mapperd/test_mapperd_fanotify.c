// SPDX-License-Identifier: GPL-2.0-or-later
/* FAN_FS_ERROR records: decoding, XFS file handles, merged counts, and
 * de-duplication of reports. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/fanotify.h>

#include "check.h"
#include "dedup.h"
#include "fanotify_source.h"
#include "map.h"
#include "map_healthmon.h"

static unsigned char buf[4096];
static size_t used;

/* Append one FAN_FS_ERROR event: error record, then a FID record with a
 * handle of @type and @hlen bytes (no FID record when @type < 0). */
static void add_event(int error, uint32_t count, int type, const void *handle, uint32_t hlen,
		      bool fid_first)
{
	struct fanotify_event_metadata m = { .vers = FANOTIFY_METADATA_VERSION,
					     .metadata_len = sizeof(m), .mask = FAN_FS_ERROR,
					     .fd = FAN_NOFD, .pid = 0 };
	struct fanotify_event_info_error e = { .hdr = { .info_type = FAN_EVENT_INFO_TYPE_ERROR,
							.len = sizeof(e) },
					       .error = error, .error_count = count };
	struct fanotify_event_info_fid fid = { .hdr = { .info_type = FAN_EVENT_INFO_TYPE_FID } };
	struct { unsigned int handle_bytes; int handle_type; } fh = { hlen, type };
	size_t fid_len = sizeof(fid) + sizeof(fh) + hlen;

	fid_len = (fid_len + 3) & ~(size_t)3;
	fid.hdr.len = (uint16_t)fid_len;
	m.event_len = (uint32_t)(sizeof(m) + sizeof(e) + (type >= 0 ? fid_len : 0));
	unsigned char *p = buf + used;
	memset(p, 0, m.event_len);
	memcpy(p, &m, sizeof(m));
	p += sizeof(m);
	unsigned char *first = p, *second = p + (fid_first ? fid_len : sizeof(e));
	unsigned char *ep = fid_first ? second : first, *fp = fid_first ? first : second;
	memcpy(ep, &e, sizeof(e));
	if (type >= 0) {
		memcpy(fp, &fid, sizeof(fid));
		memcpy(fp + sizeof(fid), &fh, sizeof(fh));
		if (hlen)
			memcpy(fp + sizeof(fid) + sizeof(fh), handle, hlen);
	}
	used += m.event_len;
}

static struct md_fan_report got[8];
static int ngot;

static void on_report(const struct md_fan_report *r, void *arg)
{
	(void)arg;
	if (ngot < 8)
		got[ngot++] = *r;
}

int main(void)
{
	uint64_t ino;
	uint32_t gen;

	/* handles as XFS encodes them */
	uint32_t h32[2] = { 131, 0xdeadbeef };
	CHECK_INT(map_xfs_handle_decode(1, (const unsigned char *)h32, 8, &ino, &gen), 0);
	CHECK(ino == 131 && gen == 0xdeadbeef, "type 1: %llu %u", (unsigned long long)ino, gen);
	unsigned char h64[12];
	uint64_t big = 0x100000083ULL;
	uint32_t g = 7;
	memcpy(h64, &big, 8);
	memcpy(h64 + 8, &g, 4);
	CHECK_INT(map_xfs_handle_decode(0x81, h64, 12, &ino, &gen), 0);
	CHECK(ino == big && gen == 7, "type 0x81: %llx %u", (unsigned long long)ino, gen);
	CHECK_INT(map_xfs_handle_decode(0x81, h64, 8, &ino, &gen), -EINVAL);
	CHECK_INT(map_xfs_handle_decode(0x4d, h64, 12, &ino, &gen), -EINVAL);

	/* three events in one read: a file's EIO, a merged one with the fid
	 * record first, and a shutdown with no inode (FILEID_INVALID) */
	add_event(EIO, 1, 0x81, h64, 12, false);
	add_event(EUCLEAN, 5, 1, h32, 8, true);
	add_event(ESHUTDOWN, 1, 0xff, NULL, 0, false);
	CHECK_INT(md_fanotify_decode(buf, used, on_report, NULL), 3);
	CHECK(ngot == 3, "%d reports", ngot);
	CHECK(got[0].error == EIO && got[0].count == 1 && got[0].has_inode && got[0].ino == big &&
	      got[0].gen == 7, "first report");
	CHECK(got[1].error == EUCLEAN && got[1].count == 5 && got[1].has_inode &&
	      got[1].ino == 131 && got[1].gen == 0xdeadbeef, "second report");
	CHECK(got[2].error == ESHUTDOWN && !got[2].has_inode && got[2].handle_type == 0xff,
	      "third report");

	/* a truncated buffer is refused (after the complete events) */
	ngot = 0;
	CHECK_INT(md_fanotify_decode(buf, used - 3, on_report, NULL), -EINVAL);
	CHECK_INT(ngot, 2);

	/* an info record claiming more than the event holds */
	used = 0;
	add_event(EIO, 1, 1, h32, 8, false);
	buf[sizeof(struct fanotify_event_metadata) + 2] = 0xff;	/* error record's len */
	ngot = 0;
	CHECK_INT(md_fanotify_decode(buf, used, on_report, NULL), -EINVAL);
	CHECK_INT(ngot, 0);

	/* queue overflow: reported as errors we did not get to see */
	struct fanotify_event_metadata ov = { .event_len = sizeof(ov), .vers =
					      FANOTIFY_METADATA_VERSION, .metadata_len =
					      sizeof(ov), .mask = FAN_Q_OVERFLOW, .fd = FAN_NOFD };
	ngot = 0;
	CHECK_INT(md_fanotify_decode(&ov, sizeof(ov), on_report, NULL), 1);
	CHECK(ngot == 1 && got[0].overflow && got[0].count > 1, "overflow report");

	/* de-duplication */
	static struct md_dedup dd;
	struct md_event a = { .kind = MD_EV_INODE, .uuid = "u1", .ino = 5, .gen = 1 };
	struct md_event b = a;
	char ka[MD_DEDUP_KEY], kb[MD_DEDUP_KEY];
	b.gen = 2;
	md_dedup_key(&a, ka, sizeof(ka));
	md_dedup_key(&b, kb, sizeof(kb));
	CHECK(!md_dedup_seen(&dd, ka, 1000, 2000), "first time");
	CHECK(md_dedup_seen(&dd, ka, 2500, 2000), "again within the window");
	CHECK(!md_dedup_seen(&dd, kb, 2500, 2000), "another generation");
	CHECK(!md_dedup_seen(&dd, ka, 3001, 2000), "after the window");
	CHECK(!md_dedup_seen(&dd, ka, 3002, 0), "window 0 keeps everything");
	struct md_event r1 = { .kind = MD_EV_RANGE, .uuid = "u1", .start = 4096, .length = 512 };
	struct md_event r2 = r1;
	r2.start = 8192;
	md_dedup_key(&r1, ka, sizeof(ka));
	md_dedup_key(&r2, kb, sizeof(kb));
	CHECK(strcmp(ka, kb) != 0, "ranges have their own keys");
	/* a health record: sick, healthy, sick again are three reports; sick
	 * twice, or sick of another inode in between, are not */
	struct md_event s1 = { .kind = MD_EV_HEALTH, .uuid = "u1", .domain = MAP_HM_DOMAIN_INODE,
			       .type = MAP_HM_TYPE_SICK, .mask = 0x10, .ino = 131 };
	struct md_event h1 = s1, s2 = s1;
	h1.type = MAP_HM_TYPE_HEALTHY;
	s2.ino = 132;
	char ks[MD_DEDUP_KEY], kh[MD_DEDUP_KEY], ko[MD_DEDUP_KEY];
	md_dedup_key(&s1, ks, sizeof(ks));
	md_dedup_key(&h1, kh, sizeof(kh));
	md_dedup_key(&s2, ko, sizeof(ko));
	md_dedup_health(&dd, &s1);
	CHECK(!md_dedup_seen(&dd, ks, 5000, 2000), "sick");
	md_dedup_health(&dd, &s1);
	CHECK(md_dedup_seen(&dd, ks, 5100, 2000), "sick twice: a duplicate");
	md_dedup_health(&dd, &s2);
	CHECK(!md_dedup_seen(&dd, ko, 5150, 2000), "another inode sick");
	md_dedup_health(&dd, &h1);
	CHECK(!md_dedup_seen(&dd, kh, 5200, 2000), "healthy");
	md_dedup_health(&dd, &s1);
	CHECK(!md_dedup_seen(&dd, ks, 5300, 2000), "sick again after healthy: news");
	md_dedup_health(&dd, &s2);
	CHECK(md_dedup_seen(&dd, ko, 5350, 2000), "the other inode's sick is still a duplicate");
	md_dedup_health(&dd, &h1);
	CHECK(!md_dedup_seen(&dd, kh, 5400, 2000), "healthy again after sick: news");
	/* more keys than slots: the oldest are forgotten, nothing breaks */
	for (int i = 0; i < 3 * MD_DEDUP_SLOTS; i++) {
		char k[32];

		snprintf(k, sizeof(k), "k%d", i);
		CHECK(!md_dedup_seen(&dd, k, 10000, 2000), "key %d", i);
	}
	return check_done();
}
