#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/notify.d/10-mail with a recording sendmail and systemd-run:
#  - direct: the mail (To, Subject, the findings JSON) reaches sendmail -oi -t;
#  - systemd-run: the same mail goes through
#    systemd-run --pipe --wait --quiet --collect ... SENDMAIL -oi -t;
#  - auto: direct without no_new_privs; under setpriv --no-new-privs,
#    systemd-run when systemd runs this system (/run/systemd/system), else
#    direct;
#  - sendmail's exit status is the hook's, in both ways;
#  - no sendmail: exit 0 with a word on stderr; a bad MAPPER_MAIL_VIA: exit 1;
#  - a mount point or recipient with a newline (or another control
#    character) adds no header of its own (issue 36): every header is one
#    line, the mail's header block has exactly the hook's four headers.
# Usage: test_notify_mail.sh HOOK
set -u
hook=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/out"
cat > "$tmp/bin/sendmail" <<EOS
#!/bin/sh
echo "\$*" > "$tmp/out/args"
cat > "$tmp/out/mail"
exit \${FAKE_SENDMAIL_STATUS:-0}
EOS
# Records its arguments, then runs the command after the options.
cat > "$tmp/bin/systemd-run" <<EOS
#!/bin/sh
echo "\$*" > "$tmp/out/run-args"
while [ \$# -gt 0 ]; do
	case \$1 in --*) shift ;; *) break ;; esac
done
exec "\$@"
EOS
chmod 0755 "$tmp/bin/sendmail" "$tmp/bin/systemd-run"
echo '{"event":"damage","findings":[{"paths":["/mnt/x/a.dat"]}]}' > "$tmp/f.json"

# run VIA [wrapper...]: the hook's exit status in $status
run() {
	via=$1
	shift
	rm -f "$tmp/out/"*
	env -i PATH="$tmp/bin:/usr/sbin:/usr/bin:/sbin:/bin" HOME=/ LANG=C \
		MAPPER_EVENT=damage MAPPER_FS_UUID=5d0c3f7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f \
		MAPPER_MOUNTPOINT="${MNT:-/mnt/x}" MAPPER_MAIL_TO="${TO:-root}" MAPPER_NEW_FINDINGS=1 MAPPER_OPEN_FINDINGS=2 \
		MAPPER_FINDINGS_JSON="$tmp/f.json" MAPPER_TIME=0 MAPPER_VERSION=0.1.0 \
		MAPPER_SENDMAIL="${SENDMAIL:-$tmp/bin/sendmail}" MAPPER_MAIL_VIA="$via" \
		FAKE_SENDMAIL_STATUS="${STATUS:-0}" \
		"$@" sh "$hook" > "$tmp/stdout" 2> "$tmp/stderr"
	status=$?
}

check_mail() {
	what=$1
	[ "$status" = 0 ] || fail "$what: exit status $status: $(cat "$tmp/stderr")"
	grep -qx 'To: root' "$tmp/out/mail" 2>/dev/null || fail "$what: no To: root"
	grep -q '^Subject: \[mapper\] .*: damage on /mnt/x$' "$tmp/out/mail" 2>/dev/null ||
		fail "$what: no Subject"
	grep -qF '"paths":["/mnt/x/a.dat"]' "$tmp/out/mail" 2>/dev/null ||
		fail "$what: the findings JSON is not in the mail"
	[ "$(cat "$tmp/out/args" 2>/dev/null)" = "-oi -t" ] || fail "$what: sendmail's arguments"
}

check_via_run() {
	what=$1
	args=$(cat "$tmp/out/run-args" 2>/dev/null)
	case $args in
	"--pipe --wait --quiet --collect --description=mapper notification mail (damage) $tmp/bin/sendmail -oi -t")
		echo "ok: $what went through systemd-run" ;;
	*) fail "$what: systemd-run got '$args'" ;;
	esac
}

check_direct() {
	if [ ! -e "$tmp/out/run-args" ]; then
		echo "ok: $1 ran sendmail directly"
	else
		fail "$1: went through systemd-run"
	fi
}

run direct
check_mail direct
check_direct direct

run systemd-run
check_mail systemd-run
check_via_run systemd-run

run auto
check_mail "auto without no_new_privs"
check_direct "auto without no_new_privs"

run auto setpriv --no-new-privs
check_mail "auto with no_new_privs"
if [ -d /run/systemd/system ]; then
	check_via_run "auto with no_new_privs under systemd"
else
	check_direct "auto with no_new_privs, systemd not running"
fi

for via in direct systemd-run; do
	STATUS=75 run $via
	if [ "$status" = 75 ]; then
		echo "ok: sendmail's status 75 is the hook's ($via)"
	else
		fail "$via: sendmail exited 75, the hook $status"
	fi
done

SENDMAIL=/nonexistent/sendmail run auto
if [ "$status" = 0 ] && grep -q 'no sendmail' "$tmp/stderr"; then
	echo "ok: no sendmail"
else
	fail "no sendmail: status $status, stderr: $(cat "$tmp/stderr")"
fi

run bogus
if [ "$status" = 1 ] && grep -q 'MAPPER_MAIL_VIA=bogus' "$tmp/stderr"; then
	echo "ok: bad MAPPER_MAIL_VIA"
else
	fail "MAPPER_MAIL_VIA=bogus: status $status"
fi

# The header block: the lines before the first empty one.
headers() { sed '/^$/q' "$tmp/out/mail" | sed '$d'; }
nl='
'
MNT="/mnt/x${nl}Bcc: attacker@example.org${nl}X-Evil:	$(printf '\r')" run direct
[ "$status" = 0 ] || fail "newline mount point: exit status $status"
headers > "$tmp/headers"
if grep -qi '^bcc:\|^x-evil:' "$tmp/headers" || [ "$(wc -l < "$tmp/headers")" != 4 ] ||
	grep -q "$(printf '\r')" "$tmp/headers"; then
	fail "a mount point with a newline made headers of its own:$nl$(cat -A "$tmp/headers")"
else
	echo "ok: a mount point with a newline stays in its Subject: $(grep '^Subject' "$tmp/headers")"
fi
TO="root${nl}Bcc: attacker@example.org" run direct
headers > "$tmp/headers"
if grep -qi '^bcc:' "$tmp/headers" || [ "$(wc -l < "$tmp/headers")" != 4 ]; then
	fail "MAPPER_MAIL_TO with a newline made headers of its own:$nl$(cat -A "$tmp/headers")"
else
	echo "ok: a recipient with a newline stays one header: $(grep '^To' "$tmp/headers")"
fi
MNT="/mnt/it's a b" run direct
if grep -qxF "The damaged files: mapctl files '/mnt/it'\\''s a b'" "$tmp/out/mail"; then
	echo "ok: the hint quotes the mount point for a shell"
else
	fail "the hint does not quote: $(grep 'mapctl files' "$tmp/out/mail")"
fi

[ "$fails" = 0 ] && echo PASS && exit 0
echo "$fails failure(s)"
exit 1
