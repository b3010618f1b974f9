// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd's log, safe to call from any thread: "<N>text" lines on stderr,
 * or, when stderr is journald's stream, records with fields for the journal
 * (journal.c), falling back to the line when journald does not take one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "log.h"
#include "map_output.h"

static volatile int max_level = LOG_INFO;
static bool to_journal;		/* set once at start, before any thread */

static const char *const level_names[] = {
	[LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

void log_set_level(int level)
{
	max_level = level;
}

int log_get_level(void)
{
	return max_level;
}

int log_level_from_name(const char *name)
{
	for (int i = LOG_ERR; i <= LOG_DEBUG; i++)
		if (level_names[i] && strcmp(level_names[i], name) == 0)
			return i;
	return -1;
}

const char *log_level_name(int level)
{
	return level >= LOG_ERR && level <= LOG_DEBUG ? level_names[level] : "?";
}

void log_init(void)
{
	to_journal = md_journal_stderr_is_journal();
}

bool log_to_journal(void)
{
	return to_journal;
}

static void __attribute__((format(printf, 3, 0)))
log_vmsg(int prio, const struct log_ctx *ctx, const char *fmt, va_list ap)
{
	char line[2048];
	int n;

	if (prio > max_level)
		return;
	n = snprintf(line, sizeof(line), "<%d>", prio);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	/* Mount points, labels, device models and serials come from whoever
	 * made them; escaped, they cannot forge a line or drive a terminal. */
	char *esc = map_escape_text(line + n);
	if (esc) {
		snprintf(line + n, sizeof(line) - (size_t)n, "%s", esc);
		free(esc);
	}
	if (to_journal && md_journal_send(prio, line + n, ctx) == 0)
		return;
	/* One write per line, so lines of different threads never mix. */
	size_t len = strlen(line);
	if (len < sizeof(line) - 1)
		line[len++] = '\n';
	else
		line[len - 1] = '\n';
	fwrite(line, 1, len, stderr);
	fflush(stderr);
}

void log_msg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(prio, NULL, fmt, ap);
	va_end(ap);
}

void log_ctx_msg(int prio, const struct log_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(prio, ctx, fmt, ap);
	va_end(ap);
}
