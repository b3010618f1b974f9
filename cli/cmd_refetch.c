// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl refetch: copy damaged files back in place from a mirror, re-verify. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mapctl.h"
#include "restore_list.h"

/* Run rsync with the list on its stdin; its exit status, or -errno. */
static int run_rsync(const struct ctl *ctl, const char *src, const char *dst,
		     const struct restore_list *list, bool dry_run)
{
	int pipefd[2];
	pid_t pid;
	int status;

	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* --inplace keeps the inode (all hard links) and overwrites the
		 * bad sectors; --whole-file and --ignore-times make sure every
		 * byte is rewritten even when the file looks unchanged. */
		const char *argv[16];
		int n = 0;

		argv[n++] = "rsync";
		argv[n++] = "-a";
		argv[n++] = "--inplace";
		argv[n++] = "--whole-file";
		argv[n++] = "--ignore-times";
		argv[n++] = "--from0";
		argv[n++] = "--files-from=-";
		if (dry_run) {
			argv[n++] = "--dry-run";
			argv[n++] = "--itemize-changes";
		}
		argv[n++] = src;
		argv[n++] = dst;
		argv[n] = NULL;
		dup2(pipefd[0], STDIN_FILENO);
		execvp("rsync", (char *const *)argv);
		fprintf(stderr, "%s: cannot run rsync: %s\n", ctl->prog, strerror(errno));
		_exit(127);
	}
	close(pipefd[0]);
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < list->n; i++) {
		size_t len = strlen(list->v[i].path) + 1;	/* with its NUL */

		if (write(pipefd[1], list->v[i].path, len) != (ssize_t)len)
			break;
	}
	close(pipefd[1]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct reverify {
	uint64_t bad;
};

static void count_bad(uint64_t start, uint64_t length, int error, void *arg)
{
	(void)start;
	(void)error;
	((struct reverify *)arg)->bad += length;
}

/* Read every written byte of the restored file from the device: 0 clean,
 * 1 still bad, or -errno if it cannot be checked. */
static int reverify(struct map_fs *fs, const char *mountpoint, const char *rel)
{
	char *full = join_path(mountpoint, rel);
	struct map_range_list ranges = { 0 };
	struct reverify r = { 0 };
	struct map_verify_opts vo = { .bad = count_bad, .arg = &r };
	int fd, rc;

	if (!full)
		return -ENOMEM;
	fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
	free(full);
	if (fd < 0)
		return -errno;
	rc = map_file_ranges(fd, &ranges);
	close(fd);
	if (rc == 0)
		rc = map_verify_media(fs, &ranges, &vo, NULL);
	map_range_free(&ranges);
	if (rc)
		return rc;
	return r.bad ? 1 : 0;
}

static int run(struct ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const char *from = NULL;
	bool dry_run = false;
	struct map_store *st = NULL;
	struct map_store_fs sfs;
	struct map_fs *fs = NULL;
	struct restore_list list = { 0 };
	int64_t fs_id;
	int c, rc;

	while ((c = getopt_long(argc, argv, "n", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': from = optarg; break;
		case 'n': dry_run = true; break;
		default: return fail(ctl, 0, "see 'mapctl refetch --help'");
		}
	}
	if (optind >= argc)
		return fail(ctl, 0, "which filesystem? (mapctl refetch PATH --from SRC)");
	if (!from)
		return fail(ctl, 0, "where from? give --from SRC (any rsync source: DIR, HOST:DIR, "
			    "rsync://...)");
	rc = need_root(ctl, "refetching");
	if (rc)
		return rc;
	rc = open_store(ctl, !dry_run, &st);
	if (rc)
		return rc;
	rc = fs_id_for_path(ctl, st, argv[optind], &fs_id, &sfs);
	if (rc == 0)
		rc = open_fs(ctl, argv[optind], &fs);
	if (rc == 0 && map_fs_info(fs)->read_only)
		rc = fail(ctl, 0, "%s is mounted read-only: cannot write the files back",
			  shown(map_fs_info(fs)->mountpoint));
	if (rc == 0 && (rc = restore_list_build(st, fs_id, &list)) != 0)
		rc = fail(ctl, rc, "reading the database");
	if (rc)
		goto out;
	const char *mnt = map_fs_info(fs)->mountpoint;
	if (list.n == 0) {
		printf("%s: no damaged files to refetch\n", shown(mnt));
		goto out;
	}

	char *src = malloc(strlen(from) + 2), *dst = malloc(strlen(mnt) + 2);
	if (!src || !dst) {
		free(src);
		free(dst);
		rc = fail(ctl, -ENOMEM, "refetch");
		goto out;
	}
	/* Trailing slashes: copy the contents, relative names on both sides. */
	sprintf(src, "%s%s", from, from[strlen(from) - 1] == '/' ? "" : "/");
	sprintf(dst, "%s%s", mnt, mnt[strlen(mnt) - 1] == '/' ? "" : "/");
	printf("%s: %s %zu file%s from %s\n", shown(mnt),
	       dry_run ? "would refetch" : "refetching", list.n, list.n == 1 ? "" : "s",
	       shown(from));
	fflush(stdout);
	int rs = run_rsync(ctl, src, dst, &list, dry_run);
	free(src);
	free(dst);
	if (rs < 0 || rs == 127) {
		rc = fail(ctl, rs < 0 ? rs : 0, "rsync could not run");
		goto out;
	}
	if (rs != 0)
		warn_msg(ctl, "rsync exited %d; checking each file anyway", rs);
	if (dry_run)
		goto out;
	syncfs(map_fs_fd(fs));

	int restored = 0, still_bad = 0, unrecorded = 0;
	size_t nfindings = 0, ndone = 0;
	for (size_t i = 0; i < list.n; i++)
		nfindings += list.v[i].nfindings;
	int64_t *done = calloc(nfindings + 1, sizeof(*done));	/* findings already recorded */
	if (!done) {
		rc = fail(ctl, -ENOMEM, "refetch");
		goto out;
	}
	for (size_t i = 0; i < list.n; i++) {
		int v = reverify(fs, mnt, list.v[i].path);
		const char *outcome = v == 0 ? "restored" : v == 1 ? "still-unreadable" : "failed";
		char detail[256];

		if (v < 0)
			snprintf(detail, sizeof(detail), "from %s; cannot check: %s", from,
				 map_strerror(v));
		else
			snprintf(detail, sizeof(detail), "from %s", from);
		printf("  %-16s ", outcome);
		print_path_text(stdout, mnt, list.v[i].path);
		putchar('\n');
		if (v == 0)
			restored++;
		else
			still_bad++;
		for (size_t k = 0; k < list.v[i].nfindings; k++) {
			int64_t id = list.v[i].findings[k];
			bool again = false;

			/* A file with several names is one finding: record it once. */
			for (size_t d = 0; d < ndone; d++)
				again |= done[d] == id;
			if (again)
				continue;
			done[ndone++] = id;
			/* What was done and the state it leads to: both or neither. */
			int wrc = map_store_begin(st);
			if (wrc == 0) {
				wrc = record_action(st, fs_id, id, "refetch", outcome, detail);
				if (wrc == 0 && v == 0)
					wrc = map_store_finding_set_state(st, id, MAP_STATE_REFETCHED);
				wrc = store_finish(st, wrc);
			}
			if (wrc) {
				fail(ctl, wrc, "recording the outcome of finding #%lld", (long long)id);
				unrecorded++;
			}
		}
	}
	free(done);
	int counts[MAP_STATE_NR];
	rc = map_store_count(st, fs_id, counts);
	if (rc) {
		rc = fail(ctl, rc, "reading the database");
		goto out;
	}
	printf("%s: %d restored and verified, %d not; %d finding%s still open%s\n", shown(mnt),
	       restored, still_bad, counts[MAP_STATE_OPEN], counts[MAP_STATE_OPEN] == 1 ? "" : "s",
	       restored ? "; 'mapctl scan' confirms" : "");
	if (unrecorded)
		rc = fail(ctl, 0, "%d outcome%s could not be recorded; the findings keep their "
			  "state", unrecorded, unrecorded == 1 ? "" : "s");
	else
		rc = counts[MAP_STATE_OPEN] ? EXIT_DAMAGE : EXIT_CLEAN;
out:
	restore_list_free(&list);
	map_fs_close(fs);
	map_store_close(st);
	return rc;
}

const struct command cmd_refetch = {
	"refetch", run, "copy damaged files back in place from a mirror and re-verify them",
	"Usage: mapctl refetch PATH --from SRC [--dry-run]\n"
	"\n"
	"Restore the open damaged files of the filesystem holding PATH from SRC, any\n"
	"rsync source holding the same tree (a folder, HOST:/dir, rsync://host/mod),\n"
	"with rsync -a --inplace --whole-file --ignore-times: each file is rewritten\n"
	"in its own inode, so every hard link is restored and the bad sectors are\n"
	"overwritten.  Then every written block of each file is read back from the\n"
	"device; files that read cleanly are marked refetched, the rest stay open.\n"
	"A later 'mapctl scan' marks them resolved.  Needs root.\n"
	"\n"
	"Options:\n"
	"  --from SRC    where good copies are\n"
	"  -n, --dry-run show what rsync would copy; change nothing\n"
	"  -h, --help    this text\n"
	"\n"
	"Exit status: 0 nothing left open, 1 findings still open, 2 could not run.\n",
};
