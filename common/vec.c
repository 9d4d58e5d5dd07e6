/*
 * vec.c: the growth step behind SK_VEC_RESERVE() and SK_VEC_PUSH() (skip_common.h), shared by
 * every growable array: the capacity becomes twice what it was, or @need when that is more
 * (16 elements at least), with the byte count checked for overflow. Doubling makes n appends
 * cost O(n); taking @need as it is keeps a reservation made from a known count exact.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "skip_common.h"

#define MIN_ELEMS 16

void *sk_vec_grow(void *v, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap > SIZE_MAX / 2 ? SIZE_MAX : *cap * 2;
	void *nv;

	if (need <= *cap)
		return v;
	if (ncap < need)
		ncap = need;
	if (ncap < MIN_ELEMS)
		ncap = MIN_ELEMS;
	if (ncap > (size_t)PTRDIFF_MAX / (elem ? elem : 1)) /* more than malloc() can give */
		goto nomem;
	nv = realloc(v, elem ? ncap * elem : 1);
	if (!nv)
		goto nomem;
	*cap = ncap;
	return nv;
nomem:
	sk_fail(SKIP_E_NOMEM, "out of memory");
	return NULL;
}

void *sk_vec_xgrow(void *v, size_t *cap, size_t need, size_t elem)
{
	void *nv = sk_vec_grow(v, cap, need, elem);

	if (!nv) {
		fprintf(stderr,
			"skip: error: out of memory (an array of %zu elements of %zu bytes)\n",
			need, elem);
		abort();
	}
	return nv;
}
