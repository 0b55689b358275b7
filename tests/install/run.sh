#!/bin/sh
# run.sh - the packaging test (make install-check): `make install` into a
# scratch DESTDIR with PREFIX=/usr, then check that every file is where it
# belongs with the right mode, that the installed nanosm and tools run,
# that the man pages render without groff warnings (when groff is here),
# that systemd-analyze accepts the units (when it runs here), and that
# `make uninstall` leaves no file behind.  A second round installs over an
# admin's own nanosm.yaml, which must survive install and uninstall.
#
#   tests/install/run.sh         MAKE=... picks the make to run
#
# Needs the programs and man pages built (make all man); creates and
# removes only its own temporary directories.
set -u

cd "$(dirname "$0")/../.." || exit 2
MAKE=${MAKE:-make}
PASSED=0
FAILED=0
TMP=$(mktemp -d /tmp/nanosm-install.XXXXXX) || exit 2
trap 'rm -rf "$TMP"' EXIT

pass() { PASSED=$((PASSED + 1)); }
fail() {
	FAILED=$((FAILED + 1))
	echo "FAIL: $*"
}
check() { # check WHAT COMMAND...: pass when COMMAND succeeds
	what=$1
	shift
	if "$@"; then pass; else fail "$what"; fi
}

# What install must put there, relative to DESTDIR (PREFIX=/usr).
UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
[ -n "$UNITDIR" ] || UNITDIR=/lib/systemd/system
SBIN="usr/sbin/nanosm"
BINS="nanosmctl nanosm-verify nanosm-route nanosm-ping nanosm-sa nanosm-gen"
EXES="$SBIN $(for b in $BINS; do printf 'usr/bin/%s ' "$b"; done)"
MANS="usr/share/man/man8/nanosm.8 usr/share/man/man5/nanosm.yaml.5 \
$(for b in $BINS; do printf 'usr/share/man/man1/%s.1 ' "$b"; done)"
UNITS="${UNITDIR#/}/nanosm.service ${UNITDIR#/}/nanosm@.service"
CONF="etc/nanosm/nanosm.yaml"

make_in() { # make_in DESTDIR TARGET: quiet unless it fails
	if ! $MAKE --no-print-directory "$2" DESTDIR="$1" PREFIX=/usr >"$TMP/make.log" 2>&1; then
		sed 's/^/    /' "$TMP/make.log"
		return 1
	fi
}

# Regular files and links under $1, relative, sorted.
files_under() {
	(cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
}

check_layout() { # check_layout DESTDIR EXTRA_FILES OUR_POLICY_FILE
	d=$1
	printf '%s\n' $EXES $MANS $UNITS $CONF $2 | sort >"$TMP/expected"
	files_under "$d" >"$TMP/got"
	if cmp -s "$TMP/expected" "$TMP/got"; then
		pass
	else
		fail "installed files differ from the expected list (< expected, > installed):"
		diff "$TMP/expected" "$TMP/got" | grep '^[<>]' | sed 's/^/    /'
	fi
	for f in $EXES; do
		check "$f is not an executable file" test -f "$d/$f" -a -x "$d/$f"
	done
	for f in $MANS $UNITS $CONF $2; do
		if [ -f "$d/$f" ] && [ ! -x "$d/$f" ]; then pass; else fail "$f missing or executable"; fi
	done
	mode=$(stat -c %a "$d/$3" 2>/dev/null)
	check "$3 has mode $mode, not 600 (it may hold keys)" test "$mode" = 600
}

# Every installed program has a man page and answers --help; nanosm checks
# the installed policy, which must be the defaults in canonical form.
check_programs() {
	d=$1
	for f in $EXES; do
		p=$(basename "$f")
		if [ "$p" = nanosm ]; then sec=8; else sec=1; fi
		check "$p has no man page" test -f "$d/usr/share/man/man$sec/$p.$sec"
		if "$d/$f" --help >"$TMP/help" 2>&1 && grep -q "usage: $p" "$TMP/help"; then
			pass
		else
			fail "installed $p --help"
		fi
	done
	if "$d/$SBIN" --check -f "$d/$CONF" >"$TMP/conf.ok" 2>"$TMP/conf.err"; then
		pass
	else
		fail "installed nanosm --check -f $CONF: $(cat "$TMP/conf.err")"
	fi
	: >"$TMP/empty.yaml"
	"$d/$SBIN" --check -f "$TMP/empty.yaml" >"$TMP/defaults.ok" 2>&1
	if cmp -s "$TMP/conf.ok" "$TMP/defaults.ok"; then
		pass
	else
		fail "$CONF is not every setting at its default (< its canonical form, > the defaults):"
		diff "$TMP/conf.ok" "$TMP/defaults.ok" | grep '^[<>]' | sed 's/^/    /'
	fi
}

check_man() {
	d=$1
	if ! command -v groff >/dev/null; then
		echo "man pages: groff not installed, rendering not checked (SKIPPED)"
		return
	fi
	for f in $MANS; do
		name=$(basename "$f")
		out=$(groff -man -Tutf8 -ww -z "$d/$f" 2>&1)
		check "$name: groff warnings: $out" test -z "$out"
		# the page names itself after its file: NAME line "nanosm-gen - ..."
		if groff -man -Tutf8 -P-c "$d/$f" 2>/dev/null | col -b 2>/dev/null |
			grep -q "^ *${name%.*} - "; then
			pass
		else
			fail "$name: no NAME line for ${name%.*}"
		fi
	done
}

# systemd-analyze verify on the installed units.  They name the daemon by
# its final path (/usr/sbin/nanosm), which is in DESTDIR here, so they are
# checked as copies pointing into DESTDIR, with MANPATH aimed at DESTDIR for
# the Documentation= pages.  Any output counts as a failure: systemd only
# warns (exit 0) about a setting it cannot parse.
check_units() {
	d=$1
	if ! command -v systemd-analyze >/dev/null; then
		echo "units: systemd-analyze not installed, not verified (SKIPPED)"
		return
	fi
	u="$TMP/units"
	mkdir -p "$u"
	printf '[Service]\nExecStart=/bin/true\n' >"$u/probe.service"
	if ! (cd "$u" && systemd-analyze verify --man=no ./probe.service) >"$TMP/sa.out" 2>&1; then
		echo "units: systemd-analyze verify does not run here, not verified (SKIPPED):"
		sed 's/^/    /' "$TMP/sa.out"
		return
	fi
	rm -f "$u/probe.service"
	for f in $UNITS; do
		check "$f names another nanosm than /usr/sbin/nanosm" \
			grep -q '^ExecStart=/usr/sbin/nanosm ' "$d/$f"
		check "$f keeps an @...@ placeholder" sh -c "! grep -q '@[A-Z]*@' '$d/$f'"
		sed "s|/usr/sbin/nanosm|$d/usr/sbin/nanosm|" "$d/$f" >"$u/$(basename "$f")"
	done
	if [ ! -e /lib/systemd/system/rdma-hw.target ] && [ ! -e /usr/lib/systemd/system/rdma-hw.target ]; then
		echo "units: rdma-hw.target not installed (rdma-core); verified against a stand-in"
		printf '[Unit]\nDescription=stand-in for rdma-core'"'"'s rdma-hw.target\n' >"$u/rdma-hw.target"
	fi
	(cd "$u" && MANPATH="$d/usr/share/man" systemd-analyze verify \
		./nanosm.service ./nanosm@0x0002c90300a00011.service) >"$TMP/sa.out" 2>&1
	rc=$?
	if [ $rc = 0 ] && [ ! -s "$TMP/sa.out" ]; then
		pass
	else
		fail "systemd-analyze verify nanosm.service nanosm@0x0002c90300a00011.service (exit $rc):"
		sed 's/^/    /' "$TMP/sa.out"
	fi
}

check_empty_after_uninstall() {
	files_under "$1" >"$TMP/left"
	if [ -s "$TMP/left" ]; then
		fail "make uninstall left files behind:"
		sed 's/^/    /' "$TMP/left"
	else
		pass
	fi
}

# Round 1: a fresh install.
D1="$TMP/fresh"
mkdir "$D1"
if make_in "$D1" install; then
	pass
	check_layout "$D1" "" "$CONF"
	check_programs "$D1"
	check_man "$D1"
	check_units "$D1"
	if make_in "$D1" uninstall; then pass; else fail "make uninstall"; fi
	check_empty_after_uninstall "$D1"
	check "uninstall left $(dirname "$CONF")" test ! -e "$D1/$(dirname "$CONF")"
else
	fail "make install DESTDIR=$D1 PREFIX=/usr"
fi

# Round 2: the admin has a policy of their own; it is never overwritten.
D2="$TMP/upgrade"
mkdir -p "$D2/$(dirname "$CONF")"
printf 'sm:\n  priority: 5\n' >"$D2/$CONF"
cp "$D2/$CONF" "$TMP/own.yaml"
if make_in "$D2" install; then
	pass
	check "install overwrote an existing $CONF" cmp -s "$TMP/own.yaml" "$D2/$CONF"
	check_layout "$D2" "$CONF.example" "$CONF.example"
	check "$CONF.example is not the example" cmp -s config/nanosm.yaml "$D2/$CONF.example"
	if make_in "$D2" uninstall; then pass; else fail "make uninstall"; fi
	check "uninstall removed or changed the admin's own $CONF" cmp -s "$TMP/own.yaml" "$D2/$CONF"
	rm -f "$D2/$CONF"
	check_empty_after_uninstall "$D2"
else
	fail "make install over an existing $CONF"
fi

echo "install: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
