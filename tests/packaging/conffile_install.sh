#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `cmake --install` twice into a DESTDIR, the configuration edited in between:
# the edit survives, the shipped file lands beside it as mapperd.conf.new;
# an unedited file is left as it is, without a .new.
#   conffile_install.sh BUILDDIR CONFDIR SHIPPED_CONF
#   (CONFDIR: the configured ${sysconfdir}/mapper, absolute)
set -euo pipefail
build=$1 confdir=$2 shipped=$3
dest=$(mktemp -d "${TMPDIR:-/tmp}/mapper-conffile.XXXXXX")
trap 'rm -rf "$dest" "$dest.log"' EXIT
conf=$dest$confdir/mapperd.conf
fail() { echo "FAIL: $*" >&2; exit 1; }
install_once() { DESTDIR=$dest cmake --install "$build" > "$dest.log" 2>&1 || { cat "$dest.log" >&2; fail "cmake --install"; }; }

install_once
cmp -s "$conf" "$shipped" || fail "first install: $conf is not the shipped file"
[[ ! -e $conf.new ]] || fail "first install left $conf.new"

install_once		# unchanged: nothing to keep, no .new
cmp -s "$conf" "$shipped" || fail "second install changed an unedited $conf"
[[ ! -e $conf.new ]] || fail "an unedited $conf got a .new beside it"

echo 'rate_limit = 100M  # edited by the administrator' >> "$conf"
cp "$conf" "$dest/edited"
install_once
cmp -s "$conf" "$dest/edited" || fail "reinstall overwrote the edited $conf"
cmp -s "$conf.new" "$shipped" || fail "the shipped file is not at $conf.new"
grep -q "Kept: $conf" "$dest.log" || fail "the install did not say it kept $conf"
echo "ok: the edited configuration survived cmake --install; shipped copy in mapperd.conf.new"
