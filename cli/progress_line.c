// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl scan's progress line.  What it says comes in pieces of falling
 * worth: the percentage, the figures of this phase, the ETA, the bar, the
 * mount point.  A narrow terminal loses the least worth first, so the line
 * never wraps (a wrapped line cannot be redrawn with "\r").
 */
#include <stdio.h>
#include <string.h>

#include "mapctl.h"
#include "progress_line.h"

/* The rate of the first seconds says little: the first reads find cold
 * caches and the seeks of a new region; 10 s of them is past that. */
#define PROGRESS_ETA_MIN_SECS 10.0
/* The bar's width when there is room, and the least worth drawing. */
#define BAR_WIDTH 30
#define BAR_MIN 10
/* A mount point cut shorter than this names nothing. */
#define WHERE_MIN 8

double progress_eta(const struct progress_view *v)
{
	if (v->secs < PROGRESS_ETA_MIN_SECS || v->done <= v->done_before || v->total < v->done)
		return -1;
	double rate = (double)(v->done - v->done_before) / v->secs;
	return (double)(v->total - v->done) / rate;
}

/* "42s", "12m05s", "3h07m", "2d04h". */
static const char *eta_text(double secs, char *buf, size_t len)
{
	unsigned long long s = (unsigned long long)(secs + 0.5);

	if (s < 60)
		snprintf(buf, len, "%llus", s);
	else if (s < 3600)
		snprintf(buf, len, "%llum%02llus", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%lluh%02llum", s / 3600, s / 60 % 60);
	else
		snprintf(buf, len, "%llud%02lluh", s / 86400, s / 3600 % 24);
	return buf;
}

/* Columns @s takes (UTF-8: one per character; the caller escaped controls). */
static int columns(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The last @cols columns of @s after "...", in @buf. */
static void cut_left(const char *s, int cols, char *buf, size_t len)
{
	int skip = columns(s) - (cols - 3);
	const char *p = s;

	while (*p && skip > 0) {
		p++;
		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
		skip--;
	}
	snprintf(buf, len, "...%s", p);
}

/* The figures, most detailed first: level 0 has everything. */
static int tail_text(const struct progress_view *v, int level, char *buf, size_t len)
{
	bool media = strcmp(v->phase, "media") == 0;
	double frac = v->total ? (double)v->done / (double)v->total : 0;
	double eta = progress_eta(v);
	char a[32], b[32], r[32], e[48] = "";

	if (frac > 1)
		frac = 1;
	if (eta >= 0)
		snprintf(e, sizeof(e), ", ETA %s", eta_text(eta, a, sizeof(a)));
	switch (level) {
	case 0:
		if (media) {
			double rate = v->secs > 0 ? (double)(v->done - v->done_before) / v->secs : 0;

			if (v->done < v->done_before)
				rate = 0;
			snprintf(buf, len, "%3.0f%% media %s of %s, %s/s, %llu bad%s", frac * 100,
				 human_bytes(v->done, a, sizeof(a)), human_bytes(v->total, b, sizeof(b)),
				 human_bytes((uint64_t)rate, r, sizeof(r)), (unsigned long long)v->bad,
				 e);
		} else {
			snprintf(buf, len, "%3.0f%% metadata %llu of ~%llu objects%s", frac * 100,
				 (unsigned long long)v->done, (unsigned long long)v->total, e);
		}
		break;
	case 1:
		if (media)
			snprintf(buf, len, "%3.0f%% media, %llu bad%s", frac * 100,
				 (unsigned long long)v->bad, e);
		else
			snprintf(buf, len, "%3.0f%% metadata%s", frac * 100, e);
		break;
	case 2:
		snprintf(buf, len, "%3.0f%%%s", frac * 100, e[0] ? e + 1 : "");
		break;
	default:
		snprintf(buf, len, "%.0f%%", frac * 100);
		break;
	}
	return columns(buf);
}

int progress_line(char *buf, int width, const struct progress_view *v)
{
	char tail[256], where[PROGRESS_MAX_WIDTH + 1], bar[BAR_WIDTH + 1];
	int room = (width > PROGRESS_MAX_WIDTH ? PROGRESS_MAX_WIDTH : width) - 1;
	int level = 0, n;

	buf[0] = '\0';
	if (room <= 0)
		return 0;
	while ((n = tail_text(v, level, tail, sizeof(tail))) > room && level < 3)
		level++;
	if (n > room) {				/* not even "42%": nothing */
		return 0;
	}
	room -= n;

	/* Then the bar, "[###...] ", and the mount point, "/srv ". */
	int want_where = v->where && v->where[0] ? columns(v->where) + 1 : 0;
	int barw = 0;

	if (room >= BAR_WIDTH + 3 + want_where) {
		barw = BAR_WIDTH;
	} else if (room >= BAR_MIN + 3 + (want_where ? WHERE_MIN + 1 : 0)) {
		barw = room - 3 - want_where;
		if (barw < BAR_MIN)
			barw = BAR_MIN;
		if (barw > BAR_WIDTH)
			barw = BAR_WIDTH;
	} else if (room >= BAR_MIN + 3) {
		barw = room - 3 < BAR_WIDTH ? room - 3 : BAR_WIDTH;
		want_where = 0;			/* the bar is worth more */
	}
	room -= barw ? barw + 3 : 0;
	where[0] = '\0';
	if (want_where && room >= WHERE_MIN + 1) {
		if (want_where <= room)
			snprintf(where, sizeof(where), "%s ", v->where);
		else {
			cut_left(v->where, room - 1, where, sizeof(where) - 1);
			strcat(where, " ");
		}
	}
	if (barw) {
		double frac = v->total ? (double)v->done / (double)v->total : 0;
		int fill = (int)((frac > 1 ? 1 : frac) * barw);

		memset(bar, '#', (size_t)fill);
		memset(bar + fill, '.', (size_t)(barw - fill));
		bar[barw] = '\0';
	}
	snprintf(buf, PROGRESS_MAX_WIDTH + 1, "%s%s%s%s%s", where, barw ? "[" : "", barw ? bar : "",
		 barw ? "] " : "", tail);
	return columns(buf);
}
