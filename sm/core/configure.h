/*
 * sm/core/configure.h - what configure.c tells the rest of sm/ beyond sm_priv.h.
 */
#ifndef NANOSM_SM_CORE_CONFIGURE_H
#define NANOSM_SM_CORE_CONFIGURE_H

#include <stdint.h>

struct sm;

/* The state a running configure_states walk moves ports to while it is
 * still queueing batches of nodes, else 0 (the progress line's phase). */
uint8_t configure_states_busy(const struct sm *sm);

#endif
