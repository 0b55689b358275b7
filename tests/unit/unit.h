/* unit.h - the list of unit-test suites (one register function per file). */
#ifndef NANOSM_TESTS_UNIT_H
#define NANOSM_TESTS_UNIT_H

typedef void (*unit_register_fn)(void);
extern const unit_register_fn unit_suites[];

void test_text_register(void);
void test_port_args_register(void);
void test_smp_register(void);
void test_fabric_register(void);
void test_dr_walk_register(void);
void test_topo_register(void);
void test_minhop_register(void);
void test_lid_alloc_register(void);
void test_guid2lid_register(void);
void test_mad_queue_register(void);
void test_sweep_register(void);
void test_updn_register(void);
void test_engine_digest_register(void);
void test_updn_limits_register(void);
void test_ftree_register(void);
void test_check_register(void);
void test_check_ref_register(void);
void test_score_register(void);
void test_lft_file_register(void);
void test_gate_register(void);
void test_verify_register(void);
void test_swgraph_register(void);
void test_ping_proto_register(void);
void test_ping_opts_register(void);
void test_ping_report_register(void);
void test_ping_peer_register(void);
void test_ping_serve_register(void);
void test_ping_chan_register(void);
void test_policy_register(void);
void test_topo_write_register(void);
void test_control_register(void);
void test_sa_register(void);
void test_light_register(void);
void test_pkey_register(void);
void test_pkey_member_register(void);
void test_sl2vl_register(void);
void test_sa_svc_register(void);
void test_sa_limits_register(void);
void test_mad_sender_register(void);
void test_mad_ibsim_register(void);
void test_sa_path_register(void);
void test_sa_topo_register(void);
void test_mcast_register(void);
void test_mkey_register(void);
void test_restart_register(void);
void test_standby_register(void);
void test_quarantine_register(void);
void test_lft_order_register(void);
void test_log_register(void);
void test_notify_register(void);
void test_metrics_register(void);
void test_progress_register(void);
void test_reload_register(void);
void test_vlsp_register(void);
void test_vlsp_pick_register(void);
void test_vlsp_path_register(void);
void test_vlsp_polish_register(void);
void test_draw_register(void);
void test_vsim_path_register(void);
void test_pma_register(void);
void test_perf_register(void);
void test_perfmgr_register(void);
void test_ftree_shift_register(void);

#endif
