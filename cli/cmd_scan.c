// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl scan: check metadata and read every written byte, record findings. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "mapctl.h"
#include "progress_line.h"

static volatile int interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct scan_ui {
	const struct ctl *ctl;
	const char *mountpoint;
	bool bar;		/* a progress line on a terminal */
	double last_draw;
	int drawn;		/* width of the last line */
	bool phase_seen;	/* phase is of a report already */
	enum map_scan_phase phase;	/* the phase the rate below is of */
	double phase_start;	/* run's elapsed seconds when it began */
	uint64_t phase_done;	/* done when it began */
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Columns of the terminal on stderr, asked at every draw (it may be
 * resized); $COLUMNS when the terminal does not say; 80 without either. */
static int term_width(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (env && *env) {
		char *end;
		long n = strtol(env, &end, 10);

		if (!*end && n > 0 && n <= PROGRESS_MAX_WIDTH)
			return (int)n;
	}
	return 80;
}

static void clear_bar(struct scan_ui *ui)
{
	if (ui->drawn) {
		fprintf(stderr, "\r%*s\r", ui->drawn, "");
		ui->drawn = 0;
	}
}

static void on_progress(const struct map_scan_progress *p, void *arg)
{
	struct scan_ui *ui = arg;
	char line[PROGRESS_MAX_WIDTH + 1];
	double t = mono();

	if (!ui->phase_seen || ui->phase != p->phase) {
		ui->phase_seen = true;
		ui->phase = p->phase;
		ui->phase_start = p->elapsed;
		ui->phase_done = p->done;
	}
	if (!ui->bar || (t - ui->last_draw < 0.2 && p->done < p->total))
		return;
	ui->last_draw = t;

	struct progress_view v = {
		.where = shown(ui->mountpoint), .phase = map_scan_phase_name(p->phase),
		.done = p->done, .total = p->total, .bad = p->bad_ranges, .secs = p->elapsed - ui->phase_start,
		.done_before = ui->phase_done,
	};
	int width = term_width();
	int n = progress_line(line, width, &v);
	/* Spaces over what is left of a longer line before, but not into
	 * the last column of a terminal that has narrowed since. */
	int old = ui->drawn < width - 1 ? ui->drawn : width - 1;

	fprintf(stderr, "\r%s%*s", line, old > n ? old - n : 0, "");
	if (old > n)
		fprintf(stderr, "\r%s", line);
	ui->drawn = n;
	fflush(stderr);
}

static void on_found(const struct map_finding *f, bool is_new, void *arg)
{
	struct scan_ui *ui = arg;

	if (!is_new || ui->ctl->json)
		return;
	clear_bar(ui);
	printf("new  %-14s", f->kind);
	if (f->npaths) {
		putchar(' ');
		print_path_text(stdout, ui->mountpoint, f->paths[0]);
		if (f->npaths > 1)
			printf(" (+%zu more name%s)", f->npaths - 1, f->npaths > 2 ? "s" : "");
	} else if (f->ino) {
		printf(" inode %llu", (unsigned long long)f->ino);
	} else if (f->agno >= 0) {
		printf(" AG %lld", (long long)f->agno);
	}
	if (f->has_offset)
		printf(" offset %llu length %llu", (unsigned long long)f->offset,
		       (unsigned long long)f->length);
	if (f->source == MAP_SOURCE_SCRUB)
		printf(" (scrub %s: %s)", f->scrub, f->detail);
	putchar('\n');
	fflush(stdout);
}

static const char *ioprio_names[] = { "", "rt", "be", "idle" };

/* The word for how a scan ended (@rc: map_scan's). */
static const char *scan_state(int rc)
{
	if (rc == 0)
		return "complete";
	return rc == -MAP_ECANCELED || rc == -MAP_EUNMOUNTED ? "interrupted" : "failed";
}

/* One filesystem's scan as an element of the "scans" array. */
static void scan_json(struct map_json *j, const struct map_fs_info *info,
		      const struct map_scan_opts *opts, const struct map_scan_result *res, int rc)
{
	map_json_obj(j, NULL);
	map_json_str(j, "fs_uuid", info->uuid);
	map_json_str(j, "mountpoint", info->mountpoint);
	map_json_uint_or_null(j, "scan_id", res->scan_id > 0, (uint64_t)res->scan_id);
	map_json_str(j, "state", scan_state(rc));
	map_json_str_or_null(j, "error", rc ? map_strerror(rc) : NULL);
	map_json_bool(j, "resumed", res->resumed);
	map_json_uint_or_null(j, "resumed_at_device_offset", res->resumed, res->resumed_at);
	map_json_bool(j, "metadata_checked", !res->metadata_skipped &&
		      (opts->metadata || !opts->media));
	map_json_uint(j, "objects_scrubbed", res->scrub.objects);
	map_json_uint(j, "bytes_verified", res->verify.bytes_verified);
	map_json_uint(j, "bytes_total", res->verify.bytes_total);
	map_json_double(j, "verify_seconds", res->verify.seconds);
	map_json_uint(j, "bad_ranges", res->verify.bad_ranges);
	map_json_int(j, "new_findings", res->new_findings);
	map_json_int(j, "seen_findings", res->seen_findings);
	map_json_int(j, "resolved_findings", res->resolved);
	map_json_int(j, "open_findings", res->open);
	map_json_end_obj(j);
}

/* One filesystem's scan for people. */
static void scan_text(const struct map_fs_info *info, const struct map_scan_result *res, int rc)
{
	const struct map_verify_stats *v = &res->verify;
	char a[32], b[32];

	if (res->metadata_skipped)
		printf("%s: metadata not checked: %s; verifying media only\n",
		       shown(info->mountpoint), map_strerror(-MAP_ENOSCRUB));
	printf("%s: scan %lld %s%s", shown(info->mountpoint), (long long)res->scan_id,
	       scan_state(rc), res->resumed ? " (resumed)" : "");
	if (res->scrub.objects)
		printf("; %llu metadata objects checked", (unsigned long long)res->scrub.objects);
	if (v->bytes_verified)
		printf("; %s verified in %.1f s (%s/s)",
		       human_bytes(v->bytes_verified, a, sizeof(a)), v->seconds,
		       human_bytes((uint64_t)(v->seconds > 0 ?
				   (double)v->bytes_verified / v->seconds : 0), b, sizeof(b)));
	printf("\n  %d new, %d seen again, %d resolved; %d open\n", res->new_findings,
	       res->seen_findings, res->resolved, res->open);
	if (res->open)
		printf("  see: mapctl files %s; mapctl status %s\n",
		       shell_word(info->mountpoint), shell_word(info->mountpoint));
}

/* Why the scan of @info stopped, said; the exit status it leads to, given
 * the @worst so far. */
static int scan_verdict(const struct ctl *ctl, const struct map_fs_info *info,
			const struct map_scan_result *res, int rc, int worst)
{
	if (rc == -MAP_ECANCELED) {
		fail(ctl, 0, "%s: interrupted; progress is saved: run the same command to resume",
		     shown(info->mountpoint));
		return EXIT_ERROR;
	}
	if (rc && map_store_error(rc)) {
		/* Not the filesystem's error: the database's (a full disk). */
		fail(ctl, 0, "%s: scan stopped: cannot write the database: %s",
		     shown(info->mountpoint), map_store_error(rc));
		return EXIT_ERROR;
	}
	if (rc) {
		fail(ctl, rc, "%s", shown(info->mountpoint));
		return EXIT_ERROR;
	}
	return res->open && worst == EXIT_CLEAN ? EXIT_DAMAGE : worst;
}

/* Scan the filesystem holding @path; *@worst: the exit status so far.
 * 1 to stop the loop (^C), else 0. */
static int scan_one(struct ctl *ctl, const char *path, struct map_scan_opts *opts,
		    struct map_store *st, struct map_json *j, int *worst)
{
	struct map_fs *fs;
	struct map_scan_result res;
	int holder = 0, rc;

	rc = open_fs(ctl, path, &fs);
	if (rc) {
		*worst = EXIT_ERROR;
		return 0;
	}
	const struct map_fs_info *info = map_fs_info(fs);
	struct scan_ui ui = { .ctl = ctl, .mountpoint = info->mountpoint,
			      .bar = !ctl->json && isatty(STDERR_FILENO) };
	opts->arg = &ui;
	if (!info->geo.rmapbt && !ctl->json)
		warn_msg(ctl, "%s has no reverse-mapping btree: owners come from an index of "
			 "every file's extents (slower; mkfs.xfs -m rmapbt=1 avoids this)",
			 shown(info->mountpoint));

	rc = map_scan(st, fs, opts, &res, &holder);
	clear_bar(&ui);
	if (rc == -EBUSY) {
		fail(ctl, 0, "%s: another scan of this filesystem is running (pid %d)",
		     shown(info->mountpoint), holder);
		*worst = EXIT_ERROR;
		map_fs_close(fs);
		return 0;
	}
	if (ctl->json)
		scan_json(j, info, opts, &res, rc);
	else
		scan_text(info, &res, rc);
	*worst = scan_verdict(ctl, info, &res, rc, *worst);
	map_fs_close(fs);
	return rc == -MAP_ECANCELED ? 1 : 0;	/* stop the loop on ^C */
}

/* mapctl scan's options into @opts: 0, or EXIT_ERROR after saying why. */
static int parse_options(struct ctl *ctl, int argc, char **argv, struct map_scan_opts *opts)
{
	static const struct option longopts[] = {
		{ "metadata", no_argument, NULL, 'm' },
		{ "media", no_argument, NULL, 'M' },
		{ "ioprio", required_argument, NULL, 'p' },
		{ "rate", required_argument, NULL, 'r' },
		{ "io-size", required_argument, NULL, 's' },
		{ "restart", no_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': opts->metadata = true; break;
		case 'M': opts->media = true; break;
		case 'R': opts->restart = true; break;
		case 'j': ctl->json = true; break;
		case 'p':
			if (strcmp(optarg, "idle") == 0)
				opts->ioprio_class = 3;
			else if (strcmp(optarg, "be") == 0)
				opts->ioprio_class = 2;
			else
				return fail(ctl, 0, "--ioprio wants idle or be, not '%s'", optarg);
			break;
		case 'r':
			if (map_parse_size(optarg, &v))
				return fail(ctl, 0, "--rate wants bytes per second such as 50M or 1.5G, "
					    "or 0 for no limit, not '%s'", shown(optarg));
			opts->rate = v;
			break;
		case 's':
			if (map_parse_size(optarg, &v) ||
			    (v && (v < MAP_VERIFY_IO_SIZE_MIN || v > MAP_VERIFY_IO_SIZE_MAX)))
				return fail(ctl, 0, "--io-size wants 4K..1G, or 0 for the default (4M), "
					    "not '%s'", shown(optarg));
			opts->io_size = (uint32_t)v;
			break;
		default:
			return option_error(ctl, argv, "", longopts);
		}
	}
	if (optind >= argc)
		return fail(ctl, 0, "which filesystem? (mapctl scan PATH...; see --help)");
	return 0;
}

/* ^C, kill and a lost terminal stop the scan at a checkpoint. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int run(struct ctl *ctl, int argc, char **argv)
{
	struct map_scan_opts opts = {
		.ioprio_class = 3,	/* idle, like every scrubber should be */
		.progress = on_progress,
		.found = on_found,
		.cancel = &interrupted,
		.user = user_name(),
	};
	struct map_store *st;
	struct map_json j;
	int rc, worst = EXIT_CLEAN;

	rc = parse_options(ctl, argc, argv, &opts);
	if (rc)
		return rc;
	rc = need_root(ctl, "scanning");
	if (rc)
		return rc;
	rc = open_store(ctl, true, &st);
	if (rc)
		return rc;
	catch_signals();
	if (ctl->json) {
		json_open(&j, stdout, "mapctl scan");
		map_json_arr(&j, "scans");
	}
	if (!ctl->json && opts.rate) {
		char r[32];

		fprintf(stderr, "%s: I/O priority %s, at most %s/s\n", ctl->prog,
			ioprio_names[opts.ioprio_class], human_bytes(opts.rate, r, sizeof(r)));
	}
	for (int i = optind; i < argc; i++)
		if (scan_one(ctl, argv[i], &opts, st, &j, &worst))
			break;
	if (ctl->json) {
		map_json_end_arr(&j);
		json_close(&j);
	}
	map_store_close(st);
	return worst;
}

const struct command cmd_scan = {
	"scan", run, "check metadata and read every written byte; record what is damaged",
	"Usage: mapctl scan [OPTIONS] PATH...\n"
	"\n"
	"Scan the XFS filesystem holding each PATH: ask the kernel to check every\n"
	"metadata object (online scrub, read-only) and, at the same time, read every\n"
	"written extent of the data device (O_DIRECT) to find unreadable blocks; map\n"
	"each bad block to its owners (every hard link and reflink sharer) and record\n"
	"the findings.  The progress line shows the metadata check until it is done,\n"
	"then the reads that remain.\n"
	"An interrupted scan (Ctrl-C, kill, crash, unmount) resumes from its last\n"
	"checkpoint when the same command runs again.  One scan per filesystem at a\n"
	"time.  On a kernel without online scrub (CONFIG_XFS_ONLINE_SCRUB, as in\n"
	"Debian's stock kernels) metadata cannot be checked: the scan says so once\n"
	"and verifies the media only.  Needs root.\n"
	"\n"
	"Options:\n"
	"  --metadata         only check metadata\n"
	"  --media            only read the written data\n"
	"  --ioprio idle|be   I/O priority of the reads (default idle)\n"
	"  --rate BYTES       limit reads to BYTES per second (e.g. 100M, 1.5G;\n"
	"                     0, the default: no limit)\n"
	"  --io-size BYTES    size of each read, 4K..1G (0, the default: 4M)\n"
	"  --restart          start over instead of resuming an interrupted scan\n"
	"  --json             JSON on stdout (mapper-json(7)): a \"scans\" array,\n"
	"                     one summary per filesystem\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 nothing open, 1 damage found or still open, 2 could not run\n"
	"or was interrupted.\n",
};
