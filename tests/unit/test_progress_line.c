// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl scan's progress line (issue 14: it ignored the terminal's width
 * and had no ETA): at every width it stays within width - 1 columns, on one
 * line; what is cut goes in order (mount point, bar, figures); the ETA is
 * the rate so far of this phase, and only once that rate means something.
 */
#include "check.h"
#include "progress_line.h"

static const struct progress_view media = {
	.where = "/srv/archive/volume-01", .phase = "media",
	.done = 600ULL << 20, .total = 1800ULL << 20, .bad = 2,
	.secs = 60, .done_before = 0,
};

static void test_fits_every_width(void)
{
	char line[PROGRESS_MAX_WIDTH + 1];

	for (int w = 1; w <= 300; w++) {
		int n = progress_line(line, w, &media);

		CHECK(n <= w - 1 || (w == 1 && n == 0), "width %d: %d columns: %s", w, n, line);
		CHECK((int)strlen(line) == n, "width %d: %zu bytes for %d columns", w, strlen(line), n);
		CHECK(!strchr(line, '\n') && !strchr(line, '\r'), "width %d: %s", w, line);
		if (w >= 8)
			CHECK(strstr(line, "33%") != NULL, "width %d keeps the percentage: %s", w, line);
	}
	/* a width past the buffer is drawn as the widest line */
	CHECK(progress_line(line, 100000, &media) < PROGRESS_MAX_WIDTH, "%s", line);
}

static void test_what_goes_first(void)
{
	char line[PROGRESS_MAX_WIDTH + 1];

	progress_line(line, 200, &media);
	CHECK_STR(line, "/srv/archive/volume-01 [##########....................]  33% media "
		  "600.0 MiB of 1.8 GiB, 10.0 MiB/s, 2 bad, ETA 2m00s");
	/* 95 columns: the mount point is cut from the left, the figures stay */
	progress_line(line, 95, &media);
	CHECK(strncmp(line, "...", 3) == 0 && strstr(line, "volume-01 [#"), "%s", line);
	CHECK(strstr(line, "600.0 MiB of 1.8 GiB, 10.0 MiB/s, 2 bad, ETA 2m00s"), "%s", line);
	/* 80: no mount point, a shorter bar */
	progress_line(line, 80, &media);
	CHECK(strncmp(line, "[#####.", 7) == 0 && strstr(line, "2 bad, ETA 2m00s"), "%s", line);
	/* 68: no bar, every figure */
	progress_line(line, 68, &media);
	CHECK(!strchr(line, '[') && strstr(line, "10.0 MiB/s, 2 bad, ETA 2m00s"), "%s", line);
	/* 40: fewer figures, the ETA kept */
	progress_line(line, 40, &media);
	CHECK(!strchr(line, '[') && strstr(line, "33%") && strstr(line, "ETA 2m00s"), "%s", line);
}

static void test_eta(void)
{
	struct progress_view v = media;
	char line[PROGRESS_MAX_WIDTH + 1];

	/* 600 MiB in 60 s, 1200 MiB to go: 120 s */
	CHECK(progress_eta(&v) > 119.9 && progress_eta(&v) < 120.1, "%f", progress_eta(&v));
	/* too early to say */
	v.secs = 3;
	CHECK(progress_eta(&v) < 0, "%f", progress_eta(&v));
	progress_line(line, 200, &v);
	CHECK(!strstr(line, "ETA"), "%s", line);
	/* a resumed scan: only what this run read counts for the rate;
	 * 300 MiB in 60 s, 1200 MiB to go: 240 s */
	v = media;
	v.done_before = 300ULL << 20;
	CHECK(progress_eta(&v) > 239.9 && progress_eta(&v) < 240.1, "%f", progress_eta(&v));
	progress_line(line, 200, &v);
	CHECK(strstr(line, "5.0 MiB/s") && strstr(line, "ETA 4m00s"), "%s", line);
	/* nothing read this run: no rate to go by */
	v.done_before = v.done;
	CHECK(progress_eta(&v) < 0, "%f", progress_eta(&v));
	/* metadata: objects, and hours */
	struct progress_view m = { .where = "/", .phase = "metadata", .done = 100, .total = 36100,
				   .secs = 10 };
	progress_line(line, 200, &m);
	CHECK(strstr(line, "metadata 100 of ~36100 objects, ETA 1h00m"), "%s", line);
}

int main(void)
{
	test_fits_every_width();
	test_what_goes_first();
	test_eta();
	return check_done();
}
