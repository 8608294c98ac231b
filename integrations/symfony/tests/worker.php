<?php

declare(strict_types=1);

/*
 * A worker process for DistLockStoreTest: one operation per run, results as
 * lines on stdout, exit code 0 when it did what it was asked.
 *
 *   hold RESOURCE AUTORELEASE TTL   acquire, print "held SERIALIZED_KEY", end the request
 *   release SERIALIZED_KEY          print "before B", release, print "after B" (B = isAcquired)
 *   refresh SERIALIZED_KEY TTL      refresh to TTL seconds, print "refreshed B"
 *   holdfor RESOURCE SECONDS [read] acquire (a read lock with "read"), print "held", sleep,
 *                                   print "releasing NS", release
 *   rmw RESOURCE FILE N             N times: acquire(true), read FILE, +1, write FILE, release
 *   deadlock FIRST SECOND MODE      write-lock FIRST, print "held", wait (at most 10 s) until
 *                                   SECOND is locked (by the other process), then acquire(true)
 *                                   SECOND (a read lock with MODE "read"; MODE "mutex": a store
 *                                   with sharedLocks false); print "granted SECONDS"
 *                                   (the wait), or "deadlock SECONDS PREVIOUS_CLASS JSON_MESSAGE"
 *                                   for a LockConflictedException; release both
 *   mixhold STORE MODE RESOURCE SECONDS  with STORE "redisstore" (symfony's RedisStore) or
 *                                   "distlock" (DistLockStore, default configuration), take a
 *                                   MODE ("read" or "write") lock, print "held", sleep, print
 *                                   "releasing NS", release
 * symfony/semaphore over DistLockSemaphoreStore:
 *   semhold RESOURCE LIMIT TTL      acquire 1 permit, print "held SERIALIZED_KEY", sleep 60 s
 *   semrelease SERIALIZED_KEY       print "before B", release, print "after B" (B = isAcquired)
 *   semloop RESOURCE LIMIT N COUNTER  N times: acquire 1 permit (retrying), INCR the Redis key
 *                                   COUNTER (a holder count), note a count over LIMIT, DECR,
 *                                   release; print "over the limit: V"
 */

use DistLock\Symfony\Tests\Support\Redis;
use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\LockFactory;

require __DIR__ . '/bootstrap.php';

$factory = new LockFactory(Redis::store());
$op = $argv[1] ?? '';

$semaphores = static fn () => new Symfony\Component\Semaphore\SemaphoreFactory(
    new DistLock\Symfony\DistLockSemaphoreStore(Redis::client()),
);

switch ($op) {
    case 'hold':
        $key = new Key($argv[2]);
        $lock = $factory->createLockFromKey($key, (float) $argv[4], $argv[3] === '1');
        if (!$lock->acquire()) {
            exit(2);
        }
        echo 'held ', base64_encode(serialize($key)), "\n";
        break; // request end: $lock is destroyed here

    case 'release':
        $key = unserialize(base64_decode($argv[2]), ['allowed_classes' => [Key::class]]);
        $lock = $factory->createLockFromKey($key, null, false);
        echo 'before ', $lock->isAcquired() ? 1 : 0, "\n";
        $lock->release();
        echo 'after ', $lock->isAcquired() ? 1 : 0, "\n";
        break;

    case 'refresh':
        $key = unserialize(base64_decode($argv[2]), ['allowed_classes' => [Key::class]]);
        $lock = $factory->createLockFromKey($key, (float) $argv[3], false);
        $lock->refresh();
        echo 'refreshed ', $lock->isAcquired() ? 1 : 0, "\n";
        break;

    case 'holdfor':
        $lock = $factory->createLock($argv[2], 30.0, false);
        if (!(($argv[4] ?? '') === 'read' ? $lock->acquireRead() : $lock->acquire())) {
            exit(2);
        }
        echo "held\n";
        usleep((int) ((float) $argv[3] * 1e6));
        echo 'releasing ', hrtime(true), "\n";
        $lock->release();
        break;

    case 'deadlock':
        [, , $first, $second, $mode] = $argv;
        if ($mode === 'mutex') {
            $factory = new LockFactory(new DistLock\Symfony\DistLockStore(Redis::client(), 300.0, false));
        }
        $mine = $factory->createLock($first, 30.0, false);
        if (!$mine->acquire()) {
            exit(2);
        }
        echo "held\n";
        $client = Redis::client();
        $deadline = microtime(true) + 10.0;
        while (!$client->isLocked($second)) {
            if (microtime(true) > $deadline) {
                exit(3);
            }
            usleep(2000);
        }
        $theirs = $factory->createLock($second, 30.0, false);
        $t = hrtime(true);
        try {
            $mode === 'read' ? $theirs->acquireRead(true) : $theirs->acquire(true);
            echo 'granted ', (hrtime(true) - $t) / 1e9, "\n";
            $theirs->release();
        } catch (Symfony\Component\Lock\Exception\LockConflictedException $e) {
            echo 'deadlock ', (hrtime(true) - $t) / 1e9, ' ', get_class($e->getPrevious() ?? $e), ' ', json_encode($e->getMessage()), "\n";
        }
        $mine->release();
        break;

    case 'mixhold':
        [, , $store, $mode, $resource, $seconds] = $argv;
        $lock = (new LockFactory($store === 'redisstore'
            ? new Symfony\Component\Lock\Store\RedisStore(Redis::connection())
            : Redis::defaultStore()))->createLock($resource, 30.0, false);
        if (!($mode === 'read' ? $lock->acquireRead() : $lock->acquire())) {
            exit(2);
        }
        echo "held\n";
        usleep((int) ((float) $seconds * 1e6));
        echo 'releasing ', hrtime(true), "\n";
        $lock->release();
        break;

    case 'rmw':
        [, , $resource, $file, $n] = $argv;
        for ($i = 0; $i < (int) $n; $i++) {
            $lock = $factory->createLock($resource, 10.0, false);
            $lock->acquire(true);
            try {
                $v = (int) file_get_contents($file);
                usleep(200); // widen the window a lost update needs
                file_put_contents($file, (string) ($v + 1));
            } finally {
                $lock->release();
            }
        }
        echo "done\n";
        break;

    case 'semhold':
        $key = new Symfony\Component\Semaphore\Key($argv[2], (int) $argv[3]);
        $semaphore = $semaphores()->createSemaphoreFromKey($key, (float) $argv[4], false);
        if (!$semaphore->acquire()) {
            exit(2);
        }
        echo 'held ', base64_encode(serialize($key)), "\n";
        sleep(60);
        break;

    case 'semrelease':
        $key = unserialize(base64_decode($argv[2]), ['allowed_classes' => [Symfony\Component\Semaphore\Key::class]]);
        $semaphore = $semaphores()->createSemaphoreFromKey($key, 300.0, false);
        echo 'before ', $semaphore->isAcquired() ? 1 : 0, "\n";
        $semaphore->release();
        echo 'after ', $semaphore->isAcquired() ? 1 : 0, "\n";
        break;

    case 'semloop':
        [, , $resource, $limit, $n, $counter] = $argv;
        $factory = $semaphores();
        $raw = Redis::raw();
        $over = 0;
        for ($i = 0; $i < (int) $n; $i++) {
            $semaphore = $factory->createSemaphore($resource, (int) $limit, 1, 10.0, false);
            while (!$semaphore->acquire()) {
                usleep(500); // symfony/semaphore has no blocking acquire
            }
            if ($raw->incr($counter) > (int) $limit) {
                $over++;
            }
            usleep(300); // widen the window an excess holder needs
            $raw->decr($counter);
            $semaphore->release();
        }
        echo "over the limit: $over\n";
        break;

    default:
        fwrite(STDERR, "unknown operation '$op'\n");
        exit(1);
}
exit(0);
