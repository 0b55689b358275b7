/* suites.c - every unit-test suite, in the order they run. */
#include "tests/unit/unit.h"
#include <stddef.h>

const unit_register_fn unit_suites[] = {
	test_smp_register,
	test_fabric_register,
	test_topo_register,
	test_swgraph_register,
	test_minhop_register,
	test_lid_alloc_register,
	test_guid2lid_register,
	test_mad_queue_register,
	test_sweep_register,
	test_updn_register,
	test_ftree_register,
	test_check_register,
	test_score_register,
	test_lft_file_register,
	test_gate_register,
	test_verify_register,
	test_ping_register,
	test_policy_register,
	test_topo_write_register,
	test_control_register,
	test_sa_register,
	test_pkey_register,
	test_sa_svc_register,
	test_sa_path_register,
	test_sa_topo_register,
	test_mcast_register,
	test_mkey_register,
	NULL,
};
