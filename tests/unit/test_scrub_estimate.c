// SPDX-License-Identifier: GPL-2.0-or-later
/* The metadata scan's estimate of the objects it checks never wraps below
 * zero when the kernel's approximate free inode count runs ahead of the
 * allocated one (mapctl scan printed "of ~18446744073709551601 objects"). */
#include "check.h"
#include "map_testing.h"

int main(void)
{
	CHECK_INT(map_inodes_in_use(64, 3), 61);
	CHECK_INT(map_inodes_in_use(64, 64), 0);
	/* Free ahead of allocated: what FSCOUNTS returns mid-create. */
	CHECK(map_inodes_in_use(64, 79) == 0, "64 allocated, 79 free: %llu in use",
	      (unsigned long long)map_inodes_in_use(64, 79));
	CHECK(map_inodes_in_use(0, 1) == 0, "0 allocated, 1 free: %llu in use",
	      (unsigned long long)map_inodes_in_use(0, 1));
	CHECK(map_inodes_in_use(UINT64_MAX, 0) == UINT64_MAX, "no overflow at the top");
	return check_done();
}
