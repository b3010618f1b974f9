// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * When mapperd writes to the journal: only when JOURNAL_STREAM is the
 * device and inode of its standard error (how systemd says stderr is
 * journald's stream); not for another file, a stale or malformed value, or
 * none.  Then log lines go to stderr as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "journal.h"
#include "log.h"

int main(void)
{
	char path[] = "/tmp/test_mapperd_journal.XXXXXX", other[] = "/tmp/test_mapperd_journal.XXXXXX";
	char val[64], buf[256];
	struct stat st, so;
	int fd = mkstemp(path), ofd = mkstemp(other);
	int saved = dup(STDERR_FILENO);

	REQUIRE(fd >= 0 && ofd >= 0 && saved >= 0, "mkstemp");
	REQUIRE(fstat(fd, &st) == 0 && fstat(ofd, &so) == 0, "fstat");
	REQUIRE(dup2(fd, STDERR_FILENO) >= 0, "dup2");

	unsetenv("JOURNAL_STREAM");
	CHECK(!md_journal_stderr_is_journal(), "no JOURNAL_STREAM");
	snprintf(val, sizeof(val), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", val, 1);
	bool same = md_journal_stderr_is_journal();
	snprintf(val, sizeof(val), "%llu:%llu", (unsigned long long)so.st_dev,
		 (unsigned long long)so.st_ino);
	setenv("JOURNAL_STREAM", val, 1);
	bool another = md_journal_stderr_is_journal();
	snprintf(val, sizeof(val), "%llu:%llux", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", val, 1);
	bool trailing = md_journal_stderr_is_journal();
	snprintf(val, sizeof(val), "%llu", (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", val, 1);
	bool half = md_journal_stderr_is_journal();

	/* Not the journal: log_init keeps the lines on stderr. */
	log_init();
	log_err("%s", "still a line");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';

	CHECK(same, "stderr's own device:inode not recognised");
	CHECK(!another, "another file's device:inode taken for stderr");
	CHECK(!trailing, "a value with trailing bytes accepted");
	CHECK(!half, "a value without the device accepted");
	CHECK(!log_to_journal(), "journal chosen for a file that is not the stream");
	CHECK_STR(buf, "<3>still a line\n");
	close(fd);
	close(ofd);
	unlink(path);
	unlink(other);
	return check_done();
}
