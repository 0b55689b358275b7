# shellcheck shell=bash
# tests/bench/saflood.sh - sourced by run.sh: the SA PathRecord flood
# (BENCH_SA): nanosm-sa flood clients against a running nanosm and a running
# OpenSM, answers/s with 1 and BENCH_SA_CLIENTS clients, and heavy-sweep
# latency idle vs during a flood; their tables.  Also the daemon helpers
# (spawn, wait for a log line, time a sweep) the other parts use.

SA_ROWS=()
SWEEP_ROWS=()

# bench_sa_topo NAME: TOPO = tests/fabrics/NAME.topo if it exists, else the
# generated bench fabric NAME.
bench_sa_topo() {
	if [ -s "$REPO/tests/fabrics/$1.topo" ]; then
		TOPO=$REPO/tests/fabrics/$1.topo
	else
		bench_fabric_args "$1" >/dev/null || bench_die "unknown fabric $1 (BENCH_SA)"
		bench_gen "$1"
	fi
}

# bench_wait_count FILE ERE COUNT TIMEOUT PID: like bench_wait_file, until
# FILE has COUNT lines matching.
bench_wait_count() {
	local f=$1 pat=$2 n=$3 t=$4 pid=$5 deadline
	deadline=$(($(date +%s%N) / 1000000 + t * 1000))
	while :; do
		[ "$(grep -cE -- "$pat" "$f" 2>/dev/null)" -ge "$n" ] && return 0
		ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z || return 1
		[ $(($(date +%s%N) / 1000000)) -lt "$deadline" ] || return 1
		sleep 0.01
	done
}

# bench_daemon_spawn SM DIR HOST ENGINE [NANOSM_ARG...]: start SM as a
# daemon (no --once, no periodic sweeps) on the running ibsim, in DIR (its
# output in DIR/sm.out, OpenSM's log in DIR/osm.log); no wait.  Sets
# DAEMON_PID and DAEMON_LOG (the file its SUBNET UP lines go to).
bench_daemon_spawn() {
	local sm=$1 d=$2 host=$3 eng=$4 cmd=() envs=() preload=$UMAD2SIM a
	shift 4
	# nanosm --ibsim speaks ibsim's protocol itself: no preload
	for a in "$@"; do [ "$a" = --ibsim ] && preload=; done
	mkdir -p "$d/cache" "$d/tmp"
	case $sm in
	nanosm)
		DAEMON_LOG=$d/sm.out
		cmd=("$NANOSM" -R "$eng" --socket "$d/ctl.sock" --guid2lid "$d/guid2lid" --sweep-interval 86400 "$@")
		;;
	opensm)
		DAEMON_LOG=$d/osm.log
		# -s 0: no periodic sweeps; SIGHUP (and traps) still start a heavy
		# one; -d2: flush the log after every line
		cmd=(opensm -R "$(bench_osm_engine "$eng")" -d2 -s 0 -f "$DAEMON_LOG")
		envs=(OSM_CACHE_DIR="$d/cache" OSM_TMP_DIR="$d/tmp")
		;;
	esac
	(cd "$SIM_DIR/run" && exec env "${envs[@]}" LD_PRELOAD="$preload" IBSIM_SOCKNAME="$SIM_SOCK" \
		SIM_HOST="$host" "${cmd[@]}") >"$d/sm.out" 2>&1 &
	DAEMON_PID=$!
	PIDS+=("$DAEMON_PID")
}

# bench_sa_sm_start SM HOST: start SM as a daemon on the running ibsim,
# bounded wait for SUBNET UP.  Sets SA_SM_PID, SA_SM_LOG, SA_SM_DIR; 1 on
# failure (SM stopped, RES says why).
bench_sa_sm_start() {
	local sm=$1 host=$2 d
	d=$SIM_DIR/$sm.sa
	SA_SM_DIR=$d
	bench_daemon_spawn "$sm" "$d" "$host" "$SA_ENGINE" -v
	SA_SM_PID=$DAEMON_PID
	SA_SM_LOG=$DAEMON_LOG
	bench_wait_file "$SA_SM_LOG" 'SUBNET UP' "$SM_UP_TIMEOUT" "$SA_SM_PID" && return 0
	RES="fail: $(bench_sm_why "$sm" "$d")"
	[ "$RES" = "fail: " ] && RES="fail: no SUBNET UP within ${SM_UP_TIMEOUT}s"
	bench_kill "$SA_SM_PID"
	return 1
}

# bench_sa_client OUT HOST CMD...: one umad2sim client in the background,
# bounded by BENCH_SA_TIMEOUT; sets SA_CLIENT_PID.
bench_sa_client() {
	local out=$1 host=$2
	shift 2
	(cd "$SIM_DIR/run" && exec timeout -k 5 "$SA_TIMEOUT" env LD_PRELOAD="$UMAD2SIM" \
		IBSIM_SOCKNAME="$SIM_SOCK" SIM_HOST="$host" "$@") >"$out" 2>&1 &
	SA_CLIENT_PID=$!
	PIDS+=("$SA_CLIENT_PID")
}

# bench_sa_lids HOST: the CA LIDs the SM gave out (ibnetdiscover -p from
# HOST), into SA_LIDS (array); 1 when none.
bench_sa_lids() {
	local out=$SA_SM_DIR/ibnd.txt
	bench_sa_client "$out" "$1" ibnetdiscover -p
	wait "$SA_CLIENT_PID" 2>/dev/null
	bench_forget "$SA_CLIENT_PID"
	mapfile -t SA_LIDS < <(awk '$1 == "CA" && $2 > 0 { print $2 }' "$out" | sort -n -u)
	[ ${#SA_LIDS[@]} -ge 2 ]
}

# bench_sa_flood_start TAG N HOST...: one `nanosm-sa flood N WINDOW LID...`
# per HOST, all at once; client k gets the LID list rotated by k/HOSTS of
# its length, so the clients ask for different pairs.  Sets FLOOD_PIDS,
# FLOOD_OUTS.
bench_sa_flood_start() {
	local tag=$1 n=$2 k=0 nh host rot lids
	shift 2
	nh=$#
	FLOOD_PIDS=()
	FLOOD_OUTS=()
	for host in "$@"; do
		rot=$((k * ${#SA_LIDS[@]} / nh))
		lids=("${SA_LIDS[@]:rot}" "${SA_LIDS[@]:0:rot}")
		# --retries 0 --timeout 1000: an answer that is not back within 1 s
		# is lost, and the flood ends 1 s after answers stop coming
		bench_sa_client "$SA_SM_DIR/flood.$tag.$k" "$host" "$NANOSM_SA" --timeout 1000 --retries 0 \
			flood "$n" "$SA_WINDOW" "${lids[@]}"
		FLOOD_PIDS+=("$SA_CLIENT_PID")
		FLOOD_OUTS+=("$SA_SM_DIR/flood.$tag.$k")
		k=$((k + 1))
	done
}

# bench_sa_flood_collect N: wait (bounded by the clients' timeout) and sum
# the clients' "flood: sent S answered A ok O errors E lost L in MS ms"
# lines; RES = "RATE ANSWERED ERRORS LOST MS" (answers/s = all answers over
# the longest client's time; LOST = asked - answered, including requests
# never sent) or "fail: why".
bench_sa_flood_collect() {
	local n=$1 p f a=0 e=0 lost=0 ms=0 line missing=0
	for p in "${FLOOD_PIDS[@]}"; do
		wait "$p" 2>/dev/null
		bench_forget "$p"
	done
	for f in "${FLOOD_OUTS[@]}"; do
		line=$(grep -m1 '^flood: sent' "$f")
		if [ -z "$line" ]; then
			missing=$((missing + 1))
			lost=$((lost + n))
			continue
		fi
		# shellcheck disable=SC2086 # the summary's words
		set -- $line
		# flood: sent S answered A ok O errors E lost L in MS ms: ...
		a=$((a + $5))
		e=$((e + ${9}))
		lost=$((lost + n - $5))
		[ "${13}" -gt "$ms" ] && ms=${13}
	done
	if [ "$missing" = "${#FLOOD_OUTS[@]}" ]; then
		RES="fail: no flood summary ($(head -c 120 "${FLOOD_OUTS[0]}" | tr '\n' ' '))"
		return
	fi
	RES="$(awk -v a="$a" -v ms="$ms" 'BEGIN { printf "%.0f", ms ? a * 1000 / ms : 0 }') $a $e $lost $ms"
}

# bench_sa_sweep SM: request one heavy sweep of the running SM and wait for
# its end (bounded).  nanosm: `nanosmctl sweep`, end = the "sweep N:" line
# (its sweep_ms is the sweep's own time); OpenSM: SIGHUP, end = the next
# "SUBNET UP" line (OpenSM logs one at the end of every heavy sweep).
# RES = "WALL_MS OWN_MS" (WALL: request to the end line's timestamp; OWN:
# nanosm's sweep_ms, "-" for OpenSM) or "fail: why".
bench_sa_sweep() {
	local sm=$1 next k tod0 line end own
	case $sm in
	nanosm)
		next=$(($(grep -oE 'nanosm: sweep [0-9]+:' "$SA_SM_LOG" | tail -n 1 | grep -oE '[0-9]+') + 1))
		tod0=$(bench_tod_ms)
		# SA_CTL_T: how long the daemon may take to take the request (5 s;
		# the live tier gives more: its sweeps hold the loop for seconds)
		timeout -k 2 $((${SA_CTL_T:-5} + 5)) "$NANOSMCTL" -s "$SA_SM_DIR/ctl.sock" -t "${SA_CTL_T:-5}" sweep >/dev/null 2>&1 ||
			{ RES="fail: nanosmctl sweep failed"; return; }
		bench_wait_file "$SA_SM_LOG" "nanosm: sweep $next: " "$SA_TIMEOUT" "$SA_SM_PID" ||
			{ RES="fail: sweep $next did not end within ${SA_TIMEOUT}s"; return; }
		line=$(grep -m1 "nanosm: sweep $next: " "$SA_SM_LOG")
		case $line in *"sweep $next: failed"*) RES="fail: $(echo "$line" | cut -c1-120)"; return ;; esac
		own=$(echo "$line" | grep -oE 'sweep_ms=[0-9]+' | cut -d= -f2)
		;;
	opensm)
		k=$(grep -cE -- '-> SUBNET UP' "$SA_SM_LOG")
		tod0=$(bench_tod_ms)
		kill -HUP "$SA_SM_PID"
		bench_wait_count "$SA_SM_LOG" '-> SUBNET UP' $((k + 1)) "$SA_TIMEOUT" "$SA_SM_PID" ||
			{ RES="fail: no SUBNET UP within ${SA_TIMEOUT}s of SIGHUP"; return; }
		line=$(grep -E -- '-> SUBNET UP' "$SA_SM_LOG" | sed -n "$((k + 1))p")
		own=-
		;;
	esac
	end=$(echo "$line" | bench_line_ms)
	[ "$end" -ge 0 ] || { RES="fail: no timestamp on: $line"; return; }
	RES="$(bench_ms_since "$tod0" "$end") $own"
}

# bench_sa_sweeps SM TAG: BENCH_SA_SWEEPS sweeps in a row; appends
# "WALL OWN" to the caller's arrays sw_wall_TAG / sw_own_TAG (via eval) or
# sets sw_fail.
bench_sa_sweeps() {
	local sm=$1 tag=$2 i
	for i in $(seq "$SA_SWEEPS"); do
		bench_sa_sweep "$sm"
		case $RES in fail*) sw_fail="$tag: $RES"; return 1 ;; esac
		eval "sw_wall_${sm}_$tag+=(\"\${RES%% *}\")"
		[ "${RES#* }" = - ] || eval "sw_own_${sm}_$tag+=(\"\${RES#* }\")"
	done
}

# bench_sa_alive PID...: 0 when every PID still runs.
bench_sa_alive() {
	local p
	for p in "$@"; do ps -p "$p" -o stat= 2>/dev/null | grep -qv Z || return 1; done
}

# bench_sa_run SM TOPO: one run on a fresh ibsim: SM up, CA LIDs, idle
# sweeps, a 1-client flood, a BENCH_SA_CLIENTS flood, then the same clients
# flooding (a long flood, stopped afterwards) while the sweeps are timed
# again.  Appends to the caller's (bench_sa_fabric's) arrays.
bench_sa_run() {
	local sm=$1 topo=$2 hosts=() nh i res p short=0
	mapfile -t hosts < <(grep -E '^[[:space:]]*(Hca|Ca)[[:space:]]' "$topo" | sed -E 's/^[^"]*"([^"]*)".*/\1/')
	nh=${#hosts[@]}
	# the SM on the first CA; clients spread over the others
	clients=()
	for ((i = 0; i < SA_CLIENTS; i++)); do clients+=("${hosts[1 + i * (nh - 1) / SA_CLIENTS]}"); done
	bench_sim_start "$topo" || { sa_fail[$sm]="ibsim cannot load the fabric"; return; }
	if ! bench_sa_sm_start "$sm" "${hosts[0]}"; then
		sa_fail[$sm]=$RES
		bench_sim_stop
		return
	fi
	if ! bench_sa_lids "${clients[0]}"; then
		sa_fail[$sm]="ibnetdiscover found no CA LIDs"
		bench_kill "$SA_SM_PID"
		bench_sim_stop
		return
	fi
	sw_fail=
	bench_sa_sweeps "$sm" idle
	bench_sa_flood_start 1 "$SA_N" "${clients[0]}"
	bench_sa_flood_collect "$SA_N"
	res=$RES
	bench_log "sa ${name} $sm run $r: 1 client: $res (answers/s answered errors lost ms)"
	case $res in fail*) sa_fail[$sm]=$res ;; *) eval "rate1_$sm+=(${res%% *})"; read -r _ _ e l _ <<<"$res"; eval "err1_$sm=\$((err1_$sm + e)); lost1_$sm=\$((lost1_$sm + l))" ;; esac
	bench_sa_flood_start m "$SA_N" "${clients[@]}"
	bench_sa_flood_collect "$SA_N"
	res=$RES
	bench_log "sa ${name} $sm run $r: ${#clients[@]} clients: $res"
	case $res in fail*) sa_fail[$sm]=$res ;; *) eval "ratem_$sm+=(${res%% *})"; read -r _ _ e l _ <<<"$res"; eval "errm_$sm=\$((errm_$sm + e)); lostm_$sm=\$((lostm_$sm + l))" ;; esac
	if [ -z "$sw_fail" ]; then
		# a flood far longer than the sweeps; stopped once they are timed
		bench_sa_flood_start s $((SA_N * 100)) "${clients[@]}"
		sleep 0.3
		bench_sa_sweeps "$sm" flood
		bench_sa_alive "${FLOOD_PIDS[@]}" || short=1
		for p in "${FLOOD_PIDS[@]}"; do bench_kill "$p"; done
		[ "$short" = 0 ] || sw_fail="a flood client ended before the sweeps did (BENCH_SA_TIMEOUT? see $SA_SM_DIR)"
	fi
	[ -z "$sw_fail" ] || { sa_swfail[$sm]=$sw_fail; bench_log "sa ${name} $sm run $r: sweeps: $sw_fail"; }
	eval "bench_log \"sa \${name} \$sm run \$r: sweeps idle ms [\${sw_wall_${sm}_idle[*]}] under flood [\${sw_wall_${sm}_flood[*]}]\""
	bench_kill "$SA_SM_PID"
	bench_sim_stop
}

# bench_sa_fabric NAME: alternate nanosm and OpenSM runs; table rows.
bench_sa_fabric() {
	local name=$1 topo r sm clients=()
	local -A sa_fail=() sa_swfail=()
	local rate1_nanosm=() rate1_opensm=() ratem_nanosm=() ratem_opensm=()
	local err1_nanosm=0 err1_opensm=0 lost1_nanosm=0 lost1_opensm=0
	local errm_nanosm=0 errm_opensm=0 lostm_nanosm=0 lostm_opensm=0
	local sw_wall_nanosm_idle=() sw_wall_nanosm_flood=() sw_own_nanosm_idle=() sw_own_nanosm_flood=()
	local sw_wall_opensm_idle=() sw_wall_opensm_flood=() sw_fail e l
	bench_sa_topo "$name"
	topo=$TOPO
	for r in $(seq "$SA_REPS"); do
		for sm in nanosm opensm; do
			[ -z "${sa_fail[$sm]:-}" ] || continue
			bench_sa_run "$sm" "$topo"
		done
	done
	bench_sa_rows "$name" "$(grep -cE '^[[:space:]]*(Hca|Ca)[[:space:]]' "$topo")"
}

# bench_sa_cell VALUES...: the median, or "-".
bench_sa_cell() {
	[ $# -gt 0 ] || { echo -; return; }
	bench_median "$@" | awk '{ printf "%.0f", $1 }'
}

bench_sa_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "-" }'
}

# bench_sa_rows NAME CAS (uses bench_sa_fabric's locals).
bench_sa_rows() {
	local n o ni nf oi of own_i own_f why
	n=$(bench_sa_cell "${rate1_nanosm[@]}")
	o=$(bench_sa_cell "${rate1_opensm[@]}")
	SA_ROWS+=("$1|$2|1|$n|$err1_nanosm|$lost1_nanosm|$o|$err1_opensm|$lost1_opensm|$(bench_sa_ratio "$n" "$o")")
	n=$(bench_sa_cell "${ratem_nanosm[@]}")
	o=$(bench_sa_cell "${ratem_opensm[@]}")
	SA_ROWS+=("$1|$2|$SA_CLIENTS|$n|$errm_nanosm|$lostm_nanosm|$o|$errm_opensm|$lostm_opensm|$(bench_sa_ratio "$n" "$o")")
	ni=$(bench_sa_cell "${sw_wall_nanosm_idle[@]}")
	nf=$(bench_sa_cell "${sw_wall_nanosm_flood[@]}")
	oi=$(bench_sa_cell "${sw_wall_opensm_idle[@]}")
	of=$(bench_sa_cell "${sw_wall_opensm_flood[@]}")
	own_i=$(bench_sa_cell "${sw_own_nanosm_idle[@]}")
	own_f=$(bench_sa_cell "${sw_own_nanosm_flood[@]}")
	why=
	for sm in nanosm opensm; do
		[ -z "${sa_fail[$sm]:-}" ] || why+="  $sm: ${sa_fail[$sm]}"
		[ -z "${sa_swfail[$sm]:-}" ] || why+="  $sm sweeps: ${sa_swfail[$sm]}"
	done
	SWEEP_ROWS+=("$1|$ni|$nf|$(bench_sa_ratio "$nf" "$ni")|$own_i|$own_f|$oi|$of|$(bench_sa_ratio "$of" "$oi")|$(bench_sa_ratio "$ni" "$oi")|$(bench_sa_ratio "$nf" "$of")|${#sw_wall_nanosm_flood[@]}/${#sw_wall_opensm_flood[@]}|$why")
}

bench_sa() {
	local name
	[ -n "${SA_FABRICS// /}" ] || return 0
	command -v ibsim >/dev/null || { bench_log "ibsim not installed: skipping the SA flood"; return 0; }
	command -v opensm >/dev/null || { bench_log "opensm not installed: skipping the SA flood"; return 0; }
	command -v ibnetdiscover >/dev/null || { bench_log "ibnetdiscover not installed: skipping the SA flood"; return 0; }
	[ -r "$UMAD2SIM" ] || { bench_log "umad2sim not found: skipping the SA flood"; return 0; }
	for name in "$NANOSM" "$NANOSM_SA" "$NANOSMCTL"; do
		[ -x "$name" ] || { bench_log "$name not built: skipping the SA flood"; return 0; }
	done
	{ [ "$SA_CLIENTS" -ge 1 ] && [ "$SA_CLIENTS" -le 8 ]; } ||
		bench_die "BENCH_SA_CLIENTS must be 1-8 (ibsim takes 10 clients, the SM is one)"
	bench_log "SA PathRecord flood: fabrics [$SA_FABRICS], N=$SA_N window $SA_WINDOW, 1 and $SA_CLIENTS clients, $SA_SWEEPS sweeps idle/under flood, $SA_REPS runs per SM"
	for name in $SA_FABRICS; do bench_sa_fabric "$name"; done
}

bench_report_sa() {
	local row f c k n ne nl o oe ol ratio ni nf ns oi_ of os own_i own_f ri rf cnt why
	[ ${#SA_ROWS[@]} -gt 0 ] || return 0
	echo
	echo "== SA PathRecord flood under ibsim: nanosm-sa flood N=$SA_N window $SA_WINDOW per client, -R $SA_ENGINE =="
	echo "   answers/s: median of $SA_REPS runs (fresh ibsim each; with several clients all answers over"
	echo "   the longest client's time); err = answers with an error status, lost = asked - answered,"
	echo "   both summed over the runs; ratio = nanosm / OpenSM answers/s (above 1: nanosm answers more)"
	printf '%-10s %5s %7s %10s %5s %6s %10s %5s %6s %6s\n' fabric CAs clients nanosm_ans/s err lost OpenSM_ans/s err lost ratio
	for row in "${SA_ROWS[@]}"; do
		IFS='|' read -r f c k n ne nl o oe ol ratio <<<"$row"
		printf '%-10s %5s %7s %10s %5s %6s %10s %5s %6s %6s\n' "$f" "$c" "$k" "$n" "$ne" "$nl" "$o" "$oe" "$ol" "$ratio"
	done
	echo
	echo "== Heavy sweep under the flood: ms from the request (nanosmctl sweep / SIGHUP) to the sweep's end line =="
	echo "   idle vs during a $SA_CLIENTS-client flood; median of $SA_SWEEPS sweeps x $SA_REPS runs; slow = flood / idle;"
	echo "   own = nanosm's sweep_ms (sweep start to end; request-to-end minus own = wait before the sweep starts);"
	echo "   n/O = nanosm / OpenSM (below 1: nanosm sweeps faster); swept = sweeps timed under flood nanosm/OpenSM"
	printf '%-10s %8s %8s %6s %6s %6s  %8s %8s %6s  %6s %6s %7s\n' fabric n_idle n_flood slow own_i own_f O_idle O_flood slow n/O_idle n/O_fl swept
	for row in "${SWEEP_ROWS[@]}"; do
		IFS='|' read -r f ni nf ns own_i own_f oi_ of os ri rf cnt why <<<"$row"
		printf '%-10s %8s %8s %6s %6s %6s  %8s %8s %6s  %6s %6s %7s\n' "$f" "$ni" "$nf" "$ns" "$own_i" "$own_f" "$oi_" "$of" "$os" "$ri" "$rf" "$cnt"
		[ -z "$why" ] || echo "          ${why# }"
	done
}
