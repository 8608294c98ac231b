--TEST--
Hand-over at the floor: the waiter's next step rides behind its BLPOP (default mode: the attempt, a plain SET NX PX and the ZREM that leaves the waiters for the mutex without fencing, the script otherwise; fair mode: the refresh to its TTL), sent before the release that wakes it, so a woken waiter sends nothing more before lock() returns; a grant that came more than a tenth of its TTL into the block is refreshed, so its validity counts from then
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
require __DIR__ . '/inc/proxy.inc';
$p = 'phpt_418:';
$port = start_test_redis('418');
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$slow = (is_valgrind() ? 20 : 1) * lc_load();

function blocked_clients(RawConn $raw): int
{
    preg_match('/blocked_clients:(\d+)/', $raw->cmd('INFO', 'clients'), $m);
    return (int)$m[1];
}

/**
 * The holder takes $name (TTL 30 s); a waiter in a child, through a proxy,
 * waits for it with $opts and $ttl; once the waiter is blocked (the server
 * counts it), the holder releases after $holdS more seconds. Returns the
 * requests the waiter sent before the release (what rode behind its BLPOP
 * was sent before any reply to it could come) and after it.
 */
function wait_for(RawConn $raw, string $uri, int $port, string $p, string $name, array $opts, float $ttl, float $holdS,
                  float $slow): array
{
    $holder = new DistLock($uri, ['prefix' => $p] + $opts);
    // warm the script cache, as a running server's is: a wait that gives up, a refresh
    $warm = $holder->lock("$name:warm", 5);
    $warm->refresh(5);
    try { (new DistLock($uri, ['prefix' => $p] + $opts))->lock("$name:warm", 10, 0.01); } catch (DistLock\LockTimeoutException $e) {}
    $warm->release();
    $l = $holder->lock($name, 30);
    $proxy = proxy_start($port);
    $out = tempnam(sys_get_temp_dir(), 'phpt_418_');
    $pid = fork_child(function () use ($proxy, $p, $name, $opts, $ttl, $out) {
        $d = new DistLock("redis://127.0.0.1:{$proxy['port']}", ['prefix' => $p] + $opts);
        $w = $d->lock($name, $ttl, 60);
        file_put_contents($out, json_encode(['fence' => $w->fencingToken()]));
        $w->detach();      // no release on the way out: the requests end with lock()
        return 0;
    });
    $blocked = lc_wait_until(fn() => blocked_clients($raw) === 1, 10 * $slow) !== null;
    usleep((int)($holdS * 1e6));
    $beforeRelease = proxy_commands($proxy);
    $l->release();
    $exit = wait_child($pid);
    $seen = json_decode((string)file_get_contents($out), true);
    @unlink($out);
    $cmds = proxy_commands($proxy);
    proxy_stop($proxy);
    $holder->forceRelease($name);
    // An EVALSHA answered NOSCRIPT is sent again as EVAL (one script call): another test's
    // SCRIPT FLUSH on the shared server (140, 161, 213 under run-tests -j2) can empty the cache.
    $calls = fn(array $c) => preg_replace('/\bEVALSHA EVAL\b/', 'EVALSHA', implode(' ', $c));
    return [$exit . ($blocked ? '' : ' (never seen blocked)'),
        $calls($beforeRelease) . ' | ' . $calls(array_slice($cmds, count($beforeRelease))), $seen];
}

// 1. default mode: woken by the release, the attempt behind the BLPOP (SET NX PX, ZREM) grants it
// (TTL 120 s: the time blocked stays under a tenth of it: no refresh)
[$exit, $cmds, $seen] = wait_for($raw, $uri, $port, $p, 'd', [], 120, 0.1, $slow);
echo "default: $exit, requests (before the release | after): $cmds\n";

// 1b. default mode with fencing: the attempt behind the BLPOP is the script (its INCR)
[$exit, $cmds, $seen] = wait_for($raw, $uri, $port, $p, 'df', ['fencing' => true], 120, 0.1, $slow);
echo "default fenced: $exit, requests (before the release | after): $cmds; fenced: ", var_export($seen['fence'] > 0, true), "\n";

// 2. fair mode, TTL longer than the hand-over's claim (3 s): the refresh rides behind the BLPOP
[$exit, $cmds, $seen] = wait_for($raw, $uri, $port, $p, 'f', ['fair' => true, 'fencing' => true], 120, 0.1, $slow);
echo "fair: $exit, requests (before the release | after): $cmds; fenced: ", var_export($seen['fence'] > 0, true), "\n";

// 3. a short TTL (1 s) granted 0.5 s into the block: counted from the block's start the
//    client would believe 0.5 s left; one refresh (the last EVALSHA) counts it from now
// (0.5 s, within the first 2 s block, even under valgrind: the block started before we saw it)
[$exit, $cmds, $seen] = wait_for($raw, $uri, $port, $p, 's', [], 1, 0.5, $slow);
// (the refresh is the refresh script, or Valkey's native compare-and-refresh, SET ... IFEQ)
echo "short ttl: $exit, requests (before the release | after): ",
    preg_replace('/\| (EVALSHA|SET)$/', '| refresh', $cmds), "\n";
echo "left behind: ", json_encode(array_values(array_filter($raw->cmd('KEYS', $p . '*'), fn($k) => !str_contains($k, 'distlock:fence')))), "\n";
stop_test_redis_all('418');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('418');
?>
--EXPECT--
default: exit=0, requests (before the release | after): HELLO SET EVALSHA BLPOP SET ZREM | 
default fenced: exit=0, requests (before the release | after): HELLO EVALSHA BLPOP EVALSHA | ; fenced: true
fair: exit=0, requests (before the release | after): HELLO EVALSHA BLPOP EVALSHA | ; fenced: true
short ttl: exit=0, requests (before the release | after): HELLO SET EVALSHA BLPOP SET ZREM | refresh
left behind: []
