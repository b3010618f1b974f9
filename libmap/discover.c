// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Discover: from any path to its mounted XFS filesystem, data device, UUID,
 * label, device identity and geometry.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <blkid.h>
#include <libmount.h>
#include <libudev.h>

#include "map.h"
#include "map_fsmap.h"
#include "map_internal.h"
#include "xfs_abi.h"

#define XFS_SUPER_MAGIC_NR 0x58465342	/* "XFSB" */

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static unsigned int log2_ceil(uint64_t v)
{
	unsigned int l = 0;

	while ((1ULL << l) < v)
		l++;
	return l;
}

void map_geometry_from_xfs(struct map_geometry *geo, const void *raw)
{
	const struct xfs_fsop_geom *g = raw;

	memset(geo, 0, sizeof(*geo));
	geo->blocksize = g->blocksize;
	geo->sectsize = g->sectsize;
	geo->inodesize = g->inodesize;
	geo->dirblocksize = g->dirblocksize;
	geo->agcount = g->agcount;
	geo->agblocks = g->agblocks;
	geo->datablocks = g->datablocks;
	geo->logstart = g->logstart;
	geo->logblocks = g->logblocks;
	geo->flags = g->flags;
	geo->sick = g->sick;
	geo->checked = g->checked;

	geo->agblklog = log2_ceil(g->agblocks);
	geo->inopblog = log2_ceil(g->blocksize / (g->inodesize ? g->inodesize : 256));
	geo->v5 = g->flags & XFS_FSOP_GEOM_FLAGS_V5SB;
	geo->finobt = g->flags & XFS_FSOP_GEOM_FLAGS_FINOBT;
	geo->rmapbt = g->flags & XFS_FSOP_GEOM_FLAGS_RMAPBT;
	geo->reflink = g->flags & XFS_FSOP_GEOM_FLAGS_REFLINK;
	geo->sparse_inodes = g->flags & XFS_FSOP_GEOM_FLAGS_SPINODES;
	geo->parent = g->flags & XFS_FSOP_GEOM_FLAGS_PARENT;
	geo->exchange_range = g->flags & XFS_FSOP_GEOM_FLAGS_EXCHANGE_RANGE;

	/*
	 * The kernel reads inode cores a cluster at a time: 8 KiB, scaled by the
	 * inode size on V5 filesystems when inode chunks are aligned to it
	 * (mkfs aligns them by default), never less than a block.
	 */
	uint32_t cluster = 8192;
	if (geo->v5 && (g->flags & XFS_FSOP_GEOM_FLAGS_IALIGN))
		cluster = 8192 * (g->inodesize / 256);
	if (cluster < g->blocksize)
		cluster = g->blocksize;
	geo->inode_cluster = cluster;
}

/* Find the mount of @real (a canonical path) whose device is @dev. */
static int find_mount(const char *real, dev_t dev, struct map_fs_info *info)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_BACKWARD);
	struct libmnt_fs *fs = NULL, *best = NULL;
	size_t best_len = 0;
	int rc = -MAP_ENOTMOUNTED;

	if (!tb || !it) {
		rc = -ENOMEM;
		goto out;
	}
	if (mnt_table_parse_mtab(tb, NULL) != 0) {
		rc = -EIO;
		goto out;
	}
	/* The longest mount target that is a prefix of the path and has the
	 * path's device: the mount the path lives on (bind mounts included). */
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *target = mnt_fs_get_target(fs);
		size_t len;

		if (!target || mnt_fs_get_devno(fs) != dev)
			continue;
		len = strlen(target);
		if (strcmp(target, "/") != 0 &&
		    (strncmp(real, target, len) != 0 || (real[len] != '/' && real[len] != '\0')))
			continue;
		if (!best || len > best_len) {
			best = fs;
			best_len = len;
		}
	}
	if (best) {
		const char *src = mnt_fs_get_srcpath(best);
		char *opts = NULL;

		copy_str(info->mountpoint, sizeof(info->mountpoint), mnt_fs_get_target(best));
		copy_str(info->device, sizeof(info->device), src ? src : mnt_fs_get_source(best));
		info->read_only = mnt_optstr_get_option(mnt_fs_get_vfs_options(best), "ro", &opts,
							 NULL) == 0;
		rc = 0;
	}
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return rc;
}

static void probe_blkid(struct map_fs_info *info)
{
	blkid_probe pr = blkid_new_probe_from_filename(info->device);
	const char *val;

	if (!pr)
		return;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_TYPE);
	if (blkid_do_safeprobe(pr) == 0) {
		if (blkid_probe_lookup_value(pr, "UUID", &val, NULL) == 0)
			copy_str(info->uuid, sizeof(info->uuid), val);
		if (blkid_probe_lookup_value(pr, "LABEL", &val, NULL) == 0)
			copy_str(info->label, sizeof(info->label), val);
	}
	blkid_free_probe(pr);
}

/* Model, serial and WWN: udev's database when udevd runs, else sysfs. */
static void probe_udev(struct map_fs_info *info)
{
	struct udev *udev = udev_new();
	struct udev_device *d;
	const char *v;

	if (!udev)
		return;
	d = udev_device_new_from_devnum(udev, 'b', (dev_t)info->dev);
	if (d) {
		struct udev_device *disk = d;

		if ((v = udev_device_get_property_value(d, "ID_MODEL")))
			copy_str(info->model, sizeof(info->model), v);
		if ((v = udev_device_get_property_value(d, "ID_SERIAL_SHORT")) ||
		    (v = udev_device_get_property_value(d, "ID_SERIAL")))
			copy_str(info->serial, sizeof(info->serial), v);
		if ((v = udev_device_get_property_value(d, "ID_WWN")))
			copy_str(info->wwn, sizeof(info->wwn), v);
		/* Partitions take their identity from the whole disk. */
		if (udev_device_get_devtype(d) &&
		    strcmp(udev_device_get_devtype(d), "partition") == 0)
			disk = udev_device_get_parent_with_subsystem_devtype(d, "block", "disk");
		if (disk) {
			if (!info->model[0] && (v = udev_device_get_sysattr_value(disk, "device/model")))
				copy_str(info->model, sizeof(info->model), v);
			if (!info->model[0] && (v = udev_device_get_sysattr_value(disk, "dm/name")))
				snprintf(info->model, sizeof(info->model), "device-mapper %s", v);
			if (!info->serial[0] && (v = udev_device_get_sysattr_value(disk, "serial")))
				copy_str(info->serial, sizeof(info->serial), v);
			if (!info->serial[0] && (v = udev_device_get_sysattr_value(disk, "device/serial")))
				copy_str(info->serial, sizeof(info->serial), v);
			if (!info->wwn[0] && (v = udev_device_get_sysattr_value(disk, "wwid")))
				copy_str(info->wwn, sizeof(info->wwn), v);
			if (!info->wwn[0] && (v = udev_device_get_sysattr_value(disk, "device/wwid")))
				copy_str(info->wwn, sizeof(info->wwn), v);
		}
		/* sysfs values often carry trailing blanks */
		for (char *s = info->model + strlen(info->model); s > info->model && s[-1] == ' ';)
			*--s = '\0';
		udev_device_unref(d);
	}
	udev_unref(udev);
}

static void format_uuid(const unsigned char *u, char out[40])
{
	snprintf(out, 40, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

int map_fsgeometry_call(int fd, struct xfs_fsop_geom *geom)
{
	memset(geom, 0, sizeof(*geom));
	return ioctl(fd, XFS_IOC_FSGEOMETRY, geom) != 0 ? -errno : 0;
}

/* Open fs->info.mountpoint as the filesystem's root (it must be on
 * fs->info.dev), note its inode number and read the geometry. */
static int open_root(struct map_fs *fs, struct xfs_fsop_geom *geom)
{
	struct stat st;

	fs->fd = open(fs->info.mountpoint, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->fd < 0)
		return -errno;
	if (fstat(fs->fd, &st) != 0 || st.st_dev != (dev_t)fs->info.dev)
		return -MAP_EUNMOUNTED;
	fs->info.root_ino = st.st_ino;
	int rc = map_fsgeometry_call(fs->fd, geom);

	if (rc)
		return rc;
	map_geometry_from_xfs(&fs->info.geo, geom);
	return 0;
}

int map_fs_open(const char *path, struct map_fs **fsp)
{
	struct map_fs *fs;
	struct statfs sfs;
	struct stat st;
	char real[PATH_MAX];
	struct xfs_fsop_geom geom;
	int rc;

	*fsp = NULL;
	if (!realpath(path, real))
		return -errno;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->fd = -1;
	fs->fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fs->fd < 0) {
		rc = -errno;
		goto fail;
	}
	if (fstatfs(fs->fd, &sfs) != 0 || fstat(fs->fd, &st) != 0) {
		rc = -errno;
		goto fail;
	}
	if (sfs.f_type != XFS_SUPER_MAGIC_NR) {
		rc = -MAP_ENOTXFS;
		goto fail;
	}
	fs->info.dev = st.st_dev;
	fs->info.fsmap_dev = map_fsmap_encode_dev(major(st.st_dev), minor(st.st_dev));
	rc = find_mount(real, st.st_dev, &fs->info);
	if (rc)
		goto fail;

	/* Work from the mount root, not from the path we were given. */
	close(fs->fd);
	rc = open_root(fs, &geom);
	if (rc)
		goto fail;
	probe_blkid(&fs->info);
	if (!fs->info.uuid[0])
		format_uuid(geom.uuid, fs->info.uuid);
	probe_udev(&fs->info);
	*fsp = fs;
	return 0;
fail:
	map_fs_close(fs);
	return rc;
}

int map_fs_reopen(const struct map_fs_info *known, struct map_fs **fsp)
{
	struct xfs_fsop_geom geom;
	struct statvfs sv;
	char uuid[40];
	struct map_fs *fs;
	int rc;

	*fsp = NULL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->info = *known;
	rc = open_root(fs, &geom);
	if (rc == 0 && fs->info.root_ino != known->root_ino)
		rc = -MAP_EUNMOUNTED;	/* a folder of it is mounted there now */
	if (rc == 0) {
		/* The same device number may be another filesystem now
		 * (unmounted, made again, mounted at the same place). */
		format_uuid(geom.uuid, uuid);
		if (strcasecmp(uuid, known->uuid) != 0)
			rc = -MAP_EUNMOUNTED;
	}
	if (rc == 0 && fstatvfs(fs->fd, &sv) != 0)
		rc = -errno;
	if (rc) {
		map_fs_close(fs);
		return rc;
	}
	fs->info.read_only = (sv.f_flag & ST_RDONLY) != 0;
	*fsp = fs;
	return 0;
}

void map_fs_close(struct map_fs *fs)
{
	if (!fs)
		return;
	if (fs->fd >= 0)
		close(fs->fd);
	map_fs_release_state(fs);
	free(fs);
}

const struct map_fs_info *map_fs_info(const struct map_fs *fs)
{
	return &fs->info;
}

int map_fs_fd(const struct map_fs *fs)
{
	return fs->fd;
}

int map_fs_check_mounted(const struct map_fs *fs)
{
	struct map_fs_info now;
	char real[PATH_MAX];
	struct stat st;

	/* After a lazy unmount our descriptor still works, but the mount point
	 * now shows something else (or nothing). */
	memset(&now, 0, sizeof(now));
	if (stat(fs->info.mountpoint, &st) != 0 || st.st_dev != (dev_t)fs->info.dev ||
	    st.st_ino != fs->info.root_ino)
		return -MAP_EUNMOUNTED;
	if (!realpath(fs->info.mountpoint, real))
		return -MAP_EUNMOUNTED;
	if (find_mount(real, (dev_t)fs->info.dev, &now) != 0)
		return -MAP_EUNMOUNTED;
	return 0;
}
