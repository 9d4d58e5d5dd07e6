/*
 * kernel_names.c: the demangled name the collector stores for a kernel besides CUPTI's mangled
 * one, through the C++ runtime's __cxa_demangle. The "short name" nsys shows comes from
 * common's sk_short_name(). The sink (records.c) caches their StringIds ids per name pointer.
 */
#define SK_LOG_DOMAIN "collector"
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* From the C++ ABI (libstdc++ / libc++abi); declared here so the collector stays C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *sk_demangle(const char *mangled)
{
	int status = 0;
	char *d;

	if (!mangled || strncmp(mangled, "_Z", 2) != 0)
		return NULL;
	d = __cxa_demangle(mangled, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}
