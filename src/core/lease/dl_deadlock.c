/*
 * dl_deadlock — the deadlock check's call and its reply (see dl_deadlock.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_deadlock.h"
#include "dl_lock.h"
#include "dl_script.h"
#include "dl_scripts.h"

const char *const DL_DEADLOCK_TEXT = DL_SCRIPT_DEADLOCK;
const char *const DL_DEADLOCK_SHA = DL_SCRIPT_DEADLOCK_SHA;

#define WAITFOR ":waitfor:"

/* The stem <K>{<K>} of a lease's companion keys: its wake list's key less ":wake" (dl_key). */
static size_t stem_len(const dl_lease_t *lease)
{
    return lease->wake_key_len - 5;
}

/* The waiter's kind as the check names it: 'm' mutex, 'f' fair mutex, 'x' exclusive, 's' shared,
 * 'p' a semaphore's permits ('a', a multi-lock, is dl_deadlock_command_multi's). */
static const char *kind_code(const dl_lease_t *lease)
{
    if (lease->kind == DL_LEASE_PERMITS) return "p";
    if (lease->kind == DL_LEASE_WRITE) return "x";
    if (lease->kind == DL_LEASE_SHARED) return "s";
    return lease->fair ? "f" : "m";
}

int dl_deadlock_applies(const dl_transport_t *t, const dl_lease_t *lease, const dl_deadlock_opts_t *d)
{
    int caps = t->caps ? t->caps(t->impl) : 0;
    (void)lease;
    return d && d->n_holds > 0 && d->owner_len > 0 && d->owner_len <= DL_DEADLOCK_OWNER_MAX &&
           !(caps & DL_CAP_CLUSTER) && !dl_scripting_denied(t);
}

static void add(dl_deadlock_call_t *dc, const char *s, size_t len)
{
    dc->argv[dc->argc] = s;
    dc->argvlen[dc->argc++] = len;
}

/* The check for a waiter on leases[0..nl) (nl > 1: a multi-lock's names), of kind as the check names it. */
static dl_status_t command(dl_deadlock_call_t *dc, size_t nl, const dl_lease_t *const *leases, const char *kind,
                           const dl_deadlock_opts_t *d, int eval, dl_cmd_t *cmd, dl_error_t *err)
{
    const dl_lease_t *lease = leases[0];
    size_t n = d->n_holds < DL_DEADLOCK_HOLDS_MAX ? d->n_holds : DL_DEADLOCK_HOLDS_MAX, i;

    dc->argc = 0;
    dc->buf = malloc(stem_len(lease) + sizeof(WAITFOR) - 1 + d->owner_len);
    if (!dc->buf) return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    if (eval) {
        add(dc, "EVAL", 4);
        add(dc, DL_DEADLOCK_TEXT, strlen(DL_DEADLOCK_TEXT));
    } else {
        add(dc, "EVALSHA", 7);
        add(dc, DL_DEADLOCK_SHA, 40);
    }
    add(dc, "3", 1);
    add(dc, lease->key, lease->key_len);
    /* R = <stem>:waitfor:<owner> */
    memcpy(dc->buf, lease->wake_key, stem_len(lease));
    memcpy(dc->buf + stem_len(lease), WAITFOR, sizeof(WAITFOR) - 1);
    memcpy(dc->buf + stem_len(lease) + sizeof(WAITFOR) - 1, d->owner, d->owner_len);
    add(dc, dc->buf, stem_len(lease) + sizeof(WAITFOR) - 1 + d->owner_len);
    /* L: where the live waiters of our kind are (the acquire scripts' own). */
    if (lease->kind == DL_LEASE_SHARED) add(dc, lease->rwaiters_key, lease->rwaiters_key_len);
    else if (lease->fair) add(dc, lease->alive_key, lease->alive_key_len);
    else add(dc, lease->waiters_key, lease->waiters_key_len);
    add(dc, lease->token, lease->token_len);
    add(dc, lease->wake_key, stem_len(lease));
    add(dc, dc->window, dl_cmd_int(dc->window, DL_WAITERS_TTL_MS));
    add(dc, dc->off, dl_cmd_int(dc->off, (long long)lease->name_off));
    add(dc, d->label, strlen(d->label) < DL_DEADLOCK_LABEL_MAX ? strlen(d->label) : DL_DEADLOCK_LABEL_MAX);
    add(dc, kind, 1);
    /* a semaphore waiter's limit and the permits it asks (a free permit lets it progress) */
    add(dc, dc->limit, dl_cmd_int(dc->limit, lease->kind == DL_LEASE_PERMITS ? lease->limit : 0));
    add(dc, dc->permits, dl_cmd_int(dc->permits, lease->kind == DL_LEASE_PERMITS ? lease->permits : 0));
    add(dc, dc->nx, dl_cmd_int(dc->nx, (long long)(nl - 1)));
    for (i = 1; i < nl; i++) {   /* a multi-lock's further names: name, stem, token */
        add(dc, leases[i]->key, leases[i]->key_len);
        add(dc, leases[i]->wake_key, stem_len(leases[i]));
        add(dc, leases[i]->token, leases[i]->token_len);
    }
    for (i = 0; i < n; i++) {   /* each hold's stem and token: the script names its holder key */
        add(dc, d->holds[i]->wake_key, stem_len(d->holds[i]));
        add(dc, d->holds[i]->token, d->holds[i]->token_len);
    }
    cmd->argc = dc->argc;
    cmd->argv = dc->argv;
    cmd->argvlen = dc->argvlen;
    return DL_OK;
}

dl_status_t dl_deadlock_command(dl_deadlock_call_t *dc, const dl_lease_t *lease, const dl_deadlock_opts_t *d,
                                int eval, dl_cmd_t *cmd, dl_error_t *err)
{
    return command(dc, 1, &lease, kind_code(lease), d, eval, cmd, err);
}

dl_status_t dl_deadlock_command_multi(dl_deadlock_call_t *dc, size_t nl, dl_lease_t *const *leases,
                                      const dl_deadlock_opts_t *d, int eval, dl_cmd_t *cmd, dl_error_t *err)
{
    return command(dc, nl, (const dl_lease_t *const *)leases, "a", d, eval, cmd, err);
}

void dl_deadlock_call_free(dl_deadlock_call_t *dc)
{
    free(dc->buf);
    dc->buf = NULL;
}

/* Appends to the message buffer, truncating (a message names at most what fits). */
typedef struct msgbuf {
    char s[DL_ERR_MSG_MAX];
    size_t len;
} msgbuf_t;

static void put(msgbuf_t *m, const char *s, size_t len)
{
    size_t room = sizeof(m->s) - 1 - m->len;
    if (len > room) len = room;
    memcpy(m->s + m->len, s, len);
    m->len += len;
    m->s[m->len] = '\0';
}

static void puts_(msgbuf_t *m, const char *s)
{
    put(m, s, strlen(s));
}

/* The name of a key element whose prefix's length is the offset element before it. */
static int put_name(msgbuf_t *m, const dl_reply_t *off, const dl_reply_t *key)
{
    long long o;
    char *end;
    if (off->type != DL_REPLY_STRING || key->type != DL_REPLY_STRING) return 0;
    o = strtoll(off->str, &end, 10);
    if (end == off->str || o < 0 || (size_t)o > key->len) o = 0;
    puts_(m, "\"");
    put(m, key->str + o, key->len - (size_t)o);
    puts_(m, "\"");
    return 1;
}

dl_status_t dl_deadlock_judge(const dl_reply_t *r, const dl_deadlock_opts_t *d, dl_error_t *err)
{
    msgbuf_t m;
    size_t i;

    if (r->type != DL_REPLY_ARRAY || r->elements < 3 || (r->elements - 3) % 3 != 0 ||
        r->element[0].type != DL_REPLY_INTEGER || r->element[0].integer != 2) {
        return DL_OK;
    }
    m.len = 0;
    m.s[0] = '\0';
    puts_(&m, "Deadlock detected: ");
    puts_(&m, d->self);
    puts_(&m, " waits for ");
    if (!put_name(&m, &r->element[1], &r->element[2])) return DL_OK;
    for (i = 3; i + 2 < r->elements; i += 3) {
        const dl_reply_t *label = &r->element[i];
        puts_(&m, ", held by ");
        if (label->type == DL_REPLY_STRING) put(&m, label->str, label->len);
        else puts_(&m, "?");
        puts_(&m, ", which waits for ");
        if (!put_name(&m, &r->element[i + 1], &r->element[i + 2])) return DL_OK;
    }
    puts_(&m, ", held by ");
    puts_(&m, d->self);
    return dl_error_set(err, DL_ERR_DEADLOCK, "%s", m.s);
}
