/*
 * sm/sa/modules.h - the SA's table of modules: which handler answers which
 * attribute, and the life-cycle hooks of each module's state.  server.c calls
 * these; modules.c is the one place that knows every module.
 */
#ifndef NANOSM_SM_SA_MODULES_H
#define NANOSM_SM_SA_MODULES_H

#include <stdint.h>

#include "sm/sa/server.h"

/* The handler for an attribute, NULL when the SA does not serve it. */
sa_handler_fn sa_modules_handler(uint16_t attr_id);
int sa_modules_new(struct sa *sa); /* 0 or -ENOMEM */
void sa_modules_free(struct sa *sa);
/* After sa_update rebuilt the maps; routes_changed: route_gen moved. */
void sa_modules_update(struct sa *sa, int routes_changed);
uint64_t sa_modules_tick(struct sa *sa, uint64_t now_ms); /* next due, 0: none */
/* A response MAD (e.g. ReportResp) addressed to the SA. */
void sa_modules_response(struct sa *sa, const struct sa_mad *m);

#endif
