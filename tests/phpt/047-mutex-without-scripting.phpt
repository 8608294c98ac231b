--TEST--
A mutex where scripting is denied (an ACL without +@scripting): on a server with native compare-and-delete/-set (Redis >= 8.4, Valkey >= 9.0) tryLock(), lock() with a wait, refresh(), release(), isLocked()/status()/owner() work with plain commands, 8 processes on one name with 0 overlaps, every waiter granted and woken by the release (none by the block's cap); what needs scripts fails at once with DistLock\PermissionException; on a server without (Redis 7.0, 8.0) the mutex itself does
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$p = 'phpt_047:';
raw_redis_del_prefix($p);
$native = server_native_del();          // 'delex', 'delifeq' or ''
// README "Least privilege", the line without scripting (+delex or +delifeq where the server has it)
$acl = ['on', '>pw047', 'resetkeys', "~{$p}*", 'resetchannels', '-@all',
    '+set', '+get', '+del', '+exists', '+pttl', '+pexpire', '+blpop', '+rpush', '+ltrim',
    '+zadd', '+zrem', '+zcard', '+zscore', '+multi', '+exec', '+watch', '+unwatch'];
if ($native !== '') $acl[] = "+$native";
var_dump(raw_redis('ACL', 'SETUSER', 'phpt_047_noscript', ...$acl));
$uri = str_replace('redis://', 'redis://phpt_047_noscript:pw047@', test_uri());
$slow = test_slowdown() * (is_valgrind() ? 10 : 1);
$ok = [];
$denied = function (callable $f, string $needle) use (&$ok): bool {
    try {
        $f();
    } catch (DistLock\PermissionException $e) {
        return $e instanceof DistLock\Exception && !($e instanceof DistLock\ConnectionException)
            && str_contains($e->getMessage(), $needle) && !str_contains($e->getMessage(), 'pw047');
    } catch (Throwable $e) {
        echo "unexpected ", get_class($e), ": ", $e->getMessage(), "\n";
    }
    return false;
};

if ($native === '') {
    // No native compare-and-delete and no scripting: no lock could be released safely, so none is taken.
    $d = new DistLock($uri, ['prefix' => $p, 'timeout' => 10, 'defer_release' => false]);
    $errs = $d->stats()['connection_errors'];
    $ok['tryLock refused (first call: the grant undone)'] = $denied(fn () => $d->tryLock('a', 5), 'DELEX');
    $ok['no key left'] = raw_redis('EXISTS', "{$p}a") === 0;
    $ok['tryLock refused at once'] = $denied(fn () => $d->tryLock('a', 5), '+@scripting');
    $ok['lock refused'] = $denied(fn () => $d->lock('a', 5, 1), 'DELEX');
    $ok['not a connection error'] = $d->stats()['connection_errors'] === $errs;
    $ok['reads still work'] = $d->isLocked('a') === false && $d->owner('a') === null;
    foreach ($ok as $what => $v) if (!$v) echo "FAILED: $what\n";
    echo "scripting denied, no native compare-and-delete: ", count($ok), " checks\n";
    echo "8 processes: not run on this server (no lock can be taken)\n";
    echo "wake-up latency: none\n";
    echo "verdict: ", !in_array(false, $ok, true) ? 'ok' : 'NOT OK', "\n";
} else {
    $d = new DistLock($uri, ['prefix' => $p, 'timeout' => 10, 'defer_release' => false]);
    $o = new DistLock($uri, ['prefix' => $p, 'timeout' => 10]);
    $errs = $d->stats()['connection_errors'];
    $l = $d->tryLock('a', 5);
    $ok['tryLock'] = $l !== null && $l->isAcquired();
    $ok['tryLock held'] = $o->tryLock('a', 5) === null;
    $ok['refresh'] = $l->refresh(7.0) && raw_redis('PTTL', "{$p}a") > 6000;
    $ok['isLocked/owner'] = $o->isLocked('a') && $o->owner('a') === $l->token();
    $s = $o->status('a');
    $ok['status'] = $s['locked'] && $s['kind'] === 'mutex' && $s['holders'] === 1 && $s['ttl'] > 6.0;
    $ok['remainingLifetime'] = $l->remainingLifetime() > 6.0;
    try { $o->lock('a', 5, 0.2); $ok['lock times out'] = false; } catch (DistLock\LockTimeoutException $e) { $ok['lock times out'] = true; }
    $ok['a waiter that gave up leaves nothing'] = raw_redis('EXISTS', "{$p}a{{$p}a}:waiters") === 0;
    // a waiter blocked in BLPOP, woken by the release
    $pid = fork_child(function () use ($uri, $p, $slow) {
        $w = new DistLock($uri, ['prefix' => $p, 'timeout' => 10]);
        $t = microtime(true);
        $lk = $w->lock('a', 5, 10 * $slow);
        return $lk->release() && microtime(true) - $t < 5 * $slow ? 0 : 1;
    });
    for ($i = 0; $i < 300 && $o->status('a')['waiters'] === 0; $i++) usleep(10000);
    $ok['waiter registered'] = $o->status('a')['waiters'] === 1;
    $ok['release'] = $l->release() && $l->release() === false;
    $ok['waiter woken'] = wait_child($pid) === 'exit=0';
    $ok['by name and token'] = ($t = $d->tryLock('b', 5)?->detach()) !== null && $o->refresh('b', $t, 5) && $o->release('b', $t);
    // what needs scripts: at once, a PermissionException naming the permission
    $ok['fair mode refused'] = $denied(fn () => (new DistLock($uri, ['prefix' => $p, 'timeout' => 10, 'fair' => true]))->tryLock('f'), '+@scripting');
    $ok['fencing refused'] = $denied(fn () => (new DistLock($uri, ['prefix' => $p, 'timeout' => 10, 'fencing' => true]))->lock('f', 5, 1), '+@scripting');
    $ok['shared refused'] = $denied(fn () => $d->tryLockShared('s'), '+@scripting');
    $ok['semaphore refused'] = $denied(fn () => $d->tryAcquirePermits('m', 3), '+@scripting');
    $ok['multi-lock refused'] = $denied(fn () => $d->tryLockAll(['x', 'y']), '+@scripting');
    $ok['nothing written by the refusals'] = raw_redis('EXISTS', "{$p}f", "{$p}s", "{$p}m", "{$p}x", "{$p}y") === 0;
    $ok['not a connection error'] = $d->stats()['connection_errors'] === $errs;
    foreach ($ok as $what => $v) if (!$v) echo "FAILED: $what\n";
    echo "scripting denied, native compare-and-delete: ", count($ok), " checks\n";

    // 8 processes on one name, each taking it $rounds times; the holder keeps it 20 ms.
    $n = 8;
    $rounds = is_valgrind() ? 2 : 4;
    raw_redis('DEL', "{$p}inside", "{$p}overlaps", "{$p}grants", "{$p}lat", "{$p}rel_at");
    $pids = [];
    for ($c = 0; $c < $n; $c++) {
        $pids[] = fork_child(function () use ($uri, $p, $rounds, $slow) {
            $w = new DistLock($uri, ['prefix' => $p, 'timeout' => 10, 'defer_release' => false]);
            for ($r = 0; $r < $rounds; $r++) {
                $t0 = microtime(true);
                $lk = $w->lock('c', 30, 60 * $slow);   // ttl 30 s: only a release or the block's cap (2 s) ends a block
                $got = microtime(true);
                if (raw_redis('INCR', "{$p}inside") !== 1) raw_redis('INCR', "{$p}overlaps");
                raw_redis('INCR', "{$p}grants");
                $rel = raw_redis('GET', "{$p}rel_at");
                if ($got - $t0 > 0.005 && $rel !== null) {
                    raw_redis('RPUSH', "{$p}lat", sprintf('%.6f', max(0.0, $got - (float)$rel)));   // waited: since the last release
                }
                usleep(20000);
                raw_redis('DECR', "{$p}inside");
                raw_redis('SET', "{$p}rel_at", sprintf('%.6f', microtime(true)));
                if (!$lk->release()) return 3;
            }
            return 0;
        });
    }
    $exits = array_count_values(array_map('wait_child', $pids));
    $lat = array_map('floatval', raw_redis('LRANGE', "{$p}lat", 0, -1));
    sort($lat);
    $capped = count(array_filter($lat, fn ($x) => $x >= 1.9));   // a lost wake-up waits out the 2 s block
    echo "8 processes: exits ", json_encode($exits), ", grants ", (int)raw_redis('GET', "{$p}grants"), " of ", $n * $rounds,
        ", overlaps ", (int)raw_redis('GET', "{$p}overlaps"), ", woken only by the block's cap: $capped\n";
    $pct = fn ($q) => $lat ? $lat[min(count($lat) - 1, (int)floor($q * count($lat)))] * 1000 : 0;
    printf("wake-up latency after a release (%d waits): p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
        count($lat), $pct(0.5), $pct(0.99), $lat ? end($lat) * 1000 : 0);
    $ok8 = $exits === ['exit=0' => $n] && (int)raw_redis('GET', "{$p}grants") === $n * $rounds
        && (int)raw_redis('GET', "{$p}overlaps") === 0 && $capped === 0 && count($lat) > 0;
    echo "verdict: ", $ok8 && !in_array(false, $ok, true) ? 'ok' : 'NOT OK', "\n";
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis('ACL', 'DELUSER', 'phpt_047_noscript');
raw_redis_del_prefix('phpt_047:');
?>
--EXPECTF--
string(2) "OK"
scripting denied, %s: %d checks
8 processes: %s
wake-up latency%s
verdict: ok