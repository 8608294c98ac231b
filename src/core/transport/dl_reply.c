#include "dl_transport.h"

#include <stdlib.h>
#include <string.h>

void dl_reply_free(dl_reply_t *r)
{
    size_t i;
    if (!r) {
        return;
    }
    free(r->str);
    for (i = 0; i < r->elements; i++) {
        dl_reply_free(&r->element[i]);
    }
    free(r->element);
    memset(r, 0, sizeof(*r));
}
