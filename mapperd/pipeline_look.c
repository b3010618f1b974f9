// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event analysis: what each kind of report is looked at with.  A device range
 * or a file's bytes are read and the bad ones located; an inode is read or
 * scrubbed; a sick object is scrubbed or gets a scan; a filesystem-wide report
 * looks at what the kernel marked sick and asks for the scans that find the rest.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "health.h"
#include "log.h"
#include "map_healthmon.h"
#include "pipeline_internal.h"

#define MAX_SICK_INODES 64

static int look_at_range(struct md_pipeline *p, struct map_fs *fs, uint64_t start,
			 uint64_t length, bool do_verify, struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	uint64_t size = info->geo.datablocks * info->geo.blocksize;
	struct bad_list bad = { 0 };
	int rc = 0;

	if (start >= size) {
		snprintf(o->note, sizeof(o->note), "; beyond the filesystem's end");
		return 0;
	}
	if (length > size - start)
		length = size - start;
	if (do_verify) {
		struct map_range_list want = { 0 };

		/* Whole filesystem blocks, so the reads are aligned. */
		uint64_t bs = info->geo.blocksize;
		uint64_t a = start / bs * bs, b = (start + length + bs - 1) / bs * bs;
		rc = map_range_add(&want, a, (b < size ? b : size) - a);
		if (rc == 0)
			rc = pipeline_verify(p, fs, &want, &bad, o);
		map_range_free(&want);
	} else {
		rc = map_range_add(&bad.ranges, start, length);
	}
	if (rc == 0)
		rc = pipeline_locate_bad(fs, &bad.ranges, o);
	if (rc == 0 && do_verify && bad.ranges.n == 0)
		snprintf(o->note, sizeof(o->note), "; the range reads fine now");
	map_range_free(&bad.ranges);
	return rc;
}

/*
 * An inode: read the extents of its data fork to find exactly which bytes
 * are bad (at most event_read_limit of them per report); when none are, ask
 * scrub whether its metadata is broken, and leave the rest of a file too
 * large to read at once to a media scan.
 */
static int look_at_inode(struct md_pipeline *p, struct map_fs *fs, uint64_t ino, uint32_t gen,
			 struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	struct md_sick_inode si = { .ino = ino, .gen = gen };
	struct map_range_list ranges = { 0 }, reads = { 0 };
	struct bad_list bad = { 0 };
	bool partial = false;
	int fd, rc;

	rc = md_health_inode(fs, ino, &si);
	if (rc == -ENOENT || (rc == 0 && gen && si.gen != gen)) {
		snprintf(o->note, sizeof(o->note), "; inode %" PRIu64 " is gone", ino);
		return 0;
	}
	if (rc == -EUCLEAN && gen) {
		/* The kernel named an inode whose core fails verification: it
		 * cannot be loaded, but scrub can say so, and its names are in
		 * the directories. */
		si = (struct md_sick_inode){ .ino = ino, .gen = gen };
		return pipeline_scrub_inode(fs, &si, o);
	}
	if (rc) {
		/* The inode itself cannot be read: its cluster is the damage. */
		uint64_t byte = map_geo_ino_to_byte(&info->geo, ino);

		return look_at_range(p, fs, byte, info->geo.inodesize, true, o);
	}
	fd = map_open_inode(fs, ino, si.gen, 0);
	if (fd >= 0) {
		rc = map_file_ranges(fd, &ranges);
		close(fd);
		if (rc == 0)
			rc = pipeline_choose_reads(p, fs, ino, si.gen, &ranges, &reads, &partial,
						   o);
		if (rc == 0 && reads.n)
			rc = pipeline_verify(p, fs, &reads, &bad, o);
	} else if (fd != -ELOOP && fd != -EINVAL) {
		log_debug("%s: cannot open inode %" PRIu64 ": %s", info->uuid, ino, map_strerror(fd));
	}
	if (rc == 0)
		rc = pipeline_locate_bad(fs, &bad.ranges, o);
	if (rc == 0 && bad.ranges.n == 0)
		rc = pipeline_scrub_inode(fs, &si, o);
	if (rc == 0 && bad.ranges.n == 0 && o->n == 0 && partial && pipeline_event_scans(p) &&
	    pipeline_request_scan(p, info->uuid, false, true,
				  "a file report larger than event_read_limit"))
		snprintf(o->note + strlen(o->note), sizeof(o->note) - strlen(o->note),
			 "; media scan requested for the rest");
	map_range_free(&ranges);
	map_range_free(&reads);
	map_range_free(&bad.ranges);
	return rc;
}

/*
 * File bytes whose I/O failed (health monitor): only the blocks under them
 * are read, never the whole file; a failed write is taken as it is (what
 * was meant to be there never reached the disk, so reading proves nothing).
 */
static int look_at_file_range(struct md_pipeline *p, struct map_fs *fs, const struct md_event *ev,
			      struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	uint64_t bs = info->geo.blocksize ? info->geo.blocksize : 4096;
	uint64_t a = ev->start / bs * bs, limit;
	uint64_t b = ev->start + ev->length > UINT64_MAX - bs ? UINT64_MAX / bs * bs
		     : (ev->start + ev->length + bs - 1) / bs * bs;
	struct map_range_list dev = { 0 }, reads = { 0 };
	struct bad_list bad = { 0 };
	int fd, rc;

	fd = map_open_inode(fs, ev->ino, ev->gen, 0);
	if (fd < 0)	/* gone, or its inode cannot be read: as a whole-inode report */
		return look_at_inode(p, fs, ev->ino, ev->gen, o);
	rc = map_file_span_ranges(fd, a, b - a, &dev);
	close(fd);
	if (rc == 0 && dev.n == 0) {
		snprintf(o->note, sizeof(o->note), "; no written blocks under bytes %" PRIu64 "+%"
			 PRIu64 " now", ev->start, ev->length);
		return 0;
	}
	pthread_mutex_lock(&p->lock);
	limit = p->conf.read_limit;
	pthread_mutex_unlock(&p->lock);
	if (rc == 0 && ev->write) {
		bad.ranges = dev;
		dev = (struct map_range_list){ 0 };
	} else if (rc == 0) {
		/* The kernel's range is a folio or a bio: bounded, but a hostile
		 * file's could be large; at most event_read_limit is read. */
		uint64_t max = limit < bs ? bs : limit / bs * bs;

		if (limit && map_range_total(&dev) > max) {
			rc = pipeline_ranges_window(&dev, 0, max, &reads);
			snprintf(o->note, sizeof(o->note), "; read the first %" PRIu64 " bytes of the "
				 "range (event_read_limit)", max);
		} else {
			reads = dev;
			dev = (struct map_range_list){ 0 };
		}
		if (rc == 0)
			rc = pipeline_verify(p, fs, &reads, &bad, o);
		if (rc == 0 && bad.ranges.n == 0)
			snprintf(o->note, sizeof(o->note), "; the range reads fine now");
	}
	if (rc == 0)
		rc = pipeline_locate_bad(fs, &bad.ranges, o);
	map_range_free(&dev);
	map_range_free(&reads);
	map_range_free(&bad.ranges);
	return rc;
}

/*
 * An object the kernel marked sick or corrupt (health monitor): an inode is
 * scrubbed, so what scrub confirms becomes a finding with its paths; the
 * filesystem's or a group's metadata gets a metadata scan.  An inode healthy
 * again closes its metadata findings of the aspects the kernel names (when
 * the event is recorded); a group or the filesystem healthy again is
 * recorded as an event only (a later scan resolves what it no longer sees).
 */
static int look_at_sick(struct md_pipeline *p, struct map_fs *fs, const struct md_event *ev,
			struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	struct md_sick_inode si = { .ino = ev->ino, .gen = ev->gen };
	char why[96];
	int rc;

	if (ev->type == MAP_HM_TYPE_HEALTHY) {
		if (ev->domain == MAP_HM_DOMAIN_INODE &&
		    map_healthmon_inode_scrub(ev->mask, o->healthy_scrub,
					      sizeof(o->healthy_scrub))) {
			o->healthy_ino = ev->ino;
			o->healthy_gen = ev->gen;
		}
		snprintf(o->note, sizeof(o->note), "; marked healthy again");
		return 0;
	}
	if (ev->domain == MAP_HM_DOMAIN_INODE) {
		rc = md_health_inode(fs, ev->ino, &si);
		if (rc == -ENOENT || (rc == 0 && ev->gen && si.gen != ev->gen)) {
			snprintf(o->note, sizeof(o->note), "; inode %" PRIu64 " is gone", ev->ino);
			return 0;
		}
		if (rc)
			si = (struct md_sick_inode){ .ino = ev->ino, .gen = ev->gen };
		return pipeline_scrub_inode(fs, &si, o);
	}
	if (ev->type == MAP_HM_TYPE_MEDIA_ERROR) {
		snprintf(o->note, sizeof(o->note), "; not mapped: only the data device is");
		return 0;
	}
	if (ev->domain == MAP_HM_DOMAIN_AG && ev->gno >= info->geo.agcount) {
		snprintf(o->note, sizeof(o->note), "; no allocation group %" PRIu32, ev->gno);
		return 0;
	}
	if (!pipeline_event_scans(p))
		return 0;
	snprintf(why, sizeof(why), "kernel marked %s %s (healthmon)",
		 ev->domain == MAP_HM_DOMAIN_FS ? "filesystem metadata" :
		 ev->domain == MAP_HM_DOMAIN_AG ? "an allocation group" : "a realtime group",
		 map_healthmon_type_name(ev->type));
	bool asked = pipeline_request_scan(p, info->uuid, true, false, why);
	snprintf(o->note, sizeof(o->note), "; %s", asked ? "metadata scan requested"
		 : "no metadata scan: one was requested within event_scan_interval");
	return 0;
}

static bool is_media_error(int error)
{
	return error == EIO || error == ENODATA || error == EILSEQ || error == EREMOTEIO ||
	       error == ENOLINK || error == ETIMEDOUT || error == ENODEV;
}

/*
 * A filesystem-wide report that says what it is: the filesystem is shut
 * down, the kernel lost reports (only scanning everything finds them), or a
 * metadata block could not be read (the kernel log may have placed it).
 * False for any other report.
 */
static bool look_at_fs_report(struct md_pipeline *p, const char *uuid, const struct md_event *ev,
			      bool scans, struct outcome *o)
{
	bool asked;

	if (ev->kind != MD_EV_FS)
		return false;
	if (ev->error == ESHUTDOWN) {
		snprintf(o->note, sizeof(o->note), "; the filesystem is shut down");
		return true;
	}
	if (ev->error == ENOBUFS) {
		/* The kernel had no room for some of its error reports: they
		 * may be anywhere, and only scanning everything finds them. */
		if (scans) {
			char why[96];

			snprintf(why, sizeof(why), "the kernel lost error reports (%s)",
				 ev->source == MAP_EVENT_FANOTIFY ? "fanotify ENOBUFS"
				 : map_event_source_name(ev->source));
			asked = pipeline_request_scan(p, uuid, true, true, why);
			snprintf(o->note, sizeof(o->note), "; %s", asked ? "full scan requested: the "
				 "kernel lost error reports" : "no scan: one was requested within "
				 "event_scan_interval");
		}
		return true;
	}
	if (ev->count > 1 || !is_media_error(ev->error))
		return false;
	/* A metadata block could not be read (file data errors name their
	 * inode).  Read errors mark nothing sick; the kernel log line has the
	 * place.  Without it only a scan can find it. */
	if (pipeline_wait_located(p, uuid, ev->received)) {
		snprintf(o->note, sizeof(o->note), "; placed by the kernel log");
	} else if (scans) {
		asked = pipeline_request_scan(p, uuid, true, false, "metadata read error the "
					      "kernel did not place (fanotify)");
		snprintf(o->note, sizeof(o->note), "; %s", asked ? "metadata scan requested"
			 : "no metadata scan: one was requested within event_scan_interval");
	}
	return true;
}

/*
 * fanotify kept only the first of several errors, or named no inode: look
 * at what the kernel marked sick, and scan for what it cannot tell us.
 */
int pipeline_look_at_health(struct md_pipeline *p, struct map_fs *fs, const struct md_event *ev,
			    struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	struct md_health h;
	bool scans;
	int rc;

	pthread_mutex_lock(&p->lock);
	scans = p->conf.event_scans;
	pthread_mutex_unlock(&p->lock);

	if (look_at_fs_report(p, info->uuid, ev, scans, o))
		return 0;
	rc = md_health_geometry(fs, &h);
	if (rc == 0)
		rc = md_health_inodes(fs, &h, MAX_SICK_INODES);
	for (size_t i = 0; rc == 0 && i < h.ninodes; i++) {
		if (h.inodes[i].ino == ev->ino)
			continue;	/* already looked at */
		rc = pipeline_scrub_inode(fs, &h.inodes[i], o);
	}
	if (rc == 0 && (h.fs_sick || h.sick_ags) && scans) {
		char why[96];

		snprintf(why, sizeof(why), "kernel marked %s sick (%s report)",
			 h.sick_ags ? "allocation groups" : "filesystem metadata",
			 map_event_source_name(ev->source));
		bool asked = pipeline_request_scan(p, info->uuid, true, false, why);
		snprintf(o->note, sizeof(o->note), "; %s", asked ? "metadata scan requested"
			 : "no metadata scan: one was requested within event_scan_interval");
	}
	if (rc == 0 && scans && ev->count > 1 && is_media_error(ev->error)) {
		/* Merged read errors: only the first one's inode is known; the
		 * others may be file data anywhere, which only reading finds. */
		if (pipeline_request_scan(p, info->uuid, false, true,
					  "several read errors merged into one report (fanotify)"))
			snprintf(o->note, sizeof(o->note), "; media scan requested for the other %"
				 PRIu32 " errors", ev->count - 1);
		else
			snprintf(o->note, sizeof(o->note), "; no media scan for the other %" PRIu32
				 " errors: one was requested within event_scan_interval",
				 ev->count - 1);
	}
	md_health_free(&h);
	return rc;
}

int pipeline_look(struct md_pipeline *p, struct map_fs *fs, const struct md_event *ev,
		  struct outcome *o)
{
	int rc = 0;

	switch (ev->kind) {
	case MD_EV_INODE:
		rc = look_at_inode(p, fs, ev->ino, ev->gen, o);
		break;
	case MD_EV_RANGE:
		rc = look_at_range(p, fs, ev->start, ev->length, ev->verify, o);
		if (rc == 0 && o->bad_ranges)
			pipeline_note_located(p, ev->uuid);
		break;
	case MD_EV_FILE:
		rc = look_at_file_range(p, fs, ev, o);
		break;
	case MD_EV_HEALTH:
		rc = look_at_sick(p, fs, ev, o);
		break;
	case MD_EV_FS:
		break;
	}
	return rc;
}
