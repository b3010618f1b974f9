// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl locate: owners and paths of a disk address, now, without a scan. */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "mapctl.h"

static int run(struct ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "byte", required_argument, NULL, 'b' },
		{ "length", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	long long byte = -1, length = -1;
	uint64_t v;
	struct map_fs *fs;
	struct map_owner_list owners = { 0 };
	struct map_paths *paths = NULL;
	char *end;
	int c, rc;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (map_parse_size(optarg, &v) || v > LLONG_MAX)
				return fail(ctl, 0, "--byte wants a device byte offset, not '%s'",
					    shown(optarg));
			byte = (long long)v;
			break;
		case 'l':
			if (map_parse_size(optarg, &v) || v == 0 || v > LLONG_MAX)
				return fail(ctl, 0, "--length wants bytes (more than 0), not '%s'",
					    shown(optarg));
			length = (long long)v;
			break;
		case 'j': ctl->json = true; break;
		default: return option_error(ctl, argv, "", longopts);
		}
	}
	if (optind >= argc)
		return fail(ctl, 0, "which filesystem? (mapctl locate PATH DADDR; see --help)");
	const char *path = argv[optind++];
	if (byte < 0) {
		if (optind >= argc)
			return fail(ctl, 0, "give a disk address (512-byte sectors) or --byte OFFSET");
		errno = 0;
		unsigned long long daddr = strtoull(argv[optind], &end, 0);
		if (errno || *end || end == argv[optind])
			return fail(ctl, 0, "'%s' is not a disk address (512-byte sectors)",
				    argv[optind]);
		uint64_t b;
		if (__builtin_mul_overflow(daddr, 512, &b) || b > (uint64_t)LLONG_MAX)
			return fail(ctl, 0, "disk address %s is past the end of any device",
				    argv[optind]);
		byte = (long long)b;
		if (length < 0)
			length = 512;
	}
	if (length < 0)
		length = 1;
	rc = need_root(ctl, "locating owners");
	if (rc)
		return rc;
	rc = open_fs(ctl, path, &fs);
	if (rc)
		return rc;
	const struct map_fs_info *info = map_fs_info(fs);
	uint64_t size = info->geo.datablocks * info->geo.blocksize;
	if ((uint64_t)byte >= size) {
		map_fs_close(fs);
		return fail(ctl, 0, "byte %lld is past the end of the data device (%llu bytes)", byte,
			    (unsigned long long)size);
	}
	if ((uint64_t)length > size - (uint64_t)byte)
		length = (long long)(size - (uint64_t)byte);	/* nothing owns bytes past the end */
	rc = map_locate_paths(fs, (uint64_t)byte, (uint64_t)length, &owners, &paths);
	if (rc) {
		map_fs_close(fs);
		return fail(ctl, rc, "locating byte %lld", byte);
	}

	int files = 0;
	if (ctl->json) {
		struct map_json j;

		json_open(&j, stdout, "mapctl locate");
		map_json_str(&j, "fs_uuid", info->uuid);
		map_json_str(&j, "mountpoint", info->mountpoint);
		map_json_uint(&j, "device_offset", (uint64_t)byte);
		map_json_uint(&j, "device_length", (uint64_t)length);
		map_json_arr(&j, "owners");
		for (size_t i = 0; i < owners.n; i++) {
			struct map_finding f;

			map_finding_from_owner(&f, "media", &owners.v[i], &paths[i]);
			f.id = 0;	/* not recorded: no ID, no state */
			f.source[0] = '\0';
			json_finding(&j, &f, info->uuid, info->mountpoint);
			map_finding_clear(&f);
		}
		map_json_end_arr(&j);
		json_close(&j);
	} else {
		printf("%s: device bytes %lld..%lld (sector %lld)\n", shown(info->mountpoint), byte,
		       byte + length - 1, byte / 512);
		if (owners.n == 0)
			printf("  no owner: beyond the mapped space\n");
	}
	for (size_t i = 0; i < owners.n; i++) {
		const struct map_owner *o = &owners.v[i];

		if (o->kind == MAP_OWNER_FILE)
			files++;
		if (ctl->json)
			continue;
		printf("  %-14s", map_owner_kind_name(o->kind));
		if (o->ino)
			printf(" inode %llu gen %u", (unsigned long long)o->ino,
			       o->gen ? o->gen : paths[i].gen);
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
		if (o->flags & MAP_OWNER_F_NO_INODE && paths[i].unreadable)
			printf(" (inode unreadable)");
		else if (paths[i].pptr_unreadable)
			printf(" (parent pointers unreadable: names found in the directories)");
		putchar('\n');
		for (size_t k = 0; k < paths[i].npaths; k++) {
			printf("      ");
			print_path_text(stdout, info->mountpoint, paths[i].paths[k]);
			putchar('\n');
		}
		if (o->ino && paths[i].npaths == 0)
			printf("      (%s)\n", paths[i].unlinked ? "open but unlinked: no name" :
					     paths[i].gone ? "inode no longer in use" : "no name found");
	}
	map_paths_free(paths, owners.n);
	map_owner_list_free(&owners);
	map_fs_close(fs);
	return EXIT_CLEAN;
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
