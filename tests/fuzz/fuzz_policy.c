/*
 * fuzz_policy.c - libFuzzer target for config/: policy_parse on arbitrary
 * text.  A policy it accepts must print (policy_print) as text that parses
 * back to an equal policy with no differences (policy_diff); a refused one
 * is left empty with a one-line "name:line:col: ..." message.  Touches
 * nothing but config/ (and the engine table it names engines from).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_POLICY_CHECK(cond)                                                                \
	do {                                                                                   \
		if (!(cond))                                                                   \
			__builtin_trap();                                                      \
	} while (0)

static void fuzz_policy_check_empty(const struct policy *p)
{
	struct policy def;

	policy_init(&def);
	FUZZ_POLICY_CHECK(policy_equal(p, &def));
	FUZZ_POLICY_CHECK(!p->routing.roots && !p->lids.statics && !p->node_names &&
			  !p->partitions);
}

static void fuzz_policy_roundtrip(const struct policy *p)
{
	struct policy back;
	char err[512];
	size_t need = policy_print(p, NULL, 0);
	char *text = malloc(need + 1);

	if (!text)
		return;
	FUZZ_POLICY_CHECK(policy_print(p, text, need + 1) == need);
	FUZZ_POLICY_CHECK(strlen(text) == need);
	FUZZ_POLICY_CHECK(policy_parse(text, need, "printed", &back, err, sizeof(err)) == 0);
	FUZZ_POLICY_CHECK(policy_equal(p, &back));
	FUZZ_POLICY_CHECK(policy_diff(p, &back, NULL, 0) == 0);
	policy_fini(&back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p;
	char err[512];
	int rc;

	memset(err, 'x', sizeof(err));
	rc = policy_parse((const char *)data, size, "fuzz.yaml", &p, err, sizeof(err));
	if (rc < 0) {
		FUZZ_POLICY_CHECK(rc == -EINVAL || rc == -ENOMEM);
		FUZZ_POLICY_CHECK(memchr(err, '\0', sizeof(err)) && err[0] != '\0');
		FUZZ_POLICY_CHECK(!strchr(err, '\n'));
		fuzz_policy_check_empty(&p);
		return 0;
	}
	FUZZ_POLICY_CHECK(rc == 0);
	fuzz_policy_roundtrip(&p);
	policy_fini(&p);
	return 0;
}
