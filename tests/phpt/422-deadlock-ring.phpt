--TEST--
Deadlock detection (issue 47): a ring of three processes (a -> b -> c -> a) has exactly one victim, the last to register, answered from its registration's reply (no BLPOP) with the whole ring named; the other two are granted in turn once it lets go; a semaphore wait that any one holder can end (an OR-wait) is not reported, and is granted when that holder releases
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
require __DIR__ . '/inc/proxy.inc';
$p = 'phpt_422:';
$port = start_test_redis('422');
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$slow = (is_valgrind() ? 20 : 1) * lc_load();
$dir = sys_get_temp_dir() . '/phpt_422_' . getmypid();
@mkdir($dir);

function blocked_clients(RawConn $raw): int
{
    preg_match('/blocked_clients:(\d+)/', $raw->cmd('INFO', 'clients'), $m);
    return (int)$m[1];
}

/**
 * A child that takes $first, says so ($dir/<tag>.held), waits for $dir/<tag>.go, then
 * waits (10 s) for $second; it writes how that ended to $dir/<tag>.out and releases.
 */
function member(string $uri, string $p, string $dir, string $tag, string $first, string $second): int
{
    return fork_child(function () use ($uri, $p, $dir, $tag, $first, $second) {
        $d = new DistLock($uri, ['prefix' => $p]);
        $mine = $d->lock($first, 30, 10);
        touch("$dir/$tag.held");
        while (!file_exists("$dir/$tag.go")) usleep(2000);
        try {
            $l = $d->lock($second, 30, 10);
            $r = 'granted';
            $l->release();
        } catch (DistLock\LockTimeoutException $e) {
            $r = get_class($e);
        }
        $mine->release();
        file_put_contents("$dir/$tag.out", $r);
        return 0;
    });
}

// Warm the script cache: a 2-cycle once (acquire, check, cancel, release).
$w = new DistLock($uri, ['prefix' => $p]);
$held = $w->lock('warm:b', 5);
$pid = member($uri, $p, $dir, 'warm', 'warm:a', 'warm:b');
touch("$dir/warm.go");
lc_wait_until(fn() => blocked_clients($raw) === 1, 10 * $slow);
try { $w->lock('warm:a', 5, 5); } catch (DistLock\DeadlockException $e) {}
$held->release();
wait_child($pid);
unset($w, $held);

// The ring: A holds a and waits for b, B holds b and waits for c, this process holds c and
// (through a proxy, last) waits for a.
$proxy = proxy_start($port);
$d = new DistLock("redis://127.0.0.1:{$proxy['port']}", ['prefix' => $p]);
$c = $d->lock('c', 30);
$before = $d->stats()['deadlocks'];
$A = member($uri, $p, $dir, 'A', 'a', 'b');
$B = member($uri, $p, $dir, 'B', 'b', 'c');
lc_wait_until(fn() => file_exists("$dir/A.held") && file_exists("$dir/B.held"), 10 * $slow);
touch("$dir/A.go");
$ok = lc_wait_until(fn() => blocked_clients($raw) === 1, 10 * $slow) !== null;
touch("$dir/B.go");
$ok = $ok && lc_wait_until(fn() => blocked_clients($raw) === 2, 10 * $slow) !== null;
echo "A and B blocked: ", var_export($ok, true), "\n";
try {
    $d->lock('a', 30, 10);
    echo "granted (wrong)\n";
} catch (DistLock\DeadlockException $e) {
    $host = gethostname();
    // (a ZTS build names a PHP thread: "this thread (pid N thread T)", "pid N thread T")
    $msg = preg_replace(['/this thread \(pid (\d+) thread \d+\)/', '/pid (\d+) thread \d+/'], ['this process (pid $1)', 'pid $1'], $e->getMessage());
    echo strtr($msg, [(string)getmypid() => 'SELF', (string)$A => 'A', (string)$B => 'B', " on $host" => '']), "\n";
}
echo "requests: ", implode(' ', proxy_commands($proxy)), "\n";
// A and B published their holds (blocked, not victims); no key's name shows a token (holder
// keys are named by the token's SHA1: key names are seen by whoever may list keys)
$tokens = [$raw->cmd('GET', "{$p}a"), $raw->cmd('GET', "{$p}b")];
$keys = $raw->cmd('KEYS', "{$p}*");
echo "holder keys of a and b: ", count(array_filter($keys, fn($k) => str_contains($k, ':holder:') &&
    (str_starts_with($k, "{$p}a{") || str_starts_with($k, "{$p}b{")))), "; a token in a key's name: ",
    var_export((bool)array_filter($keys, fn($k) => str_contains($k, $tokens[0]) || str_contains($k, $tokens[1])), true), "\n";
echo "deadlocks here: ", $d->stats()['deadlocks'] - $before, "\n";
$c->release();
echo "B: ", wait_child($B), " ", file_get_contents("$dir/B.out"), "\n";
echo "A: ", wait_child($A), " ", file_get_contents("$dir/A.out"), "\n";
proxy_stop($proxy);

// An OR-wait: V holds the mutex m and wants 1 of the 2 permits of pool; H1 holds a permit and
// waits for nothing, H2 holds the other and waits for m. Any one holder's release frees V, and
// H1 can release: no deadlock, though H2 and V wait for each other. V waits (a BLPOP), its
// check finds no knot and publishes its wait record, and it is granted when H1 releases.
$h = new DistLock($uri, ['prefix' => $p]);
$h1 = $h->acquirePermits('pool', 2, 1, 30);
$h2pid = fork_child(function () use ($uri, $p, $dir) {
    $d = new DistLock($uri, ['prefix' => $p]);
    $permit = $d->acquirePermits('pool', 2, 1, 30);
    touch("$dir/H2.held");
    while (!file_exists("$dir/H2.go")) usleep(2000);
    try {
        $d->lock('m', 30, 10)->release();
        $r = 'granted';
    } catch (DistLock\LockTimeoutException $e) {
        $r = get_class($e);
    }
    $permit->release();
    file_put_contents("$dir/H2.out", $r);
    return 0;
});
lc_wait_until(fn() => file_exists("$dir/H2.held"), 10 * $slow);
$proxy = proxy_start($port);
$vpid = fork_child(function () use ($proxy, $p, $dir) {
    $d = new DistLock("redis://127.0.0.1:{$proxy['port']}", ['prefix' => $p]);
    $m = $d->lock('m', 30);
    touch("$dir/H2.go");
    try {
        $d->acquirePermits('pool', 2, 1, 30, 10)->release();
        $r = 'granted';
    } catch (DistLock\LockTimeoutException $e) {
        $r = get_class($e);
    }
    $m->release();
    file_put_contents("$dir/V.out", $r);
    return 0;
});
echo "V and H2 blocked: ", var_export(lc_wait_until(fn() => blocked_clients($raw) === 2, 10 * $slow) !== null, true), "\n";
// V's check rides on its first re-registration (its first attempt is the semaphore's script)
echo "V checked: ", var_export(lc_wait_until(fn() => count($raw->cmd('KEYS', "{$p}pool{{$p}pool}:waitfor:*")) === 1,
    10 * $slow) !== null, true), "\n";
$h1->release();
echo "V: ", wait_child($vpid), " ", file_get_contents("$dir/V.out"), "\n";
echo "H2: ", wait_child($h2pid), " ", file_get_contents("$dir/H2.out"), "\n";
echo "V blocked: ", var_export(in_array('BLPOP', proxy_commands($proxy), true), true), "\n";
proxy_stop($proxy);
array_map('unlink', glob("$dir/*"));
rmdir($dir);
stop_test_redis_all('422');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('422');
?>
--EXPECT--
A and B blocked: true
Deadlock detected: this process (pid SELF) waits for "a", held by pid A, which waits for "b", held by pid B, which waits for "c", held by this process (pid SELF)
requests: HELLO EVALSHA SET SET EVALSHA EVALSHA EVALSHA
holder keys of a and b: 2; a token in a key's name: false
deadlocks here: 1
B: exit=0 granted
A: exit=0 granted
V and H2 blocked: true
V checked: true
V: exit=0 granted
H2: exit=0 granted
V blocked: true
