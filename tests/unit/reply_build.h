/* Helpers of the cluster tests: dl_reply_t trees built by hand (malloc'd, freed with dl_reply_free). */
#ifndef REPLY_BUILD_H
#define REPLY_BUILD_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dl_transport.h"

static inline dl_reply_t rb_str(const char *s)
{
    dl_reply_t r;
    memset(&r, 0, sizeof(r));
    r.type = DL_REPLY_STRING;
    r.len = strlen(s);
    r.str = malloc(r.len + 1);
    memcpy(r.str, s, r.len + 1);
    return r;
}

static inline dl_reply_t rb_err(const char *s)
{
    dl_reply_t r = rb_str(s);
    r.type = DL_REPLY_ERROR;
    return r;
}

static inline dl_reply_t rb_int(long long v)
{
    dl_reply_t r;
    memset(&r, 0, sizeof(r));
    r.type = DL_REPLY_INTEGER;
    r.integer = v;
    return r;
}

static inline dl_reply_t rb_nil(void)
{
    dl_reply_t r;
    memset(&r, 0, sizeof(r));
    return r;
}

/* An array of n replies (taken over). */
static inline dl_reply_t rb_arr(size_t n, ...)
{
    dl_reply_t r;
    va_list ap;
    size_t i;
    memset(&r, 0, sizeof(r));
    r.type = DL_REPLY_ARRAY;
    r.elements = n;
    r.element = calloc(n ? n : 1, sizeof(dl_reply_t));
    va_start(ap, n);
    for (i = 0; i < n; i++) r.element[i] = va_arg(ap, dl_reply_t);
    va_end(ap);
    return r;
}

/* Appends e (taken over) to array a. */
static inline void rb_push(dl_reply_t *a, dl_reply_t e)
{
    a->element = realloc(a->element, (a->elements + 1) * sizeof(dl_reply_t));
    a->element[a->elements++] = e;
}

#endif
