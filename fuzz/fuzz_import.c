/*
 * fuzz_import.c: skip import on damaged torch.profiler traces. The input is the bytes of a
 * trace file (JSON, or gzip: zlib tells them apart); it is imported into a fresh skip trace
 * (import/skip_import.h) and, when that succeeds, the result goes the way `skip report` and
 * `skip advise` take a trace (fz_drive_trace()). A refused input must leave no run behind
 * (the import is one transaction), else abort. Seeds: the JSON files of tests/fixtures/torchprof
 * (fuzz/corpus.sh).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "skip_import.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char in[512], out[512];
	struct skip_import_opts o = {.max_bytes = 1 << 20};
	struct skip_importer *im;
	sqlite3 *db = NULL;
	int err;

	snprintf(in, sizeof(in), "%s", fz_path("in.json"));
	snprintf(out, sizeof(out), "%s", fz_path("import.skip.db"));
	fz_write(in, data, size);
	fz_unlink_db(out);
	if (skip_store_create(out, 0, &db))
		abort(); /* the harness, not a finding */
	im = skip_importer_new(db, &err);
	if (!im)
		abort();
	err = skip_importer_add(im, in, &o, NULL);
	skip_importer_free(im);
	if (err && sk_db_int(db, -1, "SELECT count(*) FROM SKIP_RUNS") != 0) {
		fprintf(stderr, "fuzz_import: a refused input left a run: %s\n", skip_errmsg());
		abort();
	}
	if (!err && skip_store_finalize(db) == 0) {
		sqlite3_close(db);
		db = NULL;
		fz_drive_trace(out);
	}
	sqlite3_close(db);
	fz_unlink_db(out);
	return 0;
}
