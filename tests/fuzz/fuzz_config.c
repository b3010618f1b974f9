// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd.conf and its value parsers.  Whoever can write the file is
 * trusted, but a damaged or half-written file must give an error, never a
 * crash, and whatever loads must print back and load again the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "map.h"
#include "log.h"

/* The file's contents in memfd @slot (made once: a new one per input
 * would cost more than the parsing). */
static int memfd_with(int slot, const void *data, size_t size)
{
	static int fds[2] = { -1, -1 };

	if (fds[slot] < 0 && (fds[slot] = memfd_create("fuzz.conf", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fds[slot], 0) != 0 ||
	    (size && pwrite(fds[slot], data, size, 0) != (ssize_t)size))
		abort();
	return fds[slot];
}

/* No database key means the default, which config_print() writes out. */
static const char *effective_database(const struct md_config *c)
{
	return c->database[0] ? c->database : map_store_default_path();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct md_config c, again;
	char err[512], path[64];
	int fd = memfd_with(0, data, size);

	log_set_level(LOG_CRIT);	/* quiet: errors come back in err */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int rc = config_load(path, true, &c, err, sizeof(err));
	if (rc == 0) {
		/* What loaded prints as a file that loads again, unchanged. */
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		if (!out)
			abort();
		config_print(&c, out);
		fclose(out);
		int fd2 = memfd_with(1, text, len);
		char path2[64];

		snprintf(path2, sizeof(path2), "/proc/self/fd/%d", fd2);
		if (config_load(path2, true, &again, err, sizeof(err)) != 0) {
			fprintf(stderr, "printed configuration does not load: %s\n%s", err, text);
			abort();
		}
		if (again.metadata_interval != c.metadata_interval ||
		    again.media_interval != c.media_interval || again.rate_limit != c.rate_limit ||
		    again.io_size != c.io_size || again.nfilesystems != c.nfilesystems ||
		    again.nexclude != c.nexclude || again.metrics_interval != c.metrics_interval ||
		    strcmp(again.metrics_file, c.metrics_file) != 0 ||
		    strcmp(effective_database(&again), effective_database(&c)) != 0)
			abort();
		config_free(&again);
		free(text);
	} else if (!memchr(err, '\0', sizeof(err)) || !err[0]) {
		abort();	/* an error always says what */
	}
	config_free(&c);

	/* The value parsers on the first line. */
	char *val = strndup((const char *)data, size);
	if (val) {
		int64_t ms;
		uint64_t bytes;
		bool b;

		val[strcspn(val, "\n")] = '\0';
		map_parse_duration(val, &ms);
		map_parse_size(val, &bytes);
		config_parse_bool(val, &b);
		free(val);
	}
	return 0;
}
