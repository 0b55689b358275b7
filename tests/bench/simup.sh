# shellcheck shell=bash
# tests/bench/simup.sh - sourced by run.sh: the SMs under ibsim, time to
# SUBNET UP (BENCH_SIM): nanosm and OpenSM --once on the same fabric, a
# fresh ibsim per run, alternating; median and ratio of the time, peak RSS,
# MADs on the wire, CPU time of the SM and of ibsim; its table.  Also the
# clock, CPU and PortXmitPkts readers the other ibsim parts use.

SIM_ROWS=()

# bench_tod_ms: now, as milliseconds since local midnight.
bench_tod_ms() {
	date +%H:%M:%S.%N | awk -F'[:.]' '{ printf "%d\n", (($1 * 60 + $2) * 60 + $3) * 1000 + substr($4, 1, 3) }'
}

# bench_line_ms: the timestamp of the log line on stdin as ms since
# midnight (nanosm "HH:MM:SS.mmm", OpenSM "Mon DD HH:MM:SS usec"), or -1.
bench_line_ms() {
	awk '{
		ms = -1
		if (match($0, /[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9]/)) {
			split(substr($0, RSTART, 12), a, /[:.]/)
			ms = ((a[1] * 60 + a[2]) * 60 + a[3]) * 1000 + a[4]
		} else if (match($0, /[0-9][0-9]:[0-9][0-9]:[0-9][0-9] [0-9][0-9][0-9][0-9][0-9][0-9]/)) {
			split(substr($0, RSTART, 15), a, /[: ]/)
			ms = ((a[1] * 60 + a[2]) * 60 + a[3]) * 1000 + int(a[4] / 1000)
		}
		print ms; exit }'
}

# bench_ms_since T0 T1: T1 - T0, both ms since midnight (wraps once).
bench_ms_since() {
	local d=$(($2 - $1))
	[ "$d" -ge 0 ] || d=$((d + 86400000))
	echo "$d"
}

# bench_up_ms LOG T0 POLLED: ms from T0 (ms since midnight) to the SUBNET UP
# line's own timestamp (nanosm "HH:MM:SS.mmm", OpenSM "Mon DD HH:MM:SS usec");
# POLLED when the line has no readable timestamp.
bench_up_ms() {
	local ms
	ms=$(grep -m1 'SUBNET UP' "$1" | bench_line_ms)
	[ -n "$ms" ] || return 0
	if [ "$ms" -lt 0 ]; then echo "$3"; else bench_ms_since "$2" "$ms"; fi
}

# bench_cpu_ms PID: user + system CPU ms the process used so far (0 if gone).
bench_cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%d\n", ($12 + $13) * 1000 / hz }' \
		"/proc/$1/stat" 2>/dev/null || echo 0
}

# bench_wire_mads HOST: PortXmitPkts of HOST's port 1, as ibsim counts it
# (perfquery from HOST itself).  ibsim counts every MAD that leaves the port
# for the wire: the SMPs of an SM on HOST that go to other nodes (not those
# to its own port, which never leave it), but not perfquery's own queries.
# Both SMs are counted the same way; "n/a" when perfquery fails.
bench_wire_mads() {
	local v
	v=$(cd "$SIM_DIR/run" && timeout -k 2 20 env LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$SIM_SOCK" \
		SIM_HOST="$1" perfquery 2>/dev/null | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)$/\1/p' | head -n 1)
	echo "${v:-n/a}"
}

# bench_sm_run SM ENGINE HOST: run one SM (--once) under /usr/bin/time
# against the running ibsim.  Sets RES to "MS RSS_KB SM_CPU_MS SIM_CPU_MS
# RUN_MS WIRE_MADS LFT_BLOCKS ENGINE_USED" or "fail: reason".  MS: start to
# the SUBNET UP line; RSS: time's %M; RUN_MS: start to exit, SIM_CPU_MS:
# ibsim's CPU time over that span; LFT_BLOCKS: nanosm's lft_blocks_sent,
# "-" for OpenSM (counted in the re-sweep part, which logs at debug level).
bench_sm_run() {
	local sm=$1 eng=$2 host=$3 d log cmd=() envs=() pid t0 t1 tod0 polled used c0 c1 up rss cpu lft
	local preload=$UMAD2SIM
	d=$SIM_DIR/$sm.$eng
	mkdir -p "$d/cache" "$d/tmp"
	log=$d/sm.log
	# shellcheck disable=SC2086 # BENCH_NANOSM_ARGS are words
	case $sm in
	nanosm) cmd=("$NANOSM" --once -R "$eng" --guid2lid "$d/guid2lid" --socket none ${BENCH_NANOSM_ARGS:-}) ;;
	nanosm-ibsim)
		# ibsim's own protocol: no umad2sim preload, no receiver thread of its
		cmd=("$NANOSM" --ibsim --once -R "$eng" --guid2lid "$d/guid2lid" --socket none ${BENCH_NANOSM_ARGS:-})
		preload=
		;;
	opensm)
		# -d2: flush the log after every line; private cache and tmp dirs
		cmd=(opensm --once -R "$(bench_osm_engine "$eng")" -d2 -f "$d/osm.log")
		envs=(OSM_CACHE_DIR="$d/cache" OSM_TMP_DIR="$d/tmp")
		;;
	esac
	c0=$(bench_cpu_ms "$SIM_PID")
	tod0=$(bench_tod_ms)
	t0=$(date +%s%N)
	# time outside the preload: umad2sim connects every process it is
	# loaded into to ibsim
	(cd "$SIM_DIR/run" && exec "$TIME" -f "%M %U %S" -o "$d/time" env "${envs[@]}" \
		LD_PRELOAD="$preload" IBSIM_SOCKNAME="$SIM_SOCK" SIM_HOST="$host" "${cmd[@]}") >"$log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	[ "$sm" = opensm ] && log=$d/osm.log
	# --once: both SMs exit after their SUBNET UP; its time is read from
	# the line's own timestamp, so the wait need not watch the log
	bench_wait_pid "$pid" "$SM_UP_TIMEOUT"
	t1=$(date +%s%N)
	if ! grep -q 'SUBNET UP' "$log" 2>/dev/null; then
		RES="fail: $(bench_sm_why "$sm" "$d")"
		[ "$RES" = "fail: " ] && RES="fail: no SUBNET UP within ${SM_UP_TIMEOUT}s"
		return 0
	fi
	polled=$(((t1 - t0) / 1000000))
	c1=$(bench_cpu_ms "$SIM_PID")
	case $sm in
	nanosm*)
		used=$(grep 'SUBNET UP' "$d/sm.log" | grep -m1 -oE 'engine=[a-z0-9_-]+' | cut -d= -f2)
		lft=$(grep -m1 -oE 'sweep [0-9]+: ok .*lft_blocks_sent=[0-9]+' "$d/sm.log" | grep -oE '[0-9]+$')
		;;
	opensm) used=$(grep -oE '[a-z0-9_-]+ tables configured on all switches' "$d/osm.log" | tail -n 1 | cut -d' ' -f1) ;;
	esac
	[ "$sm" = opensm ] && [ -n "$used" ] && [ "$used" != "$(bench_osm_engine "$eng")" ] &&
		used="$used:$(bench_sm_why opensm "$d")"
	up=$(bench_up_ms "$log" "$tod0" "$polled")
	read -r rss cpu <<<"$(awk '/^[0-9]+ [0-9.]+ [0-9.]+$/ { printf "%d %d\n", $1, ($2 + $3) * 1000 }' "$d/time")"
	RES="$up ${rss:-0} ${cpu:-0} $((c1 - c0)) $(((t1 - t0) / 1000000)) $(bench_wire_mads "$host") ${lft:--} ${used:-?}"
}

# bench_osm_engine ENGINE: OpenSM's engine to compare nanosm's ENGINE with:
# the same name, or dfsssp (balanced shortest paths over VLs) for vlsp.
bench_osm_engine() {
	case $1 in
	vlsp) echo dfsssp ;;
	*) echo "$1" ;;
	esac
}

# bench_sm_why SM DIR: the most telling error line of a run, prefix cut.
bench_sm_why() {
	case $1 in
	nanosm)
		grep -hoE 'NSM-E[0-9]+.*' "$2/sm.log" 2>/dev/null | grep -vE '^NSM-E(100|403)' | head -n 1
		;;
	opensm)
		grep -hE 'ERR [0-9A-F]+:|disabling|cannot|failed' "$2/osm.log" 2>/dev/null | head -n 1 |
			sed -E 's/^.* -> //'
		;;
	esac | cut -c1-160
}

# bench_sim_pair NAME ENGINE: alternate nanosm, nanosm --ibsim (unless
# BENCH_SIM_IBSIM=0) and OpenSM runs, each on a fresh ibsim; appends a
# table row for nanosm and one (engine marked *) for nanosm --ibsim, both
# against the same OpenSM runs.
bench_sim_pair() {
	local name=$1 eng=$2 topo host r sm res fail_n='' fail_o='' used_n='' used_o=''
	local ms_n=() ms_o=() rss_n=() rss_o=() mads_n=() mads_o=() lft_n=() sim_n=() sim_o=()
	local cpu_n=() simcpu_n=() upx_n=()
	local ms rss cpu simcpu run mads lft used sms="nanosm nanosm-ibsim opensm" v
	local fail_i='' used_i='' ms_i=() rss_i=() mads_i=() lft_i=() sim_i=() cpu_i=() simcpu_i=() upx_i=()
	[ "${BENCH_SIM_IBSIM:-1}" = 0 ] && sms="nanosm opensm"
	bench_gen "$name"
	topo=$TOPO
	host=$(bench_sim_host "$topo")
	for r in $(seq "$SIM_REPS"); do
		for sm in $sms; do
			[ "$sm" = nanosm ] && [ -n "$fail_n" ] && continue
			[ "$sm" = nanosm-ibsim ] && [ -n "$fail_i" ] && continue
			[ "$sm" = opensm ] && [ -n "$fail_o" ] && continue
			bench_sim_start "$topo" || { SIM_ROWS+=("$name|$eng|n/a: ibsim cannot load it||||||||||"); return; }
			bench_sm_run "$sm" "$eng" "$host"
			res=$RES
			bench_sim_stop
			bench_log "ibsim $name $eng $sm run $r: $res (up_ms rss_kb cpu_ms ibsim_cpu_ms run_ms wire_mads lft engine)"
			case $res in
			fail*)
				case $sm in
				nanosm) fail_n=$res ;;
				nanosm-ibsim) fail_i=$res ;;
				*) fail_o=$res ;;
				esac
				continue
				;;
			esac
			read -r ms rss cpu simcpu run mads lft used <<<"$res"
			case $sm in
			nanosm)
				ms_n+=("$ms"); rss_n+=("$rss"); used_n=$used; lft_n+=("$lft")
				cpu_n+=("$cpu"); simcpu_n+=("$simcpu")
				# issue 18: time to SUBNET UP over ibsim's CPU time serving the run
				upx_n+=("$(awk -v a="$ms" -v b="$simcpu" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')")
				[ "$mads" = n/a ] || mads_n+=("$mads")
				sim_n+=("$(awk -v a="$simcpu" -v b="$run" 'BEGIN { printf "%.0f", (b > 0 ? 100 * a / b : 0) }')")
				;;
			nanosm-ibsim)
				ms_i+=("$ms"); rss_i+=("$rss"); used_i=$used; lft_i+=("$lft")
				cpu_i+=("$cpu"); simcpu_i+=("$simcpu")
				upx_i+=("$(awk -v a="$ms" -v b="$simcpu" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')")
				[ "$mads" = n/a ] || mads_i+=("$mads")
				sim_i+=("$(awk -v a="$simcpu" -v b="$run" 'BEGIN { printf "%.0f", (b > 0 ? 100 * a / b : 0) }')")
				;;
			opensm)
				ms_o+=("$ms"); rss_o+=("$rss"); used_o=$used
				[ "$mads" = n/a ] || mads_o+=("$mads")
				sim_o+=("$(awk -v a="$simcpu" -v b="$run" 'BEGIN { printf "%.0f", (b > 0 ? 100 * a / b : 0) }')")
				;;
			esac
		done
	done
	bench_sim_row "$name" "$eng"
	[ "${BENCH_SIM_IBSIM:-1}" = 0 ] && return
	# the same row for nanosm --ibsim: its runs in bench_sim_row's names
	fail_n=$fail_i used_n=$used_i
	for v in ms rss mads lft sim cpu simcpu upx; do
		eval "${v}_n=(\"\${${v}_i[@]}\")"
	done
	bench_sim_row "$name" "$eng*"
}

# bench_sim_row NAME ENGINE (uses bench_sim_pair's locals): one table row
# "fabric|engine|n_ms|n_used|o_ms|o_used|ratio|n_MB|o_MB|rss_ratio|n_mads|o_mads|n_lft|n_sim%|o_sim%
# |n_cpu_ms|n_ibsim_cpu_ms|n_ms/ibsim_cpu".
bench_sim_row() {
	local n o fb nm om
	n=${fail_n:-$(bench_med0 "${ms_n[@]}")}
	o=${fail_o:-$(bench_med0 "${ms_o[@]}")}
	nm=$(bench_med0 "${rss_n[@]}")
	om=$(bench_med0 "${rss_o[@]}")
	[ "$nm" = - ] || nm=$(awk -v k="$nm" 'BEGIN { printf "%.1f", k / 1024 }')
	[ "$om" = - ] || om=$(awk -v k="$om" 'BEGIN { printf "%.1f", k / 1024 }')
	fb=${used_o:-?}
	# "ENGINE:REASON" when OpenSM used another engine than asked
	case $used_o in *:*) fb="${used_o%%:*} (FELL BACK: ${used_o#*:})" ;; esac
	[ -z "$fail_o" ] || fb=-
	SIM_ROWS+=("$1|$2|$n|${used_n:--}|$o|$fb|$(bench_ratio "$n" "$o")|$nm|$om|$(bench_ratio "$nm" "$om")|$(bench_med0 "${mads_n[@]}")|$(bench_med0 "${mads_o[@]}")|$(bench_med0 "${lft_n[@]}")|$(bench_med0 "${sim_n[@]}")|$(bench_med0 "${sim_o[@]}")|$(bench_med0 "${cpu_n[@]}")|$(bench_med0 "${simcpu_n[@]}")|$(bench_med2 "${upx_n[@]}")")
}

# bench_sim_fabrics LIST: bench fabric names, tiers expanded.
bench_sim_fabrics() {
	local t
	for t in $1; do
		bench_tier_fabrics "$t" >/dev/null || bench_die "unknown fabric or tier $t"
		bench_tier_fabrics "$t"
	done | tr ' ' '\n' | awk 'NF && !seen[$0]++'
}

bench_sim() {
	local name eng
	[ -n "${SIM_FABRICS// /}" ] || return 0
	command -v ibsim >/dev/null || { bench_log "ibsim not installed: skipping the SM comparison"; return 0; }
	command -v opensm >/dev/null || { bench_log "opensm not installed: skipping the SM comparison"; return 0; }
	[ -r "$UMAD2SIM" ] || { bench_log "umad2sim not found: skipping the SM comparison"; return 0; }
	[ -x "$NANOSM" ] || { bench_log "$NANOSM not built: skipping the SM comparison"; return 0; }
	bench_log "ibsim comparison: fabrics [$SIM_FABRICS], engines [$SIM_ENGINES], $SIM_REPS runs per SM"
	for name in $(bench_sim_fabrics "$SIM_FABRICS"); do
		for eng in $SIM_ENGINES; do bench_sim_pair "$name" "$eng"; done
	done
}

bench_report_sim() {
	local row f e n o uo ratio nm om rr nmad omad nl ns os nc sc ux
	[ ${#SIM_ROWS[@]} -gt 0 ] || return 0
	echo
	echo "== Under ibsim: --once from start to SUBNET UP (fresh ibsim per run, SMs alternating; median of $SIM_REPS) =="
	echo "   ms = SM start to its SUBNET UP line; MB = peak RSS (time %M); MADs = the SM port's PortXmitPkts"
	echo "   in ibsim after the run (SMPs that left the port; the SM's own port is not counted);"
	echo "   LFT = nanosm's lft_blocks_sent (OpenSM's: the re-sweep table); sim% = ibsim CPU / SM run wall;"
	echo "   n/O = nanosm / OpenSM (below 1: nanosm faster / smaller); n_cpu = nanosm's user+sys ms;"
	echo "   sim_cpu = ibsim's CPU ms over nanosm's run; n/sim = n_ms / sim_cpu (issue 18 aims at <= 1.3);"
	echo "   engine* = nanosm --ibsim (ibsim's own protocol, no umad2sim preload) against the same OpenSM runs"
	printf '%-9s %-7s %8s %8s %6s  %7s %7s %6s  %8s %8s %7s  %5s %5s  %6s %7s %5s  %s\n' fabric engine n_ms O_ms n/O \
		n_MB O_MB n/O n_MADs O_MADs n_LFT n_sim O_sim n_cpu sim_cpu n/sim "OpenSM engine used"
	for row in "${SIM_ROWS[@]}"; do
		IFS="|" read -r f e n _ o uo ratio nm om rr nmad omad nl ns os nc sc ux <<<"$row"
		printf '%-9s %-7s %8s %8s %6s  %7s %7s %6s  %8s %8s %7s  %4s%% %4s%%  %6s %7s %5s  %s\n' "$f" "$e" "${n%%:*}" "${o%%:*}" \
			"${ratio:--}" "$nm" "$om" "$rr" "$nmad" "$omad" "$nl" "$ns" "$os" "${nc:--}" "${sc:--}" "${ux:--}" "$uo"
		case $n in fail* | n/a*) echo "          nanosm: $n" ;; esac
		case $o in fail*) echo "          OpenSM: $o" ;; esac
	done
}
