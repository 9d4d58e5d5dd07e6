/*
 * hand.h: shared by the analyzer tests: build a trace from the hand-written SQL of
 * tests/fixtures/hand (common.sql, then NAME.sql) in a folder the caller owns.
 */
#ifndef SKIP_TEST_HAND_H
#define SKIP_TEST_HAND_H

#include "skip_analyzer.h"

/* The whole file, NUL-terminated (caller frees); fails the test when it cannot be read. */
char *hand_slurp(const char *path);
/* Create DIR/NAME.skip.db from common.sql + NAME.sql and open it for analysis; fails the test
 * on any error. Close with skip_trace_close(). */
struct skip_trace *hand_trace(const char *dir, const char *name);
/* The same from common.sql + NAME.sql + MORE.sql (a trace that extends another). */
struct skip_trace *hand_trace_more(const char *dir, const char *name, const char *more);

/* An operator stack of @t as "outer>mid>inner" (range texts, outermost first), "" for 0; in a
 * static buffer, valid until the next call. */
const char *hand_stack_text(const struct skip_trace *t, uint32_t stack);

#endif
