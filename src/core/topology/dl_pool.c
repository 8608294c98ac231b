/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct pool_slot {
    char *pool_id;
    dl_target_t *conn;
    struct pool_slot *next;
} pool_slot_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pool_slot_t *idle;

dl_target_t *dl_pool_take(const char *pool_id, dl_target_config_t *cfg, dl_error_t *err)
{
    pool_slot_t **pp, *slot = NULL;
    dl_target_t *c;

    pthread_mutex_lock(&mu);
    for (pp = &idle; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->pool_id, pool_id) == 0 && dl_target_config_same(dl_target_config((*pp)->conn), cfg)) {
            slot = *pp;
            *pp = slot->next;
            break;
        }
    }
    pthread_mutex_unlock(&mu);
    if (!slot) return dl_target_new(cfg, err);
    dl_target_config_free(cfg);
    c = slot->conn;
    free(slot->pool_id);
    free(slot);
    dl_target_check_idle(c);
    return c;
}

void dl_pool_put(const char *pool_id, dl_target_t *c)
{
    pool_slot_t *s, *slot;
    size_t same = 0;

    pthread_mutex_lock(&mu);
    for (s = idle; s; s = s->next) {
        if (strcmp(s->pool_id, pool_id) == 0 && dl_target_config_same(dl_target_config(s->conn), dl_target_config(c))) {
            same++;
        }
    }
    slot = same < DL_POOL_MAX_IDLE ? calloc(1, sizeof(*slot)) : NULL;
    if (slot && (slot->pool_id = strdup(pool_id)) != NULL) {
        slot->conn = c;
        slot->next = idle;
        idle = slot;
        c = NULL;
    } else {
        free(slot);
    }
    pthread_mutex_unlock(&mu);
    if (c) dl_target_free(c);
}

size_t dl_pool_idle_count(void)
{
    size_t n = 0;
    pool_slot_t *s;
    pthread_mutex_lock(&mu);
    for (s = idle; s; s = s->next) n++;
    pthread_mutex_unlock(&mu);
    return n;
}

void dl_pool_shutdown(void)
{
    pthread_mutex_lock(&mu);
    while (idle) {
        pool_slot_t *s = idle;
        idle = s->next;
        dl_target_free(s->conn);
        free(s->pool_id);
        free(s);
    }
    pthread_mutex_unlock(&mu);
}
