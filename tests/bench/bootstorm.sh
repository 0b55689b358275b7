# shellcheck shell=bash
# tests/bench/bootstorm.sh - sourced by run.sh: the multicast boot storm
# (issue 21).  BENCH_BOOT_HOSTS hosts (at most 8: ibsim takes 10 clients,
# the SM is one) each create BENCH_BOOT_N multicast groups at once, with
# BENCH_BOOT_WINDOW joins on the wire per host (`nanosm-sa crowd groups`:
# full joins of new MGIDs, distinct per host, as IPoIB and IPv6 ask for
# their groups when a cluster boots), against nanosm and OpenSM on a fresh
# ibsim each run; joins/s = all joins answered over the slowest host's time.

BOOT_FABRICS=${BENCH_BOOT-fattree64}
BOOT_HOSTS=${BENCH_BOOT_HOSTS:-8}
BOOT_N=${BENCH_BOOT_N:-100}
BOOT_WINDOW=${BENCH_BOOT_WINDOW:-4}
BOOT_REPS=${BENCH_BOOT_REPS:-3}
BOOT_ROWS=()

# bench_boot_run SM TOPO: one boot storm on a fresh ibsim; appends the
# joins/s to boot_rate_SM (bench_boot_fabric's locals) or sets boot_fail.
bench_boot_run() {
	local sm=$1 topo=$2 hosts=() clients=() nh i host res
	mapfile -t hosts < <(grep -E '^[[:space:]]*(Hca|Ca)[[:space:]]' "$topo" | sed -E 's/^[^"]*"([^"]*)".*/\1/')
	nh=${#hosts[@]}
	for ((i = 0; i < BOOT_HOSTS && i + 1 < nh; i++)); do clients+=("${hosts[1 + i * (nh - 1) / BOOT_HOSTS]}"); done
	bench_sim_start "$topo" || { boot_fail[$sm]="ibsim cannot load the fabric"; return; }
	if ! bench_sa_sm_start "$sm" "${hosts[0]}"; then
		boot_fail[$sm]=$RES
		bench_sim_stop
		return
	fi
	FLOOD_PIDS=()
	FLOOD_OUTS=()
	i=0
	for host in "${clients[@]}"; do
		bench_sa_client "$SA_SM_DIR/boot.$i" "$host" "$NANOSM_SA" --timeout 2000 --retries 2 \
			crowd groups "$BOOT_N" "$BOOT_WINDOW"
		FLOOD_PIDS+=("$SA_CLIENT_PID")
		FLOOD_OUTS+=("$SA_SM_DIR/boot.$i")
		i=$((i + 1))
	done
	bench_sa_flood_collect "$BOOT_N"
	res=$RES
	bench_log "boot ${name} $sm run $r: ${#clients[@]} hosts x $BOOT_N groups: $res (joins/s answered errors lost ms)"
	case $res in
	fail*) boot_fail[$sm]=$res ;;
	*)
		eval "boot_rate_$sm+=(${res%% *})"
		read -r _ _ e l _ <<<"$res"
		eval "boot_err_$sm=\$((boot_err_$sm + e)); boot_lost_$sm=\$((boot_lost_$sm + l))"
		;;
	esac
	bench_kill "$SA_SM_PID"
	bench_sim_stop
}

bench_boot_fabric() {
	local name=$1 topo r sm n o why=
	local -A boot_fail=()
	local boot_rate_nanosm=() boot_rate_opensm=() boot_err_nanosm=0 boot_err_opensm=0
	# shellcheck disable=SC2034 # e, l: bench_boot_run's scratch; the arrays by eval
	local boot_lost_nanosm=0 boot_lost_opensm=0 e l
	bench_sa_topo "$name"
	topo=$TOPO
	for r in $(seq "$BOOT_REPS"); do
		for sm in nanosm opensm; do
			[ -z "${boot_fail[$sm]:-}" ] || continue
			bench_boot_run "$sm" "$topo"
		done
	done
	n=$(bench_sa_cell "${boot_rate_nanosm[@]}")
	o=$(bench_sa_cell "${boot_rate_opensm[@]}")
	for sm in nanosm opensm; do
		[ -z "${boot_fail[$sm]:-}" ] || why+="  $sm: ${boot_fail[$sm]}"
	done
	BOOT_ROWS+=("$name|$n|$boot_err_nanosm|$boot_lost_nanosm|$o|$boot_err_opensm|$boot_lost_opensm|$(bench_sa_ratio "$n" "$o")|$why")
}

bench_boot() {
	local name
	[ -n "${BOOT_FABRICS// /}" ] || return 0
	if ! command -v ibsim >/dev/null || ! command -v opensm >/dev/null || [ ! -r "$UMAD2SIM" ] ||
		[ ! -x "$NANOSM" ] || [ ! -x "$NANOSM_SA" ]; then
		bench_log "ibsim, opensm, umad2sim or nanosm-sa missing: skipping the boot storm"
		return 0
	fi
	{ [ "$BOOT_HOSTS" -ge 1 ] && [ "$BOOT_HOSTS" -le 8 ]; } ||
		bench_die "BENCH_BOOT_HOSTS must be 1-8 (ibsim takes 10 clients, the SM is one)"
	bench_log "multicast boot storm: fabrics [$BOOT_FABRICS], $BOOT_HOSTS hosts x $BOOT_N new groups, $BOOT_WINDOW on the wire each, $BOOT_REPS runs per SM"
	for name in $BOOT_FABRICS; do bench_boot_fabric "$name"; done
}

bench_report_boot() {
	local row f n ne nl o oe ol ratio why
	[ ${#BOOT_ROWS[@]} -gt 0 ] || return 0
	echo
	echo "== Multicast boot storm: $BOOT_HOSTS hosts each creating $BOOT_N groups at once ($BOOT_WINDOW on the wire each) =="
	echo "   joins/s = joins answered over the slowest host's time; median of $BOOT_REPS runs; err = answers"
	echo "   with an error status, lost = joins not answered in time (summed over the runs)"
	printf '%-10s %9s %5s %5s  %9s %5s %5s  %6s\n' fabric nanosm err lost OpenSM err lost ratio
	for row in "${BOOT_ROWS[@]}"; do
		IFS='|' read -r f n ne nl o oe ol ratio why <<<"$row"
		printf '%-10s %9s %5s %5s  %9s %5s %5s  %6s\n' "$f" "$n" "$ne" "$nl" "$o" "$oe" "$ol" "$ratio"
		[ -z "$why" ] || echo "          ${why# }"
	done
}
