/* suites.c - every unit-test suite, in the order they run. */
#include "tests/unit/unit.h"
#include <stddef.h>

const unit_register_fn unit_suites[] = {
    test_text_register,	      test_port_args_register, test_smp_register,
    test_fabric_register,     test_dr_walk_register,   test_topo_register,
    test_swgraph_register,    test_minhop_register,    test_lid_alloc_register,
    test_guid2lid_register,   test_mad_queue_register, test_sweep_register,
    test_updn_register,	      test_ftree_register,     test_check_register,
    test_score_register,      test_lft_file_register,  test_gate_register,
    test_verify_register,     test_ping_register,      test_policy_register,
    test_topo_write_register, test_control_register,   test_sa_register,
    test_light_register,      test_pkey_register,      test_pkey_member_register,
    test_sl2vl_register,      test_sa_svc_register,    test_sa_path_register,
    test_sa_topo_register,    test_mcast_register,     test_mkey_register,
    test_restart_register,    test_standby_register,   test_quarantine_register,
    test_lft_order_register,  test_log_register,       test_notify_register,
    test_metrics_register,    test_progress_register,  test_reload_register,
    test_vlsp_register,	      test_draw_register,      test_vsim_path_register,
    NULL,
};
