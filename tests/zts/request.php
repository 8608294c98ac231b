<?php
/*
 * One request of tests/zts/harness.c ($T: the thread; HARNESS_PROC: the
 * harness process). By the request's number on its thread, it either leaves a
 * lease behind (an exception past its scope, exit(), a fatal error: the
 * request end must release it, in this thread only), or checks that the
 * previous one's lease is gone, and does a locked read-modify-write of a
 * shared counter while it holds a lease of its own thread that no other
 * thread's request end may touch. Violations are counted in Redis.
 */
require __DIR__ . '/../phpt/inc/redis.inc';
$P = (int)getenv('HARNESS_PROC');
$R = raw_redis('INCR', "zts:req:$P:$T") - 1;
$d = new DistLock(test_uri(), ['prefix' => 'zts:', 'persistent' => $R % 2 === 0]);
$leak = "leak:$P:$T";

switch ($R % 8) {
    case 0:
        $keep = $d->lock($leak, 30);
        throw new RuntimeException('a lease left past its scope by an uncaught exception');
    case 2:
        $keep = $d->lock($leak, 30);
        exit(3);
    case 4:
        $keep = $d->lock($leak, 30);
        ini_set('memory_limit', '16M');
        $big = str_repeat('x', 64 << 20);   // Fatal error: Allowed memory size exhausted
        break;
}
if ($R % 8 === 1 || $R % 8 === 3 || $R % 8 === 5) {
    if (raw_redis('EXISTS', "zts:$leak") !== 0) raw_redis('INCR', 'zts:violations:leak');
}
$own = $d->lock("own:$P:$T", 10);
$l = $d->lock('counter', 10, 60);
$v = (int)raw_redis('GET', 'zts:value');
usleep(100);
raw_redis('SET', 'zts:value', (string)($v + 1));
raw_redis('INCR', 'zts:done');
$l->release();
usleep(500);
if (!$own->isAcquired()) raw_redis('INCR', 'zts:violations:own');
$own->release();
