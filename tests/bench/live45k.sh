# shellcheck shell=bash
# tests/bench/live45k.sh - sourced by run.sh: the full LID space, live
# (issue 18 item 2; opt-in, BENCH_LIVE="ft3-45k").  For each fabric and SM
# (nanosm, then OpenSM, each on a fresh ibsim with the limits the fabric
# needs): the SM as a daemon without periodic sweeps; time to SUBNET UP,
# peak RSS (VmHWM) at SUBNET UP, MADs (the SM port's PortXmitPkts in ibsim;
# nanosm's own counters from `nanosmctl status`), the SM's and ibsim's CPU
# time; then one no-change re-sweep (nanosmctl sweep / SIGHUP) and one
# re-sweep after a cable is pulled (ibsim console Unlink of a leaf's first
# uplink), each with its ms, MADs and CPU times.  OpenSM's wait is bounded
# (BENCH_LIVE_UP_TIMEOUT); where it gives up, its log's last lines say why.

LIVE_FABRICS=${BENCH_LIVE-}
LIVE_ENGINE=${BENCH_LIVE_ENGINE:-updn}
LIVE_UP_TIMEOUT=${BENCH_LIVE_UP_TIMEOUT:-1800}
LIVE_SWEEP_TIMEOUT=${BENCH_LIVE_SWEEP_TIMEOUT:-1800}
LIVE_SIM_TIMEOUT=${BENCH_LIVE_SIM_TIMEOUT:-1800}
LIVE_SMS=${BENCH_LIVE_SMS:-nanosm opensm}
# nanosm's MAD settings for this tier (config only; see docs/bench.md)
LIVE_NANOSM_ARGS=${BENCH_LIVE_NANOSM_ARGS-}
LIVE_ROWS=()

# bench_live_hwm PID: VmHWM of PID in kB (0 if gone).
bench_live_hwm() {
	awk '/^VmHWM:/ { print $2; f = 1 } END { if (!f) print 0 }' "/proc/$1/status" 2>/dev/null || echo 0
}

# bench_live_cable TOPO: 'NODE"[PORT]' of the first leaf's first port cabled
# to another switch (an uplink), for ibsim's Unlink.
bench_live_cable() {
	awk 'FNR == NR { if (/^Switch/) { s = $0; sub(/^[^"]*"/, "", s); sub(/".*$/, "", s); isw[s] = 1 }; next }
		/^Switch/ { sw = $0; sub(/^[^"]*"/, "", sw); sub(/".*$/, "", sw); insw = 1; next }
		/^(Hca|Ca)/ { insw = 0; next }
		insw && /^\[[0-9]+\][[:space:]]*"/ {
			p = $1; gsub(/[^0-9]/, "", p); r = $2; sub(/^"/, "", r); sub(/".*$/, "", r)
			if (r in isw) { printf "\"%s\"[%s]\n", sw, p; exit }
		}' "$1" "$1"
}

# bench_live_status SM TAG: nanosm's MAD counters (nanosmctl status) into
# $LIVE_DIR/status.TAG; echoes "sent timeouts retries" ("- - -" for OpenSM).
bench_live_status() {
	[ "$1" = nanosm ] || { echo "- - -"; return; }
	timeout -k 2 60 "$NANOSMCTL" -s "$LIVE_DIR/ctl.sock" -t 50 status >"$LIVE_DIR/status.$2" 2>&1
	awk '/^mads:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); m[kv[1]] = kv[2] }
		print m["sent"], m["timeouts"], m["retries"]; f = 1 }
		END { if (!f) print "? ? ?" }' "$LIVE_DIR/status.$2"
}

# bench_live_start SM HOST: the SM as a daemon on the running ibsim.  Sets
# LIVE_PID, LIVE_LOG (where its SUBNET UP and sweep lines go), LIVE_DIR.
bench_live_start() {
	LIVE_DIR=$SIM_DIR/$1.live
	# shellcheck disable=SC2086 # extra args are words
	bench_daemon_spawn "$1" "$LIVE_DIR" "$2" "$LIVE_ENGINE" $LIVE_NANOSM_ARGS
	LIVE_PID=$DAEMON_PID
	LIVE_LOG=$DAEMON_LOG
}

# bench_live_why SM: the last lines of the SM's log that say what went wrong.
bench_live_why() {
	case $1 in
	nanosm) grep -hE 'NSM-[EW][0-9]+|failed' "$LIVE_LOG" 2>/dev/null | tail -n 2 ;;
	opensm) grep -hE 'ERR [0-9A-F]+:|disabling|cannot|failed|Exiting' "$LIVE_LOG" 2>/dev/null | tail -n 2 ;;
	esac | cut -c1-200 | tr '\n' ' '
}

# bench_live_resweep SM HOST TAG [CABLE]: one heavy sweep (after pulling
# CABLE, when given) timed by bench_sa_sweep; appends "TAG ms=.. wire_mads=..
# nanosm_mads=.. timeouts=.. sm_cpu_ms=.. ibsim_cpu_ms=.." to the row.
bench_live_resweep() {
	local sm=$1 host=$2 tag=$3 cable=${4:-} m0 m1 c0 c1 s0 s1 st0 st1 ms
	# bench_sa_sweep (run.sh) reads these
	# shellcheck disable=SC2034
	local SA_TIMEOUT=$LIVE_SWEEP_TIMEOUT SA_SM_LOG=$LIVE_LOG SA_SM_PID=$LIVE_PID SA_SM_DIR=$LIVE_DIR SA_CTL_T=120
	m0=$(bench_wire_mads "$host")
	read -r st0 _ <<<"$(bench_live_status "$sm" "$tag.0")"
	c0=$(bench_cpu_ms "$LIVE_PID")
	s0=$(bench_cpu_ms "$SIM_PID")
	# ibsim's console: Unlink takes the cable down on both ends (and
	# makes the switch send a trap, which may start the sweep first)
	[ -z "$cable" ] || printf 'Unlink %s\n' "$cable" >"$SIM_DIR/ctl"
	bench_sa_sweep "$sm"
	case $RES in fail*) row+=" $tag=${RES// /_}"; return 1 ;; esac
	ms=${RES%% *}
	c1=$(bench_cpu_ms "$LIVE_PID")
	s1=$(bench_cpu_ms "$SIM_PID")
	m1=$(bench_wire_mads "$host")
	read -r st1 tmo _ <<<"$(bench_live_status "$sm" "$tag.1")"
	[ "$m0" = n/a ] || [ "$m1" = n/a ] || m1=$((m1 - m0))
	[ "$sm" != nanosm ] || st1=$((st1 - st0))
	row+=" $tag: ms=$ms wire_mads=$m1 nanosm_mads=$st1 timeouts=${tmo:--} sm_cpu_ms=$((c1 - c0)) ibsim_cpu_ms=$((s1 - s0))"
	bench_log "live $name $sm $tag: $ms ms, wire MADs $m1, SM CPU $((c1 - c0)) ms, ibsim CPU $((s1 - s0)) ms"
}

# bench_live_run SM TOPO HOST CABLE: fresh ibsim, SM up, the two re-sweeps;
# appends one row to LIVE_ROWS.
bench_live_run() {
	local sm=$1 topo=$2 host=$3 cable=$4 t0 tod0 c0 s0 sim_up up hwm cpu simcpu wire st tmo rt row
	# shellcheck disable=SC2034 # bench_sim_start reads it
	local SIM_READY_TIMEOUT=$LIVE_SIM_TIMEOUT
	t0=$(date +%s%N)
	bench_sim_start "$topo" || { LIVE_ROWS+=("$name $sm: ibsim cannot load the fabric"); return; }
	sim_up=$((($(date +%s%N) - t0) / 1000000))
	bench_log "live $name: ibsim loaded it in $sim_up ms (CPU $(bench_cpu_ms "$SIM_PID") ms, VmHWM $(bench_live_hwm "$SIM_PID") kB)"
	s0=$(bench_cpu_ms "$SIM_PID")
	tod0=$(bench_tod_ms)
	bench_live_start "$sm" "$host"
	row="$name $sm $LIVE_ENGINE:"
	if ! bench_wait_file "$LIVE_LOG" 'SUBNET UP' "$LIVE_UP_TIMEOUT" "$LIVE_PID"; then
		row+=" no SUBNET UP after $((($(date +%s%N) - t0) / 1000000 - sim_up)) ms (bound ${LIVE_UP_TIMEOUT}s, VmHWM $(bench_live_hwm "$LIVE_PID") kB, SM CPU $(bench_cpu_ms "$LIVE_PID") ms); last words: $(bench_live_why "$sm")"
		cp "$LIVE_LOG" "$SCRATCH/live-$sm.log" 2>/dev/null
		LIVE_ROWS+=("$row")
		bench_log "live $row"
		bench_kill "$LIVE_PID"
		bench_sim_stop
		return
	fi
	hwm=$(bench_live_hwm "$LIVE_PID")
	cpu=$(bench_cpu_ms "$LIVE_PID")
	simcpu=$(($(bench_cpu_ms "$SIM_PID") - s0))
	up=$(bench_up_ms "$LIVE_LOG" "$tod0" "?")
	wire=$(bench_wire_mads "$host")
	read -r st tmo rt <<<"$(bench_live_status "$sm" up)"
	row+=" up: ms=$up peak_kB=$hwm wire_mads=$wire nanosm_mads=$st timeouts=$tmo retries=$rt sm_cpu_ms=$cpu ibsim_cpu_ms=$simcpu (ibsim load ${sim_up} ms)"
	bench_log "live $row"
	bench_live_resweep "$sm" "$host" nochange &&
		bench_live_resweep "$sm" "$host" cable "$cable"
	row+=" peak_kB_end=$(bench_live_hwm "$LIVE_PID")"
	LIVE_ROWS+=("$row")
	cp "$LIVE_LOG" "$SCRATCH/live-$sm.log" 2>/dev/null
	bench_kill "$LIVE_PID"
	bench_sim_stop
}

bench_live() {
	local name topo host cable sm
	[ -n "${LIVE_FABRICS// /}" ] || return 0
	if ! command -v ibsim >/dev/null || ! command -v opensm >/dev/null || ! command -v perfquery >/dev/null ||
		[ ! -r "$UMAD2SIM" ] || [ ! -x "$NANOSM" ] || [ ! -x "$NANOSMCTL" ]; then
		bench_log "ibsim, opensm, perfquery, umad2sim or nanosmctl missing: skipping the live tier"
		return 0
	fi
	# the SMs and ibsim hold hundreds of MB to GB; ibsim's clients are
	# sockets (none of these was binding on the development VM)
	ulimit -n "$(ulimit -Hn)" 2>/dev/null
	ulimit -v unlimited 2>/dev/null
	bench_log "live tier: fabrics [$LIVE_FABRICS], SMs [$LIVE_SMS], engine $LIVE_ENGINE, bounds: ibsim load ${LIVE_SIM_TIMEOUT}s, SUBNET UP ${LIVE_UP_TIMEOUT}s, sweep ${LIVE_SWEEP_TIMEOUT}s; load $(cut -d' ' -f1-3 /proc/loadavg)"
	for name in $LIVE_FABRICS; do
		bench_gen "$name"
		# shellcheck disable=SC2153 # TOPO: set by bench_gen
		topo=$TOPO
		host=$(bench_sim_host "$topo")
		cable=$(bench_live_cable "$topo")
		[ -n "$cable" ] || bench_die "live: no switch-to-switch cable in $topo"
		bench_log "live $name: ibsim $(bench_sim_limits "$topo"); SM on $host; cable pulled: $cable"
		for sm in $LIVE_SMS; do bench_live_run "$sm" "$topo" "$host" "$cable"; done
	done
}

bench_report_live() {
	local row
	[ ${#LIVE_ROWS[@]} -gt 0 ] || return 0
	echo
	echo "== Live tier: the SM as a daemon on a fresh ibsim each, engine $LIVE_ENGINE =="
	echo "   up ms = SM start to its SUBNET UP line; peak_kB = VmHWM at SUBNET UP (peak_kB_end: after the"
	echo "   re-sweeps); wire_mads = the SM port's PortXmitPkts in ibsim; nanosm_mads = nanosmctl status"
	echo "   mads sent; cpu = user+sys of the SM and of ibsim over the phase; nochange = a heavy sweep of"
	echo "   the unchanged fabric, cable = a heavy sweep right after ibsim's Unlink of one uplink"
	echo "   load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; tree at $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null), nanosm built $(date -u -r "$NANOSM" +%FT%TZ 2>/dev/null)"
	for row in "${LIVE_ROWS[@]}"; do echo "$row"; done
}
