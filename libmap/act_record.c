// SPDX-License-Identifier: GPL-2.0-or-later
/* The act stage's record: what was done about a finding, by whom. */
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

#include "map_act.h"

int record_action(struct map_store *st, int64_t fs_id, int64_t finding_id, const char *action,
		  const char *outcome, const char *detail)
{
	struct map_action a = { .fs_id = fs_id, .finding_id = finding_id };

	snprintf(a.action, sizeof(a.action), "%s", action);
	snprintf(a.user, sizeof(a.user), "%s", user_name());
	snprintf(a.outcome, sizeof(a.outcome), "%s", outcome);
	snprintf(a.detail, sizeof(a.detail), "%s", detail);
	return map_store_action_add(st, &a);
}

int store_finish(struct map_store *st, int rc)
{
	if (rc == 0)
		return map_store_commit(st);	/* rolls back if it fails */
	map_store_rollback(st);
	return rc;
}

const char *user_name(void)
{
	static char buf[64];
	uid_t uid = getuid();
	struct passwd *pw = getpwuid(uid);

	if (pw && uid == 0)
		snprintf(buf, sizeof(buf), "%s", pw->pw_name);
	else if (pw)
		snprintf(buf, sizeof(buf), "%s (uid %u)", pw->pw_name, (unsigned int)uid);
	else
		snprintf(buf, sizeof(buf), "uid %u", (unsigned int)uid);
	return buf;
}
