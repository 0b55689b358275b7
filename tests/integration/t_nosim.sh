#!/bin/bash
# nosim: a wrong IBSIM_SOCKNAME (no ibsim behind it).  umad2sim then
# retries its connection for ever inside libibumad; nanosm and
# nanosm-verify must give up opening the port within their 10 s bound,
# say why (naming IBSIM_SOCKNAME) and exit non-zero, not hang.  nanosm
# --ibsim (ibsim's own protocol, no preload) gives up within 2 s.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

it_init nosim
# no sim_start: nothing listens on this socket name
IT_SOCK="${IT_SOCK_BASE}-nobody"
SIM_HOST_DEFAULT=host1

it_step "nanosm with IBSIM_SOCKNAME=$IT_SOCK (no ibsim)"
t0=$(date +%s)
sm_start
sm_wait_exit 30
secs=$(($(date +%s) - t0))
IT_LAST_OUT=$SM_LOG
[ "$SM_RC" = 1 ] || it_fail "nanosm exited with status $SM_RC, expected 1"
grep -q "NSM-E501 cannot open the umad port: no answer within 10 s (under umad2sim: is ibsim running with IBSIM_SOCKNAME=$IT_SOCK?)" "$SM_LOG" ||
	it_fail "nanosm did not say why it could not open its port"
it_log "   nanosm gave up after ${secs}s: $(grep -o 'NSM-E501.*' "$SM_LOG")"

it_step "nanosm --ibsim with the same socket name"
out=$IT_SCRATCH/direct.out
IT_LAST_OUT=$out
t0=$(date +%s%N)
(cd "$IT_RUN" && IBSIM_SOCKNAME=$IT_SOCK SIM_HOST=host1 timeout -k 2 20 "$NANOSM" --ibsim --once \
	--socket none --guid2lid "$IT_SCRATCH/g2l") >"$out" 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc = 1 ] || it_fail "nanosm --ibsim exited with status $rc, expected 1"
grep -q "NSM-E501 no ibsim on socket name \"$IT_SOCK\" (IBSIM_SOCKNAME)" "$out" ||
	it_fail "nanosm --ibsim did not say why it could not attach"
[ $ms -lt 10000 ] || it_fail "nanosm --ibsim took $ms ms to give up (bound: 2 s)"
it_log "   nanosm --ibsim gave up after $ms ms: $(grep -o 'NSM-E501.*' "$out")"

it_step "nanosm-verify with the same socket name"
out=$IT_SCRATCH/verify.out
IT_LAST_OUT=$out
t0=$(date +%s)
sim_client "$REPO/build/bin/nanosm-verify" >"$out" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
[ $rc = 2 ] || it_fail "nanosm-verify exited with status $rc, expected 2 (124: the client bound killed it)"
grep -q "no answer within 10 s (under umad2sim: is ibsim running with IBSIM_SOCKNAME=$IT_SOCK?)" "$out" ||
	it_fail "nanosm-verify did not say why it could not open its port"
it_log "   nanosm-verify gave up after ${secs}s (status 2)"
it_pass
