--TEST--
Least privilege: every operation works as an ACL user limited to the key prefix and the commands the README lists; nothing outside the prefix
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$p = 'phpt_304:';
raw_redis_del_prefix($p);
// The ACL documented in README.md ("Least privilege"), for the prefix phpt_304:
$acl = ['on', '>pw304', 'resetkeys', '~phpt_304:*', 'resetchannels', '-@all',
    '+set', '+evalsha', '+eval', '+blpop', '+exists', '+del',
    '+get', '+pttl', '+pexpire', '+incr', '+time', '+rpush', '+lpop', '+ltrim',
    '+zadd', '+zrem', '+zrange', '+zremrangebyscore', '+zcard', '+hset', '+hget', '+hdel',
    '+type', '+zcount', '+zscore', '+hmget'];
var_dump(raw_redis('ACL', 'SETUSER', 'phpt_304_locker', ...$acl));
$uri = str_replace('redis://', 'redis://phpt_304_locker:pw304@', test_uri());
$slow = (is_valgrind() ? 10 : 1) * lc_load();   // and more on a busy machine

$ok = [];
foreach ([['fencing' => true], ['fair' => true, 'fencing' => true], ['watchdog' => true]] as $extra) {
    $mode = implode('+', array_keys($extra));
    $d = new DistLock($uri, ['prefix' => $p] + $extra);
    $other = new DistLock($uri, ['prefix' => $p] + $extra);
    $l = $d->lock('a', 10);                 // outlives the slow child under valgrind
    $ok["$mode lock"] = $l->isAcquired() && $l->remainingLifetime() > 0 && $l->refresh(10);
    $ok["$mode tryLock held"] = $other->tryLock('a') === null && $d->isLocked('a');
    // a blocked waiter (BLPOP) woken by the release, in a child
    $pid = fork_child(function () use ($uri, $p, $extra) {
        $w = new DistLock($uri, ['prefix' => $p] + $extra);
        $lk = $w->lock('a', 5, 5);
        return $lk->release() ? 0 : 1;
    });
    usleep((int)(200000 * $slow));
    $ok["$mode release wakes waiter"] = $l->release() && wait_child($pid) === 'exit=0';
    // a waiter that gives up, and restore / helpers / forceRelease
    $l = $d->lock('b', 5);
    try { $other->lock('b', 5, 0.1); $ok["$mode timeout"] = false; } catch (DistLock\LockTimeoutException $e) { $ok["$mode timeout"] = true; }
    $r = $other->restore('b', $l->token());
    $ok["$mode restore"] = $r->token() === $l->token();
    $ok["$mode helpers"] = $d->unlockAccount(1, 'x') === false && $d->lockAccount(1)->release();
    $ok["$mode forceRelease"] = $d->forceRelease('b');
    // leases by caller token, detached, then handled by name and token; owner() and status()
    $t = $d->tryLock('c', 5, "token-$mode")->detach();
    $ok["$mode owner/status"] = $other->owner('c') === $t && $other->status('c')['locked'];
    $ok["$mode by token"] = $other->refresh('c', $t, 5) && $other->release('c', $t) && $other->owner('c') === null;
}
// the watchdog renews as this user too
$d = new DistLock($uri, ['prefix' => $p, 'watchdog' => true]);
$l = $d->lock('w', 0.6);
usleep(1200000);
$ok['watchdog renews'] = $l->isAcquired() && $d->stats()['renewals'] > 0;
$l->release();
foreach ($ok as $what => $v) if (!$v) echo "FAILED: $what\n";
echo count($ok), " operations checked\n";
// outside the prefix: refused by the ACL, reported as a ConnectionException naming the server
try {
    (new DistLock($uri, ['prefix' => 'elsewhere:']))->tryLock('x');
} catch (DistLock\ConnectionException $e) {
    echo "outside the prefix: ", str_contains($e->getMessage(), 'NOPERM') ? 'NOPERM' : $e->getMessage(), "\n";
}
echo "left behind: ", json_encode(array_values(array_filter(raw_redis('KEYS', $p . '*'), fn ($k) => !str_starts_with($k, $p . 'distlock:fence')))), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis('ACL', 'DELUSER', 'phpt_304_locker');
raw_redis_del_prefix('phpt_304:');
?>
--EXPECT--
string(2) "OK"
28 operations checked
outside the prefix: NOPERM
left behind: []
