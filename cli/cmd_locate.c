// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl locate: owners and paths of a disk address, now, without a scan. */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "mapctl.h"

/* What was asked: a device range of the filesystem holding @path. */
struct locate_opts {
	const char *path;
	long long byte, length;		/* -1: not given */
};

/* DADDR (512-byte sectors) as the byte to start at: 0, or EXIT_ERROR after
 * saying why not. */
static int parse_daddr(const struct ctl *ctl, const char *arg, struct locate_opts *o)
{
	unsigned long long daddr;
	char *end;
	uint64_t b;

	errno = 0;
	daddr = strtoull(arg, &end, 0);
	if (errno || *end || end == arg)
		return fail(ctl, 0, "'%s' is not a disk address (512-byte sectors)", arg);
	if (__builtin_mul_overflow(daddr, 512, &b) || b > (uint64_t)LLONG_MAX)
		return fail(ctl, 0, "disk address %s is past the end of any device", arg);
	o->byte = (long long)b;
	if (o->length < 0)
		o->length = 512;
	return 0;
}

/* 0, or an EXIT_* status after saying what is wrong. */
static int parse_options(struct ctl *ctl, int argc, char **argv, struct locate_opts *o)
{
	static const struct option longopts[] = {
		{ "byte", required_argument, NULL, 'b' },
		{ "length", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, rc;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (map_parse_size(optarg, &v) || v > LLONG_MAX)
				return fail(ctl, 0, "--byte wants a device byte offset, not '%s'",
					    shown(optarg));
			o->byte = (long long)v;
			break;
		case 'l':
			if (map_parse_size(optarg, &v) || v == 0 || v > LLONG_MAX)
				return fail(ctl, 0, "--length wants bytes (more than 0), not '%s'",
					    shown(optarg));
			o->length = (long long)v;
			break;
		case 'j': ctl->json = true; break;
		default: return option_error(ctl, argv, "", longopts);
		}
	}
	if (optind >= argc)
		return fail(ctl, 0, "which filesystem? (mapctl locate PATH DADDR; see --help)");
	o->path = argv[optind++];
	if (o->byte < 0) {
		if (optind >= argc)
			return fail(ctl, 0, "give a disk address (512-byte sectors) or --byte OFFSET");
		rc = parse_daddr(ctl, argv[optind], o);
		if (rc)
			return rc;
	}
	if (o->length < 0)
		o->length = 1;
	return 0;
}

static void json_owners(const struct map_fs_info *info, const struct locate_opts *o,
			const struct map_owner_list *owners, const struct map_paths *paths)
{
	struct map_json j;

	json_open(&j, stdout, "mapctl locate");
	map_json_str(&j, "fs_uuid", info->uuid);
	map_json_str(&j, "mountpoint", info->mountpoint);
	map_json_uint(&j, "device_offset", (uint64_t)o->byte);
	map_json_uint(&j, "device_length", (uint64_t)o->length);
	map_json_arr(&j, "owners");
	for (size_t i = 0; i < owners->n; i++) {
		struct map_finding f;

		map_finding_from_owner(&f, MAP_SOURCE_NONE, &owners->v[i], &paths[i]);
		f.id = 0;	/* not recorded: no ID, no state, no source */
		json_finding(&j, &f, info->uuid, info->mountpoint);
		map_finding_clear(&f);
	}
	map_json_end_arr(&j);
	json_close(&j);
}

/* One owner and its names, for people. */
static void print_owner(const char *mnt, const struct map_owner *o, const struct map_paths *p)
{
	printf("  %-14s", map_owner_kind_name(o->kind));
	if (o->ino)
		printf(" inode %llu gen %u", (unsigned long long)o->ino, o->gen ? o->gen : p->gen);
	if (o->kind == MAP_OWNER_FILE || o->kind == MAP_OWNER_DIR ||
	    o->kind == MAP_OWNER_XATTR || o->kind == MAP_OWNER_SYMLINK)
		printf(" offset %llu length %llu", (unsigned long long)o->offset,
		       (unsigned long long)o->length);
	if (!o->ino)
		printf(" AG %u", o->agno);
	if (o->flags & MAP_OWNER_F_SHARED)
		printf(" (shared)");
	if (o->flags & MAP_OWNER_F_ATTR_FORK)
		printf(" (attribute fork)");
	if (o->flags & MAP_OWNER_F_NO_INODE && p->unreadable)
		printf(" (inode unreadable)");
	else if (p->pptr_unreadable)
		printf(" (parent pointers unreadable: names found in the directories)");
	putchar('\n');
	for (size_t k = 0; k < p->npaths; k++) {
		printf("      ");
		print_path_text(stdout, mnt, p->paths[k]);
		putchar('\n');
	}
	if (o->ino && p->npaths == 0)
		printf("      (%s)\n", p->unlinked ? "open but unlinked: no name" :
				     p->gone ? "inode no longer in use" : "no name found");
}

static void print_owners(const struct map_fs_info *info, const struct locate_opts *o,
			 const struct map_owner_list *owners, const struct map_paths *paths)
{
	printf("%s: device bytes %lld..%lld (sector %lld)\n", shown(info->mountpoint), o->byte,
	       o->byte + o->length - 1, o->byte / 512);
	if (owners->n == 0)
		printf("  no owner: beyond the mapped space\n");
	for (size_t i = 0; i < owners->n; i++)
		print_owner(info->mountpoint, &owners->v[i], &paths[i]);
}

/* The owners of the range and their paths, now: an EXIT_* status. */
static int locate(struct ctl *ctl, struct map_fs *fs, struct locate_opts *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	uint64_t size = info->geo.datablocks * info->geo.blocksize;
	struct map_owner_list owners = { 0 };
	struct map_paths *paths = NULL;
	int rc;

	if ((uint64_t)o->byte >= size)
		return fail(ctl, 0, "byte %lld is past the end of the data device (%llu bytes)",
			    o->byte, (unsigned long long)size);
	/* Nothing owns bytes past the end. */
	if ((uint64_t)o->length > size - (uint64_t)o->byte)
		o->length = (long long)(size - (uint64_t)o->byte);
	rc = map_locate_paths(fs, (uint64_t)o->byte, (uint64_t)o->length, &owners, &paths);
	if (rc)
		return fail(ctl, rc, "locating byte %lld", o->byte);
	if (ctl->json)
		json_owners(info, o, &owners, paths);
	else
		print_owners(info, o, &owners, paths);
	map_paths_free(paths, owners.n);
	map_owner_list_free(&owners);
	return EXIT_CLEAN;
}

static int run(struct ctl *ctl, int argc, char **argv)
{
	struct locate_opts o = { .byte = -1, .length = -1 };
	struct map_fs *fs;
	int rc = parse_options(ctl, argc, argv, &o);

	if (rc)
		return rc;
	rc = need_root(ctl, "locating owners");
	if (rc)
		return rc;
	rc = open_fs(ctl, o.path, &fs);
	if (rc)
		return rc;
	rc = locate(ctl, fs, &o);
	map_fs_close(fs);
	return rc;
}

const struct command cmd_locate = {
	"locate", run, "owners and paths of a disk address, now, without a scan",
	"Usage: mapctl locate [--json] PATH DADDR [--length BYTES]\n"
	"       mapctl locate [--json] PATH --byte OFFSET [--length BYTES]\n"
	"\n"
	"Who owns a place on the data device of the filesystem holding PATH: the\n"
	"reverse-mapping btree answers at once (every reflink sharer), then every\n"
	"name of each inode is found.  DADDR is in 512-byte sectors from the start\n"
	"of the filesystem's device, as the kernel logs them (\"sector N\",\n"
	"\"daddr 0xN\"); --byte takes a byte offset.  Nothing is recorded.\n"
	"Needs root.\n"
	"\n"
	"Options:\n"
	"  --byte OFFSET    device byte offset instead of DADDR\n"
	"  --length BYTES   how much (default one sector, or 1 byte with --byte)\n"
	"  --json           JSON (mapper-json(7)): the range asked about and an\n"
	"                   \"owners\" array of finding objects (not recorded: no ID)\n"
	"  -h, --help       this text\n",
};
