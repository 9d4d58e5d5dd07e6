/*
 * scratch.h: a test's scratch folder under /tmp, made by the suite's .init and removed by its
 * .fini (kept with SKIP_KEEP set, to look at what a failing test left).
 */
#ifndef SKIP_TEST_SCRATCH_H
#define SKIP_TEST_SCRATCH_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* Make /tmp/TAG-XXXXXX into @dir (@n bytes); fails the test when it cannot. */
static inline void sk_scratch_make(char *dir, size_t n, const char *tag)
{
	snprintf(dir, n, "/tmp/%s-XXXXXX", tag);
	cr_assert_not_null(mkdtemp(dir), "cannot make a scratch folder under /tmp");
}

/* Remove @dir and everything in it (nothing when @dir is empty or SKIP_KEEP is set). */
static inline void sk_scratch_remove(const char *dir)
{
	char cmd[4200];

	if (!dir[0] || getenv("SKIP_KEEP"))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

#endif
