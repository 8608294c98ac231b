/*
 * tests/zts/harness.c — PHP requests on many threads at once, the way
 * FrankenPHP runs them: one thread-safe PHP (the embed SAPI, built with
 * --enable-zts), each thread with its own interpreter context
 * (ts_resource), running one request after another
 * (php_request_startup, php_execute_script, php_request_shutdown).
 *
 *   harness THREADS REQUESTS SCRIPT_DIR
 *
 * Request r of thread t runs SCRIPT_DIR/t<t>.php, a two-line file that sets
 * $T and includes the request script; the request number comes from Redis
 * (the script counts its own). PHP's settings (extension=distlock.so) come
 * from the php.ini in $PHPRC. Exit status 0 when every request started.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <sapi/embed/php_embed.h>

typedef struct {
    int id;
    int requests;
    const char *dir;
    int failed_starts;
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    char path[4096];
    int r;

    (void)ts_resource(0);   /* this thread's interpreter context */
    snprintf(path, sizeof(path), "%s/t%d.php", w->dir, w->id);
    for (r = 0; r < w->requests; r++) {
        zend_file_handle fh;
        if (php_request_startup() == FAILURE) {
            w->failed_starts++;
            continue;
        }
        SG(headers_sent) = 1;
        SG(request_info).no_headers = 1;
        SG(options) |= SAPI_OPTION_NO_CHDIR;
        zend_stream_init_filename(&fh, path);
        php_execute_script(&fh);   /* fatal errors and exit() end here, as in any SAPI */
        zend_destroy_file_handle(&fh);
        php_request_shutdown(NULL);   /* the request end: distlock releases what it still holds */
    }
    ts_free_thread();
    return NULL;
}

int main(int argc, char **argv)
{
    int n, requests, i, failed = 0;
    pthread_t *th;
    worker_t *w;
    char *pargv[] = {argv[0], NULL};

    if (argc != 4) {
        fprintf(stderr, "usage: %s THREADS REQUESTS SCRIPT_DIR\n", argv[0]);
        return 2;
    }
    n = atoi(argv[1]);
    requests = atoi(argv[2]);
    if (php_embed_init(1, pargv) == FAILURE) {
        fprintf(stderr, "php_embed_init failed\n");
        return 1;
    }
    th = calloc((size_t)n, sizeof(*th));
    w = calloc((size_t)n, sizeof(*w));
    for (i = 0; i < n; i++) {
        w[i].id = i;
        w[i].requests = requests;
        w[i].dir = argv[3];
        pthread_create(&th[i], NULL, worker, &w[i]);
    }
    for (i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        failed += w[i].failed_starts;
    }
    php_embed_shutdown();
    free(th);
    free(w);
    printf("harness: %d threads x %d requests, %d request starts failed\n", n, requests, failed);
    return failed ? 1 : 0;
}
