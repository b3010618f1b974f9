/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The spool: reports whose findings could not be written to the database
 * (its filesystem shut down, full, failing), kept as one file each in a
 * folder of the state directory (/run/mapper/spool by default, root's,
 * 0700) until the database takes writes again, then replayed in the order
 * they came, each in one transaction, and removed.  Bounded in entries and
 * bytes: past that a report is dropped, and counted.
 *
 * Each entry holds what the pipeline would have written: the filesystem
 * (for its row), the events-table row, and the findings with their paths.
 * The format is private to one build of mapperd (the state directory does
 * not survive a reboot): a file of another layout is discarded with a
 * warning, never half-read.
 */
#ifndef MAPPERD_SPOOL_H
#define MAPPERD_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "map.h"

/* Entries kept: far more reports than a failing database disk's outage
 * should see at the kernel's own rate limits, few enough to replay in
 * seconds. */
#define MD_SPOOL_MAX_ENTRIES 1024
/* Bytes kept in all (tmpfs memory) and per entry (a report of a block that
 * thousands of reflinked files share names every one of them). */
#define MD_SPOOL_MAX_BYTES (16u << 20)
#define MD_SPOOL_MAX_ENTRY (1u << 20)

struct md_spool;

struct md_spool_entry {
	bool have_info;			/* info is complete; else only its uuid (and mountpoint) */
	struct map_fs_info info;
	struct map_event row;		/* fs_id ignored: set when replayed */
	struct map_finding *v;		/* fs_id ignored */
	size_t n;
	/* A health monitor's healthy record of an inode (ino 0: none): its
	 * metadata findings of these scrub types are resolved. */
	uint64_t healthy_ino;
	uint32_t healthy_gen;
	char healthy_scrub[96];
};

/* Make (or check) folder @dir and take stock of the entries already there. */
int md_spool_open(const char *dir, struct md_spool **out);
void md_spool_close(struct md_spool *sp);
/* Keep @e.  0, -ENOSPC when the spool is full, -EFBIG for an entry past
 * MD_SPOOL_MAX_ENTRY, or another negative errno. */
int md_spool_put(struct md_spool *sp, const struct md_spool_entry *e);
size_t md_spool_pending(const struct md_spool *sp);
/*
 * Hand the entries to @fn oldest first; each one @fn returns 0 for is
 * removed.  Stops at the first nonzero return, which it returns (0 when all
 * went).  Entries that cannot be read are removed with a warning.
 * *done counts the entries @fn took.
 */
int md_spool_replay(struct md_spool *sp, int (*fn)(struct md_spool_entry *e, void *arg),
		    void *arg, size_t *done);
void md_spool_entry_free(struct md_spool_entry *e);

#endif
