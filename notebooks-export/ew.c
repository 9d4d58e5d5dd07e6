/*
 * ew.c: the buffered writer of internal.h: hand-formatted integers and microseconds, JSON
 * string escaping with UTF-8 checked, so that the exporters write gigabytes at disk speed.
 */
#include <string.h>

#include "internal.h"

void sk_ew_init(struct ew *w, FILE *f)
{
	w->f = f;
	w->n = 0;
	w->err = 0;
	w->bytes = 0;
}

static void drain(struct ew *w)
{
	if (!w->err && w->n && fwrite(w->buf, 1, w->n, w->f) != w->n)
		w->err = SKIP_E_IO;
	w->bytes += (int64_t)w->n;
	w->n = 0;
}

int sk_ew_flush(struct ew *w)
{
	drain(w);
	if (!w->err && fflush(w->f))
		w->err = SKIP_E_IO;
	return w->err;
}

void sk_ew_mem(struct ew *w, const char *s, size_t n)
{
	while (n) {
		size_t room = sizeof(w->buf) - w->n, k = n < room ? n : room;

		memcpy(w->buf + w->n, s, k);
		w->n += k;
		s += k;
		n -= k;
		if (w->n == sizeof(w->buf))
			drain(w);
	}
}

void sk_ew_str(struct ew *w, const char *s)
{
	sk_ew_mem(w, s, strlen(s));
}

void sk_ew_chr(struct ew *w, char c)
{
	if (w->n == sizeof(w->buf))
		drain(w);
	w->buf[w->n++] = c;
}

void sk_ew_i64(struct ew *w, int64_t v)
{
	char tmp[24];
	int i = (int)sizeof(tmp);
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[--i] = '-';
	sk_ew_mem(w, tmp + i, sizeof(tmp) - (size_t)i);
}

void sk_ew_us(struct ew *w, int64_t ns)
{
	uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	char frac[4] = {(char)('0' + u % 1000 / 100), (char)('0' + u % 100 / 10),
			(char)('0' + u % 10), 0};

	if (ns < 0)
		sk_ew_chr(w, '-');
	sk_ew_i64(w, (int64_t)(u / 1000));
	sk_ew_chr(w, '.');
	sk_ew_mem(w, frac, 3);
}

/* Length of the valid UTF-8 sequence at @s (@n bytes left), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0xC2 || s[0] > 0xF4)
		return 0;
	len = s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0x7F >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return len;
}

void sk_ew_json_n(struct ew *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	sk_ew_chr(w, '"');
	while (i < n) {
		unsigned char c = p[i];
		size_t len = 1;

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			run++;
			continue;
		}
		sk_ew_mem(w, (const char *)p + i - run, run);
		run = 0;
		if (c >= 0x80) {
			len = utf8_len(p + i, n - i);
			if (len)
				sk_ew_mem(w, (const char *)p + i, len);
			else
				sk_ew_str(w, "\xEF\xBF\xBD");
			i += len ? len : 1;
			continue;
		}
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};

			sk_ew_mem(w, e, 2);
		} else if (c == '\n') {
			sk_ew_str(w, "\\n");
		} else if (c == '\t') {
			sk_ew_str(w, "\\t");
		} else if (c == '\r') {
			sk_ew_str(w, "\\r");
		} else {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

			sk_ew_mem(w, e, 6);
		}
		i++;
	}
	sk_ew_mem(w, (const char *)p + i - run, run);
	sk_ew_chr(w, '"');
}

void sk_ew_json(struct ew *w, const char *s)
{
	sk_ew_json_n(w, s ? s : "", s ? strlen(s) : 0);
}
