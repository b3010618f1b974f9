/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repair-plan's probe of online repair, off the event loop. */
#ifndef MAPPERD_REPAIR_PROBE_H
#define MAPPERD_REPAIR_PROBE_H

#include "map_act.h"

/*
 * repair_caps_probe() on (a duplicate of) @fd in a thread of its own:
 * 0 with @caps set, or -EBUSY when the kernel has not answered within a
 * short wait or an earlier probe still waits (a frozen filesystem), or
 * -errno.
 */
int md_repair_probe(int fd, const struct map_geometry *geo, struct repair_caps *caps);

#endif
