/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every object of every scrub type on a populated filesystem, and calls on them. */
#ifndef MAPPER_SCRUB_OBJECTS_H
#define MAPPER_SCRUB_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "populate.h"

struct kt_object {
	uint32_t type;			/* XFS_SCRUB_TYPE_* */
	uint32_t agno;			/* AG-scoped types */
	int sample;			/* inode-scoped types: enum kt_sample_id, else -1 */
	uint64_t ino;
	uint32_t gen;
};

/*
 * PROBE, then each AG's headers and btrees, then every inode type on every
 * sample, then the filesystem-wide types with HEALTHY last (the order that
 * lets cross-references work).  Returns the number of objects.
 */
size_t kt_scrub_objects(uint32_t agcount, const struct kt_population *pop,
			struct kt_object *out, size_t max);

/* "bnobt ag 1", "inode: empty file", "fscounters" */
const char *kt_object_name(const struct kt_object *o, const struct kt_population *pop);

/* XFS_IOC_SCRUB_METADATA on @o through @fd (the mount root); 0 or -errno. */
int kt_scrub(int fd, const struct kt_object *o, uint32_t iflags, uint32_t *oflags);

/*
 * Why @o does not exist on the test filesystem (the kernel answers ENOENT),
 * or NULL if it does.
 */
const char *kt_absent_reason(const struct kt_object *o, const struct kt_population *pop);

/* Repair calls and successes of one scrub type ("bnobt") on the mount
 * @fs_name, from debugfs xfs/<fs>/scrub/stats. */
void kt_repair_stats(const char *fs_name, const char *type, unsigned int *attempts,
		     unsigned int *successes);

/* "0", "-ENOENT", ... for printing results. */
const char *kt_errno_name(int rc);

#endif
