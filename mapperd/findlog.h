/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One log line per finding, naming the filesystem UUID and the path. */
#ifndef MAPPERD_FINDLOG_H
#define MAPPERD_FINDLOG_H

#include <stdbool.h>

#include "map.h"

/* "UUID MOUNT: damaged file MOUNT/PATH offset N length L (inode I, SOURCE)";
 * new findings at LOG_ERR, ones seen again at LOG_INFO; in the journal with
 * MESSAGE_ID and MAPPER_* fields (journal.h). */
void md_log_finding(const char *uuid, const char *mountpoint, const struct map_finding *f,
		    bool is_new, const char *source);

#endif
