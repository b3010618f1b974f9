/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmap - find damaged data on XFS and name the files it belongs to.
 *
 * This folder holds libmap's public headers, one concern each; this one
 * includes them all but the act stage (map_act.h) and the health monitor
 * (map_healthmon.h).  A program may include only the ones it uses.
 *
 * Every function returns 0 (or a count) on success and a negative errno, or a
 * negative MAP_E* code (map_error.h), on failure; map_strerror() is the one
 * place that turns those into words.
 *
 * State beyond the objects a caller holds (struct map_fs, map_store, ...):
 * - verify's AIO contexts, which split a failed read: up to 8, shared by the
 *   whole process behind a lock and kept until it exits (io_destroy waits for
 *   an RCU grace period, which costs more than the reads);
 * - the words of the store's last failure, one per thread (map_store_error);
 * - user_name()'s buffer (map_act.h), one per process.
 * Nothing else outlives a call.
 */
#ifndef MAP_H
#define MAP_H

#include "map_dirindex.h"	/* directory index, fanotify records */
#include "map_error.h"		/* MAP_E*, map_strerror */
#include "map_fs.h"		/* discover, geometry, health */
#include "map_metrics.h"	/* Prometheus output */
#include "map_output.h"		/* escaping, JSON writer */
#include "map_parse.h"		/* sizes and durations people write */
#include "map_pipeline.h"	/* verify, map, resolve, scan */
#include "map_ranges.h"		/* byte ranges (pure) */
#include "map_scrub.h"		/* scrub types, scrub every object */
#include "map_store.h"		/* the SQLite store */

#endif /* MAP_H */
