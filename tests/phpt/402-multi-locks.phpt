--TEST--
Multi-locks: all names or none; two processes taking {A, B} and {B, A} 1,000 times each never deadlock and never hold at the same time; a waiter is woken by the release of a name it waits for; errors
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_402:';
raw_redis_del_prefix($p);
$slow = (is_valgrind() ? 10 : 1) * lc_load();
$loops = is_valgrind() ? 100 : 1000;

// 1. opposite orders: an in-between counter catches any overlap; a deadlock would time out
$pids = [];
foreach ([['A', 'B'], ['B', 'A']] as $names) {
    $pids[] = fork_child(function () use ($uri, $p, $names, $loops) {
        $d = new DistLock($uri, ['prefix' => $p, 'fencing' => true]);
        raw_redis_conn(true);
        $bad = 0;
        for ($i = 0; $i < $loops; $i++) {
            [$x, $y] = $d->lockAll($names, 10, 10);
            if ((int)raw_redis('INCR', 'phpt_402:inside') !== 1) $bad++;
            raw_redis('DECR', 'phpt_402:inside');
            $x->release();
            $y->release();
        }
        return $bad === 0 ? 0 : 1;
    });
}
foreach ($pids as $pid) echo wait_child($pid), " ";
echo "($loops each way: no deadlock, no overlap)\n";
raw_redis('DEL', $p . 'inside');

// 2. all or none; each name its own lease, token and fencing token
$d = new DistLock($uri, ['prefix' => $p, 'fencing' => true]);
$other = new DistLock($uri, ['prefix' => $p]);
$b = $other->lock('n2', 10);
echo "with n2 taken: ", var_export($d->tryLockAll(['n1', 'n2', 'n3']), true), ", n1 and n3 untouched: ",
    json_encode([raw_redis('EXISTS', $p . 'n1'), raw_redis('EXISTS', $p . 'n3')]), "\n";
$b->release();
$all = $d->tryLockAll(['n1', 'n2', 'n3'], 7);
echo "then: ", implode(',', array_map(fn($l) => $l->name(), $all)), "; tokens distinct: ",
    var_export(count(array_unique(array_map(fn($l) => $l->token(), $all))) === 3, true), "; fenced: ",
    var_export(min(array_map(fn($l) => $l->fencingToken(), $all)) >= 1, true), "; ttl each: ",
    var_export(raw_redis('PTTL', $p . 'n3') > 6000, true), "\n";
$all[1]->release();
echo "one released alone, the others held: ", json_encode([raw_redis('EXISTS', $p . 'n1'), raw_redis('EXISTS', $p . 'n2'), raw_redis('EXISTS', $p . 'n3')]), "\n";
unset($all);
// read on the same connection: the deferred releases' replies are read first (a raw read on
// another connection could reach the server before them)
echo "scope end releases the rest: ", json_encode([$d->isLocked('n1'), $d->isLocked('n3')]), "\n";

// 3. a waiter on {w1, w2} while w2 is held is woken by its release
$h = $other->lock('w2', 10);
$atFile = sys_get_temp_dir() . '/phpt_402.at.' . getmypid();   // this run's own: suites run at once on one machine
$pid = fork_child(function () use ($uri, $p, $atFile) {
    $d = new DistLock($uri, ['prefix' => $p]);
    $l = $d->lockAll(['w1', 'w2'], 10, 10);
    file_put_contents($atFile, (string)hrtime(true));
    return 0;
});
lc_wait_until(fn() => raw_redis('ZCARD', $p . 'w2{' . $p . 'w2}:waiters') === 1, 10);
usleep(100000);
$rel = hrtime(true);
$h->release();
echo wait_child($pid), ", woken within 50 ms of the release: ",
    var_export(((int)file_get_contents($atFile) - $rel) / 1e6 < 50 * $slow, true), "\n";
@unlink($atFile);

// 4. errors
$x = $d->lock('held', 10);
try { $d->lockAll(['a', 'held']); } catch (LogicException $e) { echo get_class($e), ": ", $e->getMessage(), "\n"; }
$x->release();
foreach ([[], ['a', 'a'], ['a', ''], array_map(fn($i) => "n$i", range(1, 65))] as $bad) {
    try { $d->lockAll($bad); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
}
try { $d->lockAll(['a', 7]); } catch (TypeError $e) { echo $e->getMessage(), "\n"; }
try { $d->lockAll(['a'], -1); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
echo "left behind: ", json_encode(array_values(array_filter(raw_redis('KEYS', $p . '*'), fn ($k) => !str_starts_with($k, $p . 'distlock:fence')))), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_402:');
?>
--EXPECTF--
exit=0 exit=0 (%d each way: no deadlock, no overlap)
with n2 taken: NULL, n1 and n3 untouched: [0,0]
then: n1,n2,n3; tokens distinct: true; fenced: true; ttl each: true
one released alone, the others held: [1,0,1]
scope end releases the rest: [false,false]
exit=0, woken within 50 ms of the release: true
LogicException: DistLock::lockAll(): this instance already holds "held"; release it first, or take it in the same call
DistLock::lockAll(): Argument #1 ($names) must hold 1 to 64 lock names, 0 given
DistLock::lockAll(): Argument #1 ($names) must not name "a" twice
DistLock::lockAll(): Argument #1 ($names) must not be empty
DistLock::lockAll(): Argument #1 ($names) must hold 1 to 64 lock names, 65 given
DistLock::lockAll(): Argument #1 ($names) must contain only strings, int given
DistLock::lockAll(): Argument #2 ($ttl) must be %s
left behind: []
