/*
 * evlog.c: an append-only log of small events that program threads write and the writer
 * thread takes whole (the baseline mode's NVTX events, nvtx.c; a capture range's API calls,
 * apicalls.c).
 *
 * Memory: malloc'ed chunks of SK_EVLOG_CHUNK bytes, freed by the writer once written; an append
 * that needs a chunk and gets none is counted as lost (never an abort).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int sk_evlog_append(struct sk_evlog *log, const void *head, size_t hlen, const void *tail,
		    size_t tlen)
{
	size_t need = (hlen + tlen + 7) & ~(size_t)7;
	char *at;

	if (need > SK_EVLOG_CHUNK)
		return -1;
	pthread_mutex_lock(&log->lock);
	if (!log->tail || log->tail->used + need > SK_EVLOG_CHUNK) {
		struct sk_evchunk *c = malloc(sizeof(*c));

		if (!c) {
			log->lost++;
			pthread_mutex_unlock(&log->lock);
			return -1;
		}
		c->next = NULL;
		c->used = 0;
		if (log->tail)
			log->tail->next = c;
		else
			log->head = c;
		log->tail = c;
	}
	at = log->tail->data + log->tail->used;
	log->tail->used += need;
	memcpy(at, head, hlen);
	if (tlen)
		memcpy(at + hlen, tail, tlen);
	pthread_mutex_unlock(&log->lock);
	return 0;
}

size_t sk_evlog_write(struct sk_evlog *log, struct sk_sink *sink, enum sk_kind kind,
		      size_t (*put)(struct sk_sink *sink, const void *ev))
{
	struct sk_evchunk *c;
	size_t n = 0;

	pthread_mutex_lock(&log->lock);
	c = log->head;
	log->head = log->tail = NULL;
	sink->lost[kind] += log->lost;
	log->lost = 0;
	pthread_mutex_unlock(&log->lock);
	if (c)
		sk_sink_begin(sink);
	while (c) {
		struct sk_evchunk *next = c->next;

		for (size_t off = 0; off < c->used; n++)
			off += (put(sink, c->data + off) + 7) & ~(size_t)7;
		free(c);
		c = next;
	}
	return n;
}
