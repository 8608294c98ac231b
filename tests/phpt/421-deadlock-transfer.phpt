--TEST--
Deadlock detection (issue 47): two transfers in opposite order (7 -> 9 beside 9 -> 7) fail one side at its registration, from the registration's own reply (no BLPOP, no time waited), with the cycle named, and the other side is granted once the victim lets go; a wait on a lease of another instance of the same process is waited as before (only its expiry can end it); 'deadlock_detection' => false waits as before; a restored lease (another process's grant) is not published, a detached one of this process is; a waiter that holds nothing sends nothing more
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
require __DIR__ . '/inc/proxy.inc';
$p = 'phpt_421:';
$port = start_test_redis('421');
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$slow = (is_valgrind() ? 20 : 1) * lc_load();

function blocked_clients(RawConn $raw): int
{
    preg_match('/blocked_clients:(\d+)/', $raw->cmd('INFO', 'clients'), $m);
    return (int)$m[1];
}

/* The message with this process's and the child's pid, and the host, made stable (a ZTS
 * build names a PHP thread: "this thread (pid N thread T)", "pid N thread T on HOST"). */
function shown(string $msg, int $child): string
{
    $host = gethostname();
    $msg = preg_replace(['/this thread \(pid (\d+) thread \d+\)/', '/pid (\d+) thread \d+/'], ['this process (pid $1)', 'pid $1'], $msg);
    return strtr($msg, [(string)getmypid() => 'SELF', (string)$child => 'CHILD', " on $host" => ' on HOST']);
}

/**
 * A child takes $p."account:$from", then waits (10 s) for $p."account:$to",
 * which this process holds: it reports how its wait ended and releases.
 */
function transfer_child(string $uri, string $p, int $from, int $to, string $out): int
{
    return fork_child(function () use ($uri, $p, $from, $to, $out) {
        $d = new DistLock($uri, ['prefix' => $p]);
        $mine = $d->lock("account:$from", 30, 10);
        $t = hrtime(true);
        try {
            $l = $d->lock("account:$to", 30, 10);
            $r = 'granted';
            $l->release();
        } catch (DistLock\LockTimeoutException $e) {
            $r = get_class($e);
        }
        $mine->release();
        file_put_contents($out, $r);
        return 0;
    });
}

// Warm the script cache (as a running server's is): every script of the scenario once.
$pre = new DistLock($uri, ['prefix' => $p]);
$w1 = $pre->lock('account:1', 5);
$pid = transfer_child($uri, $p, 100, 1, $out = tempnam(sys_get_temp_dir(), 'phpt_421_'));
lc_wait_until(fn() => blocked_clients($raw) === 1, 10 * $slow);
try { $pre->lock('account:100', 5, 5); } catch (DistLock\DeadlockException $e) {}
$w1->release();
wait_child($pid);
unset($pre);
$raw->cmd('CONFIG', 'RESETSTAT');

// 1. The transfer: this process holds account:9 and, through a proxy, waits for account:7;
//    the child holds account:7 and waits for account:9.
$proxy = proxy_start($port);
$d = new DistLock("redis://127.0.0.1:{$proxy['port']}", ['prefix' => $p]);
$nine = $d->lock('account:9', 30);
$child = transfer_child($uri, $p, 7, 9, $out);
echo "child blocked: ", var_export(lc_wait_until(fn() => blocked_clients($raw) === 1, 10 * $slow) !== null, true), "\n";
$before = $d->stats();
try {
    $d->lock('account:7', 30, 10);
    echo "granted (wrong)\n";
} catch (DistLock\DeadlockException $e) {
    echo get_class($e), ", a LockTimeoutException: ", var_export($e instanceof DistLock\LockTimeoutException, true), "\n";
    echo shown($e->getMessage(), $child), "\n";
}
$cmds = proxy_commands($proxy);
echo "requests: ", implode(' ', $cmds), "\n";
$after = $d->stats();
echo "deadlocks +", $after['deadlocks'] - $before['deadlocks'], ", timeouts +", $after['timeouts'] - $before['timeouts'], "\n";
echo "child still blocked: ", blocked_clients($raw), "\n";
$nine->release();
echo "child: ", wait_child($child), " ", file_get_contents($out), "\n";
echo "the victim left the waiters: ", $raw->cmd('EXISTS', "{$p}account:7{{$p}account:7}:waiters"), "\n";
proxy_stop($proxy);

// 2. Two instances of one process: the second waits for what the first holds. Only the
//    lease's expiry can end that wait, as it always could: not reported, waited as before.
$a = new DistLock($uri, ['prefix' => $p]);
$b = new DistLock($uri, ['prefix' => $p]);
$x = $a->lock('x', 30);
$t = hrtime(true);
try {
    $b->lock('x', 30, 0.3);
    echo "granted (wrong)\n";
} catch (DistLock\LockTimeoutException $e) {
    printf("own lease, other instance: %s after the wait: %s\n", get_class($e), var_export((hrtime(true) - $t) / 1e9 >= 0.29, true));
}
$x->release();

// 3. 'deadlock_detection' => false: the same transfer waits as before (a BLPOP), and times out
$proxy = proxy_start($port);
$d = new DistLock("redis://127.0.0.1:{$proxy['port']}", ['prefix' => $p, 'deadlock_detection' => false]);
$nine = $d->lock('account:9', 30);
$child = transfer_child($uri, $p, 7, 9, $out);
lc_wait_until(fn() => blocked_clients($raw) === 1, 10 * $slow);
try {
    $d->lock('account:7', 30, 0.5);
} catch (DistLock\LockTimeoutException $e) {
    echo "off: ", get_class($e), "; requests: ", implode(' ', proxy_commands($proxy)), "\n";
}
$nine->release();
echo "child: ", wait_child($child), " ", file_get_contents($out), "\n";
proxy_stop($proxy);

// 4. A restored lease is another thread's grant: not published, the cycle through it not seen
//    (granted to another process, which detached it and left: its token handed to us)
$tok = bin2hex(random_bytes(16));
wait_child(fork_child(function () use ($uri, $p, $tok) {
    (new DistLock($uri, ['prefix' => $p]))->lock('account:9', 30, 0, $tok)->detach();
    return 0;
}));
$r = new DistLock($uri, ['prefix' => $p]);
$nine = $r->restore('account:9', $tok);
$child = transfer_child($uri, $p, 7, 9, $out);
lc_wait_until(fn() => blocked_clients($raw) === 1, 10 * $slow);
try {
    $r->lock('account:7', 30, 0.5);
} catch (DistLock\LockTimeoutException $e) {
    echo "restored: ", get_class($e), "\n";
}
$nine->release();
echo "child: ", wait_child($child), " ", file_get_contents($out), "\n";

// 5. A lease this process acquired and detached (as the framework stores do, releasing it by
//    token later) is still its own: the cycle through it is reported
$d = new DistLock($uri, ['prefix' => $p]);
$tok = bin2hex(random_bytes(16));
$d->lock('account:9', 30, 0, $tok)->detach();
$child = transfer_child($uri, $p, 7, 9, $out);
lc_wait_until(fn() => blocked_clients($raw) === 1, 10 * $slow);
try {
    $d->lock('account:7', 30, 10);
    echo "granted (wrong)\n";
} catch (DistLock\DeadlockException $e) {
    echo "detached: ", get_class($e), "\n";
}
var_dump($d->release('account:9', $tok));
echo "child: ", wait_child($child), " ", file_get_contents($out), "\n";
@unlink($out);
echo "left behind: ", json_encode(array_values(array_filter($raw->cmd('KEYS', $p . '*'),
    fn($k) => !str_contains($k, ':waitfor:') && !str_contains($k, ':holder:')))), "\n";
$noTtl = array_filter($raw->cmd('KEYS', $p . '*'), fn($k) => $raw->cmd('PTTL', $k) < 0);
echo "without a TTL: ", json_encode(array_values($noTtl)), "\n";
stop_test_redis_all('421');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('421');
?>
--EXPECT--
child blocked: true
DistLock\DeadlockException, a LockTimeoutException: true
Deadlock detected: this process (pid SELF) waits for "account:7", held by pid CHILD on HOST, which waits for "account:9", held by this process (pid SELF)
requests: HELLO EVALSHA SET SET EVALSHA EVALSHA EVALSHA
deadlocks +1, timeouts +0
child still blocked: 1
child: exit=0 granted
the victim left the waiters: 0
own lease, other instance: DistLock\LockTimeoutException after the wait: true
off: DistLock\LockTimeoutException; requests: HELLO EVALSHA SET SET EVALSHA BLPOP EVALSHA
child: exit=0 granted
restored: DistLock\LockTimeoutException
child: exit=0 granted
detached: DistLock\DeadlockException
bool(true)
child: exit=0 granted
left behind: []
without a TTL: []
