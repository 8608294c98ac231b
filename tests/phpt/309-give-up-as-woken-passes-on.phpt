--TEST--
Waiting: a waiter that gives up at its deadline just as the release's wake-up (or fair hand-over) reaches it passes it on to the next waiter at once
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
require __DIR__ . '/inc/proxy.inc';
$port = start_test_redis('309', ['--hz', '10']);
$uri = "redis://127.0.0.1:$port";
$p = 'phpt_309:';
$raw = RawConn::tcp('127.0.0.1', $port);
$slow = lc_slow();
$proxy = proxy_start($port);
$at = sys_get_temp_dir() . '/phpt_309.acquired_at.' . getmypid();

function blocked_clients(RawConn $raw): int {
    preg_match('/blocked_clients:(\d+)/', $raw->cmd('INFO', 'clients'), $m);
    return (int)$m[1];
}

/* One try: A (through the proxy) and B block on $name; the path to A stalls as
 * the release wakes A; returns [both blocked, A's exit, B's exit, B's lateness
 * after A's deadline in s]. */
function attempt(bool $fair, string $name): array {
    global $uri, $p, $raw, $slow, $proxy, $at;
    $holder = new DistLock($uri, ['prefix' => $p, 'fair' => $fair]);
    $l = $holder->lock($name, 30);
    // A waits through the proxy; it blocks first, so the release wakes A first.
    // Its wait stays under one block (2 s), so that its deadline, not a block's
    // own end, is what it gives up at (a block whose reply is 1 s overdue before
    // the deadline is a stalled server: a ConnectionException).
    $aWait = min(1.0 * $slow, 1.8);
    $aStart = lc_now();
    $a = fork_child(function () use ($proxy, $p, $name, $fair, $aWait) {
        $d = new DistLock("redis://127.0.0.1:{$proxy['port']}", ['prefix' => $p, 'fair' => $fair]);
        try {
            $d->lock($name, 10, $aWait);
            return 1;
        } catch (DistLock\LockTimeoutException $e) {
            return 0;
        }
    });
    $okA = lc_wait_until(fn() => blocked_clients($raw) === 1, 5 * $slow);
    // B waits long, directly: blocked behind A.
    $b = fork_child(function () use ($uri, $p, $name, $fair, $at) {
        $d = new DistLock($uri, ['prefix' => $p, 'fair' => $fair]);
        $lk = $d->lock($name, 10, 8);
        file_put_contents($at, (string)lc_now());
        $lk->release();
        return 0;
    });
    $okB = lc_wait_until(fn() => blocked_clients($raw) === 2, 5 * $slow);
    // The path to A stalls: the release's wake-up (default mode) or hand-over
    // (fair mode) reaches A's connection on the server, and never A.
    proxy_mode($proxy, 'hold');
    $releasedAt = lc_now();
    $l->release();
    $exitA = wait_child($a);
    $exitB = wait_child($b);
    // (Under valgrind the release may come after A's deadline: then from the release.)
    $aDeadline = max($aStart + $aWait, $releasedAt);
    $late = (float)file_get_contents($at) - $aDeadline;
    proxy_mode($proxy, 'release');
    @unlink($at);
    return [$okA !== null && $okB !== null, $exitA, $exitB, $late];
}

$retried = false;
foreach ([false, true] as $fair) {
    // Passed on by A's cancel at its deadline. Without it, B would wake only
    // when its own BLPOP ends (2 s after it blocked) or by A's read timeout.
    // A's cancel passes it on at once when it is done within its grace (5 ms
    // after the deadline); on a loaded machine it may not be, and is written
    // unawaited: B then waits out its block, as documented. Up to 3 tries: a
    // pass-on that does not exist fails all three.
    for ($try = 1; $try <= 3; $try++) {
        [$blocked, $exitA, $exitB, $late] = attempt($fair, ($fair ? 'f' : 'd') . $try);
        if ($late < 0.5 * $slow) break;
        $retried = true;
    }
    echo $fair ? 'fair' : 'default', ": both blocked: ", var_export($blocked, true),
        "; A gave up: ", $exitA, "; B got it: ", $exitB;
    echo "; B got it within 0.5 s of A's deadline: ", var_export($late < 0.5 * $slow, true), "\n";
    if ($late >= 0.5 * $slow) printf("  B was %.3f s after A's deadline (3 tries)\n", $late);
}
// A cancel written late (a retried try) leaves a wake token until its TTL (2 s).
if ($retried) lc_wait_until(fn() => $raw->cmd('KEYS', $p . '*') === [], 3 * $slow);
usleep(100000);
echo "keys left: ", json_encode($raw->cmd('KEYS', $p . '*')), "\n";
proxy_stop($proxy);
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('309');
?>
--EXPECT--
default: both blocked: true; A gave up: exit=0; B got it: exit=0; B got it within 0.5 s of A's deadline: true
fair: both blocked: true; A gave up: exit=0; B got it: exit=0; B got it within 0.5 s of A's deadline: true
keys left: []
