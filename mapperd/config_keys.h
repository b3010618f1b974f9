/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mapperd.conf's keys as one table (config_keys.c): each key's parser, its
 * field, how the dump prints it, what --check-config looks at on this
 * system, and what a value must be.  The packaging test reads the keys
 * from the dump, so a key cannot be parsed without being printed.
 */
#ifndef MAPPERD_CONFIG_KEYS_H
#define MAPPERD_CONFIG_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

#define MS_PER_S 1000LL

struct config_key {
	const char *name;
	/* 0, or -EINVAL (-ENOMEM) with @why the words for the user */
	int (*parse)(struct md_config *c, const struct config_key *k, const char *val);
	/* "name = value\n", in the file's syntax, so that it reads back */
	void (*print)(const struct md_config *c, const struct config_key *k, FILE *out);
	/* --check-config: 0, or -EINVAL (-ENOMEM) with "FILE: key = 'value':
	 * why" in @err; NULL when the parse says everything */
	int (*check)(const struct md_config *c, const char *file, char *err, size_t errlen);
	size_t field;			/* offsetof(struct md_config, ...) */
	size_t size;			/* of a string field */
	int64_t lo, hi;			/* a duration's bounds in ms (hi 0: any) */
	const char *none;		/* what an empty string or a 0 means */
	const char *why;		/* what a value must be: "wants ..." */
};

/* The table, in the dump's order; *@n entries. */
const struct config_key *config_keys(size_t *n);

/* Free a list value (filesystems, exclude) and empty it. */
void config_free_list(char ***v, size_t *n);

/* The check column (config_check.c). */
int config_check_socket(const struct md_config *c, const char *file, char *err, size_t errlen);
int config_check_metrics_file(const struct md_config *c, const char *file, char *err,
			      size_t errlen);
int config_check_notify_directory(const struct md_config *c, const char *file, char *err,
				  size_t errlen);

#endif
