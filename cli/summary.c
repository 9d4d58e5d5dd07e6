/*
 * summary.c: the block of counts `skip record` ends with and `skip info` prints.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "cmd.h"

int cli_print_summary(FILE *out, sqlite3 *db, const char *path)
{
	struct skip_store_summary s;
	struct stat st;
	char a[32], b[32], c[32];

	skip_store_summarize(db, &s);
	fprintf(out, "  %-16s %s", "runs", cli_group(a, sizeof(a), s.runs));
	if (s.baseline_runs)
		fprintf(out, "  (%lld baseline)", (long long)s.baseline_runs);
	if (s.failed_runs)
		fprintf(out, "  (%lld failed)", (long long)s.failed_runs);
	fprintf(out, "\n  %-16s %s\n", "processes", cli_group(a, sizeof(a), s.processes));
	fprintf(out, "  %-16s %s\n", "kernels", cli_group(a, sizeof(a), s.kernels));
	fprintf(out, "  %-16s %s  (runtime %s, driver %s)\n", "API calls",
		cli_group(a, sizeof(a), s.runtime_calls + s.driver_calls),
		cli_group(b, sizeof(b), s.runtime_calls), cli_group(c, sizeof(c), s.driver_calls));
	fprintf(out, "  %-16s %s  (marks %s)\n", "NVTX ranges",
		cli_group(a, sizeof(a), s.nvtx_ranges), cli_group(b, sizeof(b), s.nvtx_marks));
	fprintf(out, "  %-16s %s  (%s)\n", "memcpys", cli_group(a, sizeof(a), s.memcpys),
		cli_bytes(b, sizeof(b), (double)s.memcpy_bytes));
	fprintf(out, "  %-16s %s\n", "memsets", cli_group(a, sizeof(a), s.memsets));
	if (s.syncs || !s.sync_calls)
		fprintf(out, "  %-16s %s\n", "syncs", cli_group(a, sizeof(a), s.syncs));
	else /* the default: the calls, not CUPTI's records */
		fprintf(out, "  %-16s %s  (calls; CUPTI's records with --trace sync-records)\n",
			"syncs", cli_group(a, sizeof(a), s.sync_calls));
	if (s.graph_launches)
		fprintf(out, "  %-16s %s\n", "graph launches",
			cli_group(a, sizeof(a), s.graph_launches));
	if (sk_db_int(db, 0,
		      "SELECT count(*) FROM SKIP_METADATA WHERE key = 'unavailable' AND "
		      "instr(value, 'dropped_records') > 0"))
		fprintf(out, "  %-16s unknown (not in torch.profiler traces)\n", "dropped records");
	else
		fprintf(out, "  %-16s %s%s\n", "dropped records",
			cli_group(a, sizeof(a), s.dropped),
			s.dropped ? "  (see SKIP_DROPS: the trace is incomplete)" : "");
	if (s.gpu[0])
		fprintf(out, "  %-16s %s\n", "GPU", s.gpu);
	if (path && stat(path, &st) == 0)
		fprintf(out, "  %-16s %s (%s)\n", "file", path,
			cli_bytes(a, sizeof(a), (double)st.st_size));
	return 0;
}
