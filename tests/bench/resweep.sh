# shellcheck shell=bash
# tests/bench/resweep.sh - sourced by run.sh: a re-sweep of an unchanged
# fabric (BENCH_RESWEEP): each SM as a daemon on a fresh ibsim, brought up,
# then asked to sweep again (nanosmctl sweep / SIGHUP); the LFT blocks each
# sweep set, the MADs and the time of the re-sweep; its table.

RS_ROWS=()
RS_PID=
RS_AWK=
RS_LOG=
RS_DIR=

# bench_rs_start SM ENGINE HOST: the SM as a daemon (no periodic sweeps) on
# the running ibsim; bounded wait for SUBNET UP.  OpenSM logs at debug level
# (-D 0x0b) into a fifo read by an awk that counts its LinearForwardingTable
# Sets and writes only the SUBNET UP lines, each with the count since the
# previous one, to RS_LOG.  Sets RS_PID, RS_LOG, RS_DIR; 1 on failure.
bench_rs_start() {
	local sm=$1 eng=$2 host=$3 d cmd=() envs=()
	d=$SIM_DIR/$sm.rs
	mkdir -p "$d/cache" "$d/tmp"
	RS_DIR=$d
	case $sm in
	nanosm)
		RS_LOG=$d/sm.out
		cmd=("$NANOSM" -R "$eng" --socket "$d/ctl.sock" --guid2lid "$d/guid2lid" --sweep-interval 86400)
		;;
	opensm)
		envs=(OSM_CACHE_DIR="$d/cache" OSM_TMP_DIR="$d/tmp")
		if [ "$OSM_LFT" = 0 ]; then
			RS_LOG=$d/osm.log
			cmd=(opensm -R "$(bench_osm_engine "$eng")" -d2 -s 0 -f "$RS_LOG")
		else
			RS_LOG=$d/up.log
			mkfifo "$d/osm.fifo" || return 1
			# mawk reads a pipe in large blocks unless interactive
			# shellcheck disable=SC2046 # two words or none
			awk $(awk -W version 2>/dev/null | grep -q mawk && echo -W interactive) \
				'/Setting LinearForwardingTable/ { n++ }
				/-> SUBNET UP/ { print $0 " lft_sets=" n + 0; fflush(); n = 0 }' \
				<"$d/osm.fifo" >"$RS_LOG" 2>/dev/null &
			PIDS+=("$!")
			RS_AWK=$!
			cmd=(opensm -R "$(bench_osm_engine "$eng")" -d2 -s 0 -D 0x0b -f "$d/osm.fifo")
		fi
		;;
	esac
	(cd "$SIM_DIR/run" && exec env "${envs[@]}" LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$SIM_SOCK" \
		SIM_HOST="$host" "${cmd[@]}") >"$d/sm.out" 2>&1 &
	RS_PID=$!
	PIDS+=("$RS_PID")
	# a daemon retries a sweep that failed (engine error, gate refusal)
	# forever: the first failed sweep ends the wait
	if bench_wait_file "$RS_LOG" 'SUBNET UP|nanosm: sweep 1: failed' "$SM_UP_TIMEOUT" "$RS_PID" &&
		grep -q 'SUBNET UP' "$RS_LOG"; then
		return 0
	fi
	RES="fail: $(grep -hoE 'NSM-E[0-9]+.*' "$RS_LOG" 2>/dev/null | grep -vE '^NSM-E(100|403)' | head -n 1 | cut -c1-160)"
	[ "$RES" = "fail: " ] && RES="fail: no SUBNET UP within ${SM_UP_TIMEOUT}s"
	bench_rs_stop "$sm"
	return 1
}

bench_rs_stop() {
	bench_kill "$RS_PID"
	[ "$1" != opensm ] || [ "$OSM_LFT" = 0 ] || bench_kill "$RS_AWK"
}

# bench_rs_lft SM N: LFT blocks set by the N-th sweep (nanosm: sweep N's
# lft_blocks_sent; OpenSM: the count on its N-th SUBNET UP line).
bench_rs_lft() {
	case $1 in
	nanosm) grep -m1 -E "nanosm: sweep $2: " "$RS_LOG" | grep -oE 'lft_blocks_sent=[0-9]+' | cut -d= -f2 ;;
	opensm) grep -E -- '-> SUBNET UP' "$RS_LOG" | sed -n "$2p" | grep -oE 'lft_sets=[0-9]+' | cut -d= -f2 ;;
	esac
}

# bench_rs_run SM ENGINE TOPO HOST: fresh ibsim, daemon up, BENCH_RESWEEP_N
# re-sweeps of the unchanged fabric.  Appends "ms mads lft" per re-sweep to
# the caller's rs_SM array and the bring-up's LFT blocks to up_lft_SM.
bench_rs_run() {
	local sm=$1 eng=$2 topo=$3 host=$4 i m0 m1 ms up x said='' SA_TIMEOUT=$SM_UP_TIMEOUT
	bench_sim_start "$topo" || { rs_fail[$sm]="ibsim cannot load the fabric"; return; }
	if ! bench_rs_start "$sm" "$eng" "$host"; then
		rs_fail[$sm]=$RES
		bench_sim_stop
		return
	fi
	up=$(bench_rs_lft "$sm" 1)
	[ -z "$up" ] || eval "up_lft_$sm+=(\"\$up\")"
	# bench_sa_sweep reads these
	SA_SM_LOG=$RS_LOG SA_SM_PID=$RS_PID SA_SM_DIR=$RS_DIR
	for i in $(seq "$RS_N"); do
		m0=$(bench_wire_mads "$host")
		bench_sa_sweep "$sm"
		case $RES in fail*) rs_fail[$sm]=$RES; break ;; esac
		ms=${RES%% *}
		m1=$(bench_wire_mads "$host")
		[ "$m0" = n/a ] || [ "$m1" = n/a ] || m1=$((m1 - m0))
		x="$ms $m1 $(bench_rs_lft "$sm" $((i + 1)))"
		said+="[$x] "
		eval "rs_$sm+=(\"\$x\")"
	done
	bench_log "re-sweep $name $eng $sm: bring-up LFT blocks $up; re-sweeps (ms MADs LFT): $said"
	bench_rs_stop "$sm"
	bench_sim_stop
}

# bench_rs_col ROWS... (each "ms mads lft"): "ms|mads|lft" medians.
bench_rs_col() {
	local r ms_v=() mads_v=() lft_v=() x y z
	for r in "$@"; do
		read -r x y z <<<"$r"
		ms_v+=("$x")
		[ "$y" = n/a ] || mads_v+=("$y")
		[ -z "$z" ] || lft_v+=("$z")
	done
	echo "$(bench_med0 "${ms_v[@]}")|$(bench_med0 "${mads_v[@]}")|$(bench_med0 "${lft_v[@]}")"
}

# bench_rs_pair NAME ENGINE: one daemon run per SM; a table row
# "fabric|engine|n_up_lft|n_ms|n_mads|n_lft|o_up_lft|o_ms|o_mads|o_lft|why".
bench_rs_pair() {
	local name=$1 eng=$2 topo host sm why=''
	local -A rs_fail=()
	local rs_nanosm=() rs_opensm=() up_lft_nanosm=() up_lft_opensm=()
	bench_gen "$name"
	topo=$TOPO
	host=$(bench_sim_host "$topo")
	for sm in nanosm opensm; do bench_rs_run "$sm" "$eng" "$topo" "$host"; done
	for sm in nanosm opensm; do [ -z "${rs_fail[$sm]:-}" ] || why+="  $sm: ${rs_fail[$sm]}"; done
	RS_ROWS+=("$name|$eng|$(bench_med0 "${up_lft_nanosm[@]}")|$(bench_rs_col "${rs_nanosm[@]}")|$(bench_med0 "${up_lft_opensm[@]}")|$(bench_rs_col "${rs_opensm[@]}")|$why")
}

bench_resweep() {
	local name eng
	[ -n "${RS_FABRICS// /}" ] || return 0
	if ! command -v ibsim >/dev/null || ! command -v opensm >/dev/null || ! command -v perfquery >/dev/null ||
		[ ! -r "$UMAD2SIM" ] || [ ! -x "$NANOSMCTL" ]; then
		bench_log "ibsim, opensm, perfquery or nanosmctl missing: skipping the re-sweep part"
		return 0
	fi
	bench_log "re-sweep with no change: fabrics [$RS_FABRICS], engines [$RS_ENGINES], $RS_N re-sweeps per SM"
	for name in $(bench_sim_fabrics "$RS_FABRICS"); do
		for eng in $RS_ENGINES; do bench_rs_pair "$name" "$eng"; done
	done
}

bench_report_rs() {
	local row f e nu nms nmad nl ou oms omad ol why
	[ ${#RS_ROWS[@]} -gt 0 ] || return 0
	echo
	echo "== Re-sweep of an unchanged fabric: daemons, nanosmctl sweep / SIGHUP; median of $RS_N =="
	echo "   up_LFT = LFT blocks the bring-up sweep set; ms = request to the sweep's end line;"
	echo "   MADs = PortXmitPkts delta over the re-sweep; LFT = blocks the re-sweep set."
	if [ "$OSM_LFT" = 0 ]; then
		echo "   OpenSM at its default log level (BENCH_OSM_LFT=0): its LFT Sets are not counted"
	else
		echo "   OpenSM logs at debug level here (-D 0x0b, to count its LFT Sets), which slows it: its ms"
		echo "   in this table are an upper bound; its MADs and LFT counts are exact (BENCH_OSM_LFT=0: no debug)"
	fi
	printf '%-9s %-7s | %7s %7s %8s %5s | %7s %7s %8s %5s\n' fabric engine n_upLFT n_ms n_MADs n_LFT \
		O_upLFT O_ms O_MADs O_LFT
	for row in "${RS_ROWS[@]}"; do
		IFS='|' read -r f e nu nms nmad nl ou oms omad ol why <<<"$row"
		printf '%-9s %-7s | %7s %7s %8s %5s | %7s %7s %8s %5s\n' "$f" "$e" "$nu" "$nms" "$nmad" "$nl" \
			"$ou" "$oms" "$omad" "$ol"
		[ -z "$why" ] || echo "          ${why# }"
	done
}
