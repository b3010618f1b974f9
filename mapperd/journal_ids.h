/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The MESSAGE_ID of each kind of record mapperd sends to the journal, so an
 * administrator can select them ("journalctl MESSAGE_ID=...") and alerting
 * can match them without parsing text.  Made once with systemd-id128 new;
 * never change one (people's filters name them); mapperd(8) lists them.
 */
#ifndef MAPPERD_JOURNAL_IDS_H
#define MAPPERD_JOURNAL_IDS_H

/* A finding not known before: damaged data or metadata (LOG_ERR). */
#define MD_MSGID_DAMAGE		"a497cc9eb63543f69374b97abe65ce6d"
/* A known finding seen again (LOG_INFO). */
#define MD_MSGID_DAMAGE_AGAIN	"ecc73342e574495e8fd36ab5624af5ac"
/* The kernel shut a filesystem down (LOG_ERR). */
#define MD_MSGID_SHUTDOWN	"b6178256b18f4680b87ffdbf5337a523"
/* Error reports were lost: a scan is needed to find all damage (LOG_WARNING). */
#define MD_MSGID_REPORTS_LOST	"0e66e63a2b1346a7ae939a39ee8b14eb"
/* A scan completed (LOG_NOTICE). */
#define MD_MSGID_SCAN_DONE	"a4ed655270244fe49a4fb113bfa709fd"
/* A scan failed (LOG_ERR). */
#define MD_MSGID_SCAN_FAILED	"03a5cececaa34d1683b2cd73eccaac34"
/* mapperd started and watches its filesystems; mapperd stopped (LOG_NOTICE). */
#define MD_MSGID_STARTED	"dbe90944c5384e999527410aa3235107"
#define MD_MSGID_STOPPED	"d127ce968be24cf98d11ff15650da868"

#endif
