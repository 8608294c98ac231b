--TEST--
Shared locks: many shared holders at once across processes, each its own lease; an exclusive holder excludes them; a writer waiting behind 8 looping readers gets in; promote/demote
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_400:';
raw_redis_del_prefix($p);
$slow = (is_valgrind() ? 10 : 1) * lc_load();

// 1. three processes hold shared leases at once; an exclusive attempt fails meanwhile
$pids = [];
for ($i = 0; $i < 3; $i++) {
    $pids[] = fork_child(function () use ($uri, $p) {
        $d = new DistLock($uri, ['prefix' => $p]);
        $l = $d->lockShared('cat', 10, 5);
        raw_redis_conn(true);
        raw_redis('INCR', 'phpt_400:in');
        lc_wait_until(fn() => raw_redis('EXISTS', 'phpt_400:go') === 1, 10);
        return $l->release() ? 0 : 1;
    });
}
lc_wait_until(fn() => (int)raw_redis('GET', $p . 'in') === 3, 10 * $slow);
$d = new DistLock($uri, ['prefix' => $p]);
echo "shared holders at once: ", raw_redis('ZCARD', $p . 'cat{' . $p . 'cat}:readers'), "\n";
echo "exclusive while shared: ", var_export($d->tryLockExclusive('cat'), true), "\n";
raw_redis('SET', $p . 'go', '1');
foreach ($pids as $pid) echo wait_child($pid), " ";
$w = $d->lockExclusive('cat', 10, 5);
$d2 = new DistLock($uri, ['prefix' => $p]);   // another owner (this instance's own request would be a shared view)
echo "\nexclusive after them: ", get_class($w), "; shared meanwhile: ", var_export($d2->tryLockShared('cat'), true), "\n";
$w->release();
raw_redis('DEL', $p . 'in', $p . 'go');

// 2. writer preference: 8 processes loop on shared leases for 3 s; a writer gets in
//    well before they stop (new shared leases wait once it waits)
$pids = [];
for ($i = 0; $i < 8; $i++) {
    $pids[] = fork_child(function () use ($uri, $p) {
        $d = new DistLock($uri, ['prefix' => $p]);
        $end = microtime(true) + 3.0;
        $n = 0;
        while (microtime(true) < $end) {
            $l = $d->lockShared('hot', 5, 10);
            usleep(20000);
            $l->release();
            $n++;
        }
        return $n > 0 ? 0 : 1;
    });
}
usleep((int)(300000 * $slow));
$t = microtime(true);
$w = $d->lockExclusive('hot', 5, 10);
$el = microtime(true) - $t;
$readers = raw_redis('ZCARD', $p . 'hot{' . $p . 'hot}:readers');
$w->release();
echo "writer got in within 1 s (readers hold 20 ms each): ", var_export($el < 1.0 * $slow, true), ", shared holders then: $readers\n";
foreach ($pids as $pid) echo wait_child($pid), " ";
echo "\n";

// 3. promote (sole shared holder only, never waiting) and demote
$a = $d->lockShared('pd', 10);
$b = (new DistLock($uri, ['prefix' => $p]))->lockShared('pd', 10);
echo "promote with another shared holder: ", var_export($a->promote(), true), ", still shared-held: ", var_export($a->isAcquired(), true), "\n";
$b->release();
echo "promote as the sole one: ", var_export($a->promote(), true), ", key holds its token: ", var_export(raw_redis('GET', $p . 'pd') === "\0W" . $a->token(), true), "\n";
echo "shared while promoted: ", var_export($d2->tryLockShared('pd'), true), "\n";
echo "demote: ", var_export($a->demote(), true), ", a shared lease joins: ", var_export($d->tryLockShared('pd') instanceof DistLock\Lock, true), "\n";
try { $a->demote(); } catch (LogicException $e) { echo get_class($e), ": ", $e->getMessage(), "\n"; }
unset($a);
$d->isLocked('pd');   // reads the deferred release's reply: the raw read below comes after it
echo "left behind: ", json_encode(raw_redis('KEYS', $p . '*')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_400:');
?>
--EXPECT--
shared holders at once: 3
exclusive while shared: NULL
exit=0 exit=0 exit=0 
exclusive after them: DistLock\Lock; shared meanwhile: NULL
writer got in within 1 s (readers hold 20 ms each): true, shared holders then: 0
exit=0 exit=0 exit=0 exit=0 exit=0 exit=0 exit=0 exit=0 
promote with another shared holder: false, still shared-held: true
promote as the sole one: true, key holds its token: true
shared while promoted: NULL
demote: true, a shared lease joins: true
LogicException: DistLock\Lock::demote(): only an exclusive lease (lockExclusive()) can be demoted
left behind: []
