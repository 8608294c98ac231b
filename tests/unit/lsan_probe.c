/* Probe for `make check`: exits 0 when LeakSanitizer works in this
 * environment (it fails under ptrace, e.g. in some sandboxes). No leak here. */
#include <stdlib.h>

int main(void)
{
    void *volatile p = malloc(16);
    free(p);
    return 0;
}
