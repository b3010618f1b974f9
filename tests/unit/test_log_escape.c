// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd's log lines carry mount points, labels and device names chosen by
 * others (issue 12, item 9): a newline must not start a forged line with
 * its own priority, and terminal controls must not reach a console.
 */
#include <unistd.h>

#include "check.h"
#include "log.h"

int main(void)
{
	char path[] = "/tmp/test_log_escape.XXXXXX", buf[4096];
	int fd = mkstemp(path);
	int saved = dup(STDERR_FILENO);

	REQUIRE(fd >= 0 && saved >= 0, "mkstemp");
	REQUIRE(dup2(fd, STDERR_FILENO) >= 0, "dup2");
	log_notice("%s %s: watching", "0b4ad0c4", "/mnt/x\n<0>forged emergency");
	log_notice("label %s", "a\x1b]0;title\x07" "b\xe2\x80\xae" "c\xc2\x9b" "d");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	REQUIRE(n > 0, "read back");
	buf[n] = '\0';
	close(fd);
	unlink(path);

	CHECK_STR(buf, "<5>0b4ad0c4 /mnt/x\\n<0>forged emergency: watching\n"
		       "<5>label a\\x1b]0;title\\x07b\\xe2\\x80\\xaec\\xc2\\x9bd\n");
	return check_done();
}
