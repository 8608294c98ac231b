--TEST--
status(), isLocked() and owner() see every kind of holder: mutex, fair mutex with waiters, multi-lock member, shared (live leases only, the longest), exclusive with shared waiters, semaphore (holders, permits, its one-holder form, a waiter), a foreign key, free
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_410:';
raw_redis_del_prefix($p);
$slow = (is_valgrind() ? 10 : 1) * lc_load();
$a = new DistLock($uri, ['prefix' => $p]);
$b = new DistLock($uri, ['prefix' => $p]);
$c = new DistLock($uri, ['prefix' => $p]);
$seen = new DistLock($uri, ['prefix' => $p]);   // holds nothing: it only looks

// One line per look: status() in full (ttl as a range), isLocked(), and owner() as who it is.
function look(string $name, array $owners = [], ?array $ttl = null): array
{
    global $seen;
    $s = $seen->status($name);
    $o = $seen->owner($name);
    $who = $o === null ? 'null' : (array_search($o, $owners, true) ?: 'another token');
    $t = $ttl === null ? sprintf('%.1f', $s['ttl']) : ($s['ttl'] > $ttl[0] && $s['ttl'] <= $ttl[1] ? "in ($ttl[0], $ttl[1]]" : "out of range: {$s['ttl']}");
    printf("%s: locked=%s kind=%s holders=%d permits=%d ttl=%s waiters=%d isLocked=%s owner=%s\n", $name,
        var_export($s['locked'], true), $s['kind'] ?? 'null', $s['holders'], $s['permits'], $t, $s['waiters'],
        var_export($seen->isLocked($name), true), $who);
    return $s;
}

// Waiters in children: wait until status() counts $n of them.
function waiters_seen(string $name, int $n): void
{
    global $seen, $slow;
    if (lc_wait_until(fn() => $seen->status($name)['waiters'] === $n, 10 * $slow) === null) {
        echo "$name: ", $seen->status($name)['waiters'], " waiters seen, not $n\n";
    }
}

echo "keys: ", implode(',', array_keys($seen->status('free'))), "\n";
look('free');

// 1. mutex
$m = $a->lock('mutex', 10);
look('mutex', ['the holder' => $m->token()], [9, 10]);

// 2. fair mutex, two waiters in the fair queue
$fa = new DistLock($uri, ['prefix' => $p, 'fair' => true]);
$fm = $fa->lock('fair', 10);
$pids = [];
for ($i = 0; $i < 2; $i++) {
    $pids[] = fork_child(function () use ($uri, $p) {
        $w = new DistLock($uri, ['prefix' => $p, 'fair' => true]);
        return $w->lock('fair', 5, 20)->release() ? 0 : 1;
    });
}
waiters_seen('fair', 2);
look('fair', ['the holder' => $fm->token()], [8, 10]);
$fm->release();
foreach ($pids as $pid) echo wait_child($pid), " ";
echo "\n";

// 3. a multi-lock's member is a mutex
[$ma, $mb] = $a->lockAll(['ma', 'mb'], 10);
look('mb', ['the member' => $mb->token(), 'the other member' => $ma->token()], [9, 10]);

// 4. shared: two holders, the longest lease; an exclusive waiter counted
$r1 = $a->lockShared('rw', 5);
$r2 = $b->lockShared('rw', 20);
$pid = fork_child(function () use ($uri, $p) {
    $w = new DistLock($uri, ['prefix' => $p]);
    return $w->lockExclusive('rw', 5, 20)->release() ? 0 : 1;
});
waiters_seen('rw', 1);
look('rw', ['a shared holder' => $r1->token(), 'the other' => $r2->token()], [19, 20]);
$r1->release();
look('rw', [], [19, 20]);
$r2->release();
echo "writer after the readers: ", wait_child($pid), "\n";
// only live leases count: a lease that ended is not seen though no acquire dropped it yet
$short = $a->lockShared('rw2', 0.3);
$long = $b->lockShared('rw2', 30);
usleep(700000);   // server time: the 0.3 s lease has ended, whatever the machine
look('rw2', [], [20, 30]);
$long->release();
look('rw2');
$short->release();

// 5. exclusive lease of a readers-writer name, a shared waiter counted
$x = $a->lockExclusive('ex', 10);
$pid = fork_child(function () use ($uri, $p) {
    $w = new DistLock($uri, ['prefix' => $p]);
    return $w->lockShared('ex', 5, 20)->release() ? 0 : 1;
});
waiters_seen('ex', 1);
look('ex', ['the writer' => $x->token()], [8, 10]);
$x->release();
echo "reader after the writer: ", wait_child($pid), "\n";

// 6. semaphore: holders of 3, 1 and 2 permits of 10
$s1 = $a->acquirePermits('sem', 10, 3, 5);
$s2 = $b->acquirePermits('sem', 10, 1, 20);
$s3 = $c->acquirePermits('sem', 10, 2, 10);
look('sem', ['a holder' => $s1->token()], [19, 20]);
echo "permits(): ", json_encode($seen->permits('sem')), "\n";
$s2->release();
look('sem', [], [9, 10]);
$s1->release();
$s3->release();
// one holder of one permit (the semaphore's string form), then full with a waiter
$one = $a->acquirePermits('sem1', 2, 1, 10);
look('sem1', ['the holder' => $one->token()], [9, 10]);
$two = $b->acquirePermits('sem1', 2, 1, 10);
$pid = fork_child(function () use ($uri, $p) {
    $w = new DistLock($uri, ['prefix' => $p]);
    return $w->acquirePermits('sem1', 2, 1, 5, 20)->release() ? 0 : 1;
});
waiters_seen('sem1', 1);
look('sem1', [], [9, 10]);
$one->release();
echo "permit waiter: ", wait_child($pid), "\n";
$two->release();

// 7. a key distlock did not write: symfony's RedisStore keeps a ZSET of its tokens
$now = (int) (microtime(true) * 1000);
raw_redis('ZADD', "{$p}sym", $now + 5000, 'their-token', $now + 5000, '__write__');
raw_redis('PEXPIRE', "{$p}sym", 5000);
look('sym', [], [4, 5]);
raw_redis('DEL', "{$p}sym");

// 8. all free again
$m->release();
$a->releaseAll([$ma, $mb]);
foreach (['mutex', 'fair', 'mb', 'rw', 'rw2', 'ex', 'sem', 'sem1', 'sym'] as $n) {
    $s = $seen->status($n);
    if ($s['locked'] || $s['kind'] !== null || $s['holders'] || $s['permits'] || $s['ttl'] || $s['waiters'] || $seen->isLocked($n) || $seen->owner($n) !== null) {
        echo "$n not free: ", json_encode($s), "\n";
    }
}
echo "left behind: ", json_encode(array_values(array_filter(raw_redis('KEYS', $p . '*'), fn ($k) => !str_starts_with($k, $p . 'distlock:fence')))), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_410:');
?>
--EXPECT--
keys: locked,ttl,waiters,kind,holders,permits
free: locked=false kind=null holders=0 permits=0 ttl=0.0 waiters=0 isLocked=false owner=null
mutex: locked=true kind=mutex holders=1 permits=0 ttl=in (9, 10] waiters=0 isLocked=true owner=the holder
fair: locked=true kind=mutex holders=1 permits=0 ttl=in (8, 10] waiters=2 isLocked=true owner=the holder
exit=0 exit=0 
mb: locked=true kind=mutex holders=1 permits=0 ttl=in (9, 10] waiters=0 isLocked=true owner=the member
rw: locked=true kind=shared holders=2 permits=0 ttl=in (19, 20] waiters=1 isLocked=true owner=null
rw: locked=true kind=shared holders=1 permits=0 ttl=in (19, 20] waiters=1 isLocked=true owner=null
writer after the readers: exit=0
rw2: locked=true kind=shared holders=1 permits=0 ttl=in (20, 30] waiters=0 isLocked=true owner=null
rw2: locked=false kind=null holders=0 permits=0 ttl=0.0 waiters=0 isLocked=false owner=null
ex: locked=true kind=exclusive holders=1 permits=0 ttl=in (8, 10] waiters=1 isLocked=true owner=the writer
reader after the writer: exit=0
sem: locked=true kind=semaphore holders=3 permits=6 ttl=in (19, 20] waiters=0 isLocked=true owner=null
permits(): {"holders":3,"used":6}
sem: locked=true kind=semaphore holders=2 permits=5 ttl=in (9, 10] waiters=0 isLocked=true owner=null
sem1: locked=true kind=semaphore holders=1 permits=1 ttl=in (9, 10] waiters=0 isLocked=true owner=null
sem1: locked=true kind=semaphore holders=2 permits=2 ttl=in (9, 10] waiters=1 isLocked=true owner=null
permit waiter: exit=0
sym: locked=true kind=foreign holders=2 permits=0 ttl=in (4, 5] waiters=0 isLocked=true owner=null
left behind: []
