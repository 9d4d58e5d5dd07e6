/*
 * util.c: small helpers shared by the subcommands: usage errors, number formatting, output
 * errors, calibration files.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "skip_advisor.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "skip %s: error: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'skip %s --help'.\n", cmd);
	return EXIT_USAGE;
}

const char *cli_group(char *buf, size_t n, long long v)
{
	char tmp[32];
	int len, out = 0, lead;
	unsigned long long u = v < 0 ? (unsigned long long)-v : (unsigned long long)v;

	len = snprintf(tmp, sizeof(tmp), "%llu", u);
	lead = len % 3 ? len % 3 : 3;
	if (v < 0 && out + 1 < (int)n)
		buf[out++] = '-';
	for (int i = 0; i < len && out + 2 < (int)n; i++) {
		if (i && (i - lead) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = tmp[i];
	}
	buf[out] = '\0';
	return buf;
}

const char *cli_bytes(char *buf, size_t n, double bytes)
{
	static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
	int u = 0;

	while (bytes >= 1000.0 && u < 4) {
		bytes /= 1000.0;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
	return buf;
}

int cli_output_error(const char *cmd, int err)
{
	fprintf(stderr, "skip %s: error: %s\n", cmd, skip_errmsg());
	return err == SKIP_E_EXISTS || err == SKIP_E_INVAL ? EXIT_USAGE : EXIT_ERR;
}

int cli_new_trace(const char *cmd, struct skip_outfile *out, const char *path, int force,
		  const char *const *inputs, size_t ninputs, sqlite3 **db)
{
	int err = skip_outfile_open(out, path, SKIP_OUT_TRACE, force, inputs, ninputs);

	*db = NULL;
	if (err == SKIP_E_EXISTS && !force) {
		fprintf(stderr,
			"skip %s: error: %s exists; use -f to overwrite it or -o to choose another "
			"file\n",
			cmd, path);
		return EXIT_USAGE;
	}
	if (!err)
		err = skip_store_create(out->tmp, SKIP_STORE_OVERWRITE, db);
	if (err) {
		skip_outfile_abort(out);
		return cli_output_error(cmd, err);
	}
	return 0;
}

#define CALIBRATION_MAX_BYTES (1 << 20) /* a calibration file is a few hundred bytes */

int cli_load_calibration(const char *path, struct skip_calibration *cal)
{
	char *text;
	int err = skip_read_file(path, CALIBRATION_MAX_BYTES, &text, NULL);

	if (err)
		return err;
	err = skip_calibration_parse(text, path, cal);
	free(text);
	return err;
}
