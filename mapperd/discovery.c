// SPDX-License-Identifier: GPL-2.0-or-later
/* The mounted XFS filesystems, from libmount, followed with its monitor. */
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "daemon.h"
#include "dbguard.h"
#include "discovery.h"
#include "fanotify_source.h"
#include "healthmon_source.h"
#include "log.h"
#include "pipeline.h"
#include "scheduler.h"

static bool listed(char **v, size_t n, const char *mountpoint, const char *uuid)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], mountpoint) == 0 || strcasecmp(v[i], uuid) == 0)
			return true;
	return false;
}

static bool wanted(const struct md_config *c, const char *mountpoint, const char *uuid)
{
	if (listed(c->exclude, c->nexclude, mountpoint, uuid))
		return false;
	return c->all_filesystems || listed(c->filesystems, c->nfilesystems, mountpoint, uuid);
}

static void drop(struct md_daemon *d, struct md_fs *fs, const char *why)
{
	struct md_fs **pp = &d->fs_list;

	while (*pp && *pp != fs)
		pp = &(*pp)->next;
	if (*pp)
		*pp = fs->next;
	log_notice("%s %s: %s", fs->uuid, fs->mountpoint, why);
	md_healthmon_unwatch(d, fs);
	md_fanotify_unwatch(d, fs);
	md_pipeline_track_dirs(d->pipe, fs->uuid, fs->mountpoint, false);
	md_sched_fs_removed(d, fs);
	free(fs);
}

#define XFS_MAGIC 0x58465342		/* "XFSB", statfs f_type */

int md_fs_open_root(struct md_fs *fs, const char *what)
{
	struct stat st;
	struct statfs sfs;
	int fd, rc;

	/* Discovery opened the filesystem and checked its device, but the
	 * path is walked again here: a mount over the mount point since then,
	 * or a directory on the way that a local user may rename or replace,
	 * could lead to another filesystem, whose reports we would then take
	 * for this one's (and whose monitor we would hold). */
	fd = open(fs->mountpoint, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || fstatfs(fd, &sfs) != 0) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		/* Gone, renamed, a symlink now: like another filesystem, said
		 * once and tried again at the next mount change (a local user
		 * who can rename a folder on the way can cause many). */
		if (!fs->root_mismatch)
			log_warn("%s %s: cannot open the mount point: %s: no %s until the mount "
				 "table changes", fs->uuid, fs->mountpoint, map_strerror(rc), what);
		fs->root_mismatch = true;
		return -EXDEV;
	}
	if (st.st_dev == fs->dev && sfs.f_type == XFS_MAGIC) {
		fs->root_mismatch = false;
		return fd;
	}
	close(fd);
	if (!fs->root_mismatch)
		log_warn("%s %s: the mount point now leads to another filesystem (device %u:%u, "
			 "type 0x%lx; expected %u:%u, XFS): no %s until the mount table changes",
			 fs->uuid, fs->mountpoint, major(st.st_dev), minor(st.st_dev),
			 (unsigned long)sfs.f_type, major(fs->dev), minor(fs->dev), what);
	fs->root_mismatch = true;
	return -EXDEV;
}

void md_fs_watch_sources(struct md_daemon *d, struct md_fs *fs)
{
	int rc;

	/* The health monitor where the kernel has one and nobody else holds
	 * it; fanotify otherwise (the two would report each file error twice). */
	if (d->cfg.health_monitor)
		md_healthmon_watch(d, fs);
	if (d->cfg.fanotify && fs->hmon.fd < 0) {
		rc = md_fanotify_watch(d, fs);
		if (rc && rc != -EXDEV)
			log_warn("%s %s: no fanotify error reports: %s", fs->uuid, fs->mountpoint,
				 map_strerror(rc));
	}
}

/* The mount over the mount point may be gone: watch it as it should be. */
static void rewatch(struct md_daemon *d, struct md_fs *fs)
{
	md_fs_watch_sources(d, fs);
	if (fs->hmon.fd >= 0 || fs->fan.fd >= 0)
		log_notice("%s %s: the mount point leads to it again: watching it (%s)", fs->uuid,
			   fs->mountpoint, fs->hmon.fd >= 0 ? "health monitor" : "fanotify");
}

/* Open a newly seen mount and start watching it. */
static void add(struct md_daemon *d, const char *target, dev_t devno, int mnt_id)
{
	const struct map_fs_info *info;
	struct map_fs *mfs;
	struct md_fs *fs;
	int rc = map_fs_open(target, &mfs);

	if (rc) {
		log_warn("%s: cannot open the XFS filesystem: %s", target, map_strerror(rc));
		return;
	}
	info = map_fs_info(mfs);
	if ((dev_t)info->dev != devno) {
		map_fs_close(mfs);	/* changed under us; the next refresh sees it */
		return;
	}
	if (!wanted(&d->cfg, info->mountpoint, info->uuid)) {
		log_debug("%s %s: not watched (configuration)", info->uuid, info->mountpoint);
		map_fs_close(mfs);
		return;
	}
	if (md_fs_by_uuid(d, info->uuid)) {
		log_warn("%s %s: another mounted filesystem has the same UUID; not watched",
			 info->uuid, info->mountpoint);
		map_fs_close(mfs);
		return;
	}
	fs = calloc(1, sizeof(*fs));
	if (!fs) {
		map_fs_close(mfs);
		return;
	}
	snprintf(fs->uuid, sizeof(fs->uuid), "%s", info->uuid);
	snprintf(fs->mountpoint, sizeof(fs->mountpoint), "%s", info->mountpoint);
	snprintf(fs->device, sizeof(fs->device), "%s", info->device);
	fs->dev = (dev_t)info->dev;
	fs->mnt_id = mnt_id;
	fs->blocksize = info->geo.blocksize;
	fs->size = info->geo.datablocks * info->geo.blocksize;
	fs->fan.fd = -1;
	fs->hmon.fd = -1;
	snprintf(fs->hmon_state, sizeof(fs->hmon_state), "off");
	fs->seen = true;
	rc = blockdev_describe(fs->dev, &fs->bdev);
	if (rc)
		log_warn("%s %s: no sysfs entry for its device: %s", fs->uuid, fs->mountpoint,
			 map_strerror(rc));
	rc = map_fs_autofsck(mfs, fs->autofsck, sizeof(fs->autofsck));
	if (rc && rc != -ENODATA)
		log_warn("%s %s: cannot read the autofsck property: %s", fs->uuid, fs->mountpoint,
			 map_strerror(rc));
	md_db_fs_added(d, fs);		/* may open the database again */
	rc = d->st ? map_store_fs_upsert(d->st, info, &fs->fs_id) : -EIO;
	if (rc)
		log_err("%s %s: cannot record the filesystem: %s", fs->uuid, fs->mountpoint,
			map_strerror(rc));
	map_fs_close(mfs);

	fs->next = d->fs_list;
	d->fs_list = fs;
	md_fs_watch_sources(d, fs);
	if (d->cfg.directory_index)
		md_pipeline_track_dirs(d->pipe, fs->uuid, fs->mountpoint, true);
	md_pipeline_warm(d->pipe, fs->uuid, fs->mountpoint);
	log_notice("%s %s: watching (device %s, %s%s%s%s)", fs->uuid, fs->mountpoint, fs->device,
		   fs->bdev.name[0] ? fs->bdev.name : "?",
		   fs->hmon.fd >= 0 ? ", health monitor" : "", fs->fan.fd >= 0 ? ", fanotify" : "",
		   d->kmsg ? ", kernel log" : "");
	md_sched_fs_added(d, fs);
}

void md_discovery_refresh(struct md_daemon *d)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *mfs;

	if (!tb || !it || mnt_table_parse_file(tb, "/proc/self/mountinfo") != 0) {
		log_err("cannot read the mount table");
		mnt_free_iter(it);
		mnt_unref_table(tb);
		return;
	}
	/* A watched filesystem stays while the mount we opened it through
	 * (its mount ID) is there; a new mount of the same device is looked
	 * at afresh, as it may hold a new filesystem. */
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next)
		fs->seen = false;
	while (mnt_table_next_fs(tb, it, &mfs) == 0) {
		struct md_fs *fs = md_fs_by_dev(d, mnt_fs_get_devno(mfs));

		if (fs && mnt_fs_get_id(mfs) == fs->mnt_id &&
		    wanted(&d->cfg, fs->mountpoint, fs->uuid))
			fs->seen = true;
	}
	for (struct md_fs *fs = d->fs_list, *next; fs; fs = next) {
		next = fs->next;
		if (!fs->seen)
			drop(d, fs, "no longer mounted (or no longer wanted): not watched any more");
		else if (fs->root_mismatch && fs->hmon.fd < 0 && fs->fan.fd < 0)
			rewatch(d, fs);
	}

	mnt_reset_iter(it, MNT_ITER_FORWARD);
	while (mnt_table_next_fs(tb, it, &mfs) == 0) {
		const char *type = mnt_fs_get_fstype(mfs), *target = mnt_fs_get_target(mfs);
		dev_t devno = mnt_fs_get_devno(mfs);

		if (!type || strcmp(type, "xfs") != 0 || !target || md_fs_by_dev(d, devno))
			continue;
		add(d, target, devno, mnt_fs_get_id(mfs));
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
}

static void monitor_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	const char *file;
	int type, changes = 0;

	(void)w;
	(void)events;
	while (mnt_monitor_next_change(d->monitor, &file, &type) == 0)
		changes++;
	if (changes)
		md_discovery_refresh(d);
}

int md_discovery_start(struct md_daemon *d)
{
	int rc;

	d->monitor = mnt_new_monitor();
	if (!d->monitor)
		return -ENOMEM;
	rc = mnt_monitor_enable_kernel(d->monitor, 1);
	if (rc == 0) {
		d->mon.fd = mnt_monitor_get_fd(d->monitor);
		rc = d->mon.fd < 0 ? d->mon.fd : 0;
	}
	if (rc == 0) {
		d->mon.ready = monitor_ready;
		rc = md_watch_add(d, &d->mon, EPOLLIN);
	}
	if (rc) {
		mnt_unref_monitor(d->monitor);
		d->monitor = NULL;
		d->mon.fd = -1;
		return rc < 0 ? rc : -EIO;
	}
	md_discovery_refresh(d);
	return 0;
}

void md_discovery_stop(struct md_daemon *d)
{
	while (d->fs_list) {
		struct md_fs *fs = d->fs_list;

		d->fs_list = fs->next;
		md_healthmon_unwatch(d, fs);
		md_fanotify_unwatch(d, fs);
		md_sched_fs_removed(d, fs);
		free(fs);
	}
	if (d->monitor) {
		md_watch_del(d, &d->mon);
		mnt_unref_monitor(d->monitor);
		d->monitor = NULL;
		d->mon.fd = -1;
	}
}
