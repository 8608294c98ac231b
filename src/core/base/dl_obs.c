#include "dl_obs.h"

#include <string.h>

/* The armed record of this thread (a call runs on one thread; the watchdog's
 * thread never arms one, so its renewals cost nothing here). */
static __thread dl_obs_facts_t *armed;
static __thread int discovery;   /* dl_obs_discovery: counted, the server not named */

int dl_obs_discovery(int on)
{
    int prev = discovery;
    discovery = on;
    return prev;
}

void dl_obs_reset(void)
{
    armed = NULL;
    discovery = 0;
}

dl_obs_facts_t *dl_obs_arm(dl_obs_facts_t *f)
{
    dl_obs_facts_t *prev = armed;
    armed = f;
    return prev;
}

void dl_obs_redirected(void)
{
    if (armed) armed->server[0] = '\0';
}

void dl_obs_round_trip(const char *endpoint)
{
    dl_obs_facts_t *f = armed;
    size_t n;
    if (!f) return;
    f->round_trips++;
    if (f->server[0] || !endpoint || discovery) return;
    n = strlen(endpoint);
    if (n >= sizeof(f->server)) n = sizeof(f->server) - 1;
    memcpy(f->server, endpoint, n);
    f->server[n] = '\0';
}
