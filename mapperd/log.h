/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mapperd's log: one line per message on stderr, prefixed "<N>" with the
 * syslog priority so journald files it at the right level; when stderr is
 * journald's stream, one record per message with the line as MESSAGE and
 * the fields of a struct log_ctx (journal.h).
 */
#ifndef MAPPERD_LOG_H
#define MAPPERD_LOG_H

#include <stdbool.h>
#include <syslog.h>

#include "journal.h"

/* Once at start, before threads: write to the journal when JOURNAL_STREAM
 * says stderr is its stream. */
void log_init(void);
bool log_to_journal(void);

/* Messages above @level (LOG_ERR .. LOG_DEBUG) are not written. */
void log_set_level(int level);
int log_get_level(void);
/* "err", "warning", "notice", "info", "debug" -> LOG_*, or -1. */
int log_level_from_name(const char *name);
const char *log_level_name(int level);

void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, with fields for the journal (ignored on stderr: the text must
 * say everything). */
void log_ctx_msg(int prio, const struct log_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)	log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
