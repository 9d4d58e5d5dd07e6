/*
 * fuzz_calib.c: calibration files (`skip advise --calibration FILE`: the reader in
 * cli/util.c fills struct skip_calibration through skip_calibration_keys, advisor/
 * model.c) and what the advisor's models do with the values read. The input is the file's
 * text. Each input runs `skip advise` itself (cmd_advise()) on two hand-built traces: a
 * whole-run model (tests/fixtures/hand/advise_model.sql, as text) and a workload run
 * (advise_wl.sql with --workload advise_wl.json, as JSON). stdout goes to /dev/null; run it
 * with -close_fd_mask=2 as `make fuzz` does, or the refusals flood stderr.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "fuzz.h"

static char model[320], wl[320], wl_json[600];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	snprintf(model, sizeof(model), "%s", fz_path("model.skip.db"));
	snprintf(wl, sizeof(wl), "%s", fz_path("wl.skip.db"));
	snprintf(wl_json, sizeof(wl_json), "%s", fz_src("tests/fixtures/hand/advise_wl.json"));
	fz_hand_trace(model, "advise_model", NULL);
	fz_hand_trace(wl, "advise_wl", NULL);
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *cal = fz_path("calibration.json");
	char *a1[] = {"advise", "--calibration", (char *)cal, model, NULL};
	char *a2[] = {"advise", "--json", "--calibration", (char *)cal, "--workload", wl_json,
		      wl,	NULL};

	fz_write(cal, data, size);
	cmd_advise(4, a1);
	cmd_advise(7, a2);
	return 0;
}
