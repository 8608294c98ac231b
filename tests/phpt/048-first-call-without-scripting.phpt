--TEST--
The first call of a fresh instance where scripting is denied (issue 45.1): isLocked(), status(), owner(), tryLock(), lock(), release()/refresh() by token, restore() and its Lock's refresh() and release() (explicit and scoped) each work as a fresh process's first call, on a fresh and on a fresh persistent connection, with no script run; on a server without a native compare-and-delete the documented refusal (a refresh works where SET IFEQ does: Valkey 8.1); with scripting allowed, a fresh instance's release by token is DELEX/DELIFEQ once the process has asked the server
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$port = start_test_redis('048');              // its own server: commandstats are server-wide
$raw = RawConn::tcp('127.0.0.1', $port);
$native = server_native_del();                // 'delex', 'delifeq' or '' (the suite's server is the same build)
$setIfeq = server_has_set_ifeq();             // Redis >= 8.4, Valkey >= 8.1: a refresh without a script
$p = 'p048:';
$acl = ['on', '>pw048', 'resetkeys', "~{$p}*", 'resetchannels', '-@all',
    '+set', '+get', '+del', '+exists', '+pttl', '+pexpire', '+blpop', '+rpush', '+ltrim',
    '+zadd', '+zrem', '+zcard', '+zscore', '+multi', '+exec', '+watch', '+unwatch'];
if ($native !== '') $acl[] = "+$native";
echo "ACL: ", $raw->cmd('ACL', 'SETUSER', 'noscript', ...$acl), "\n";
$uri = "redis://noscript:pw048@127.0.0.1:$port";

function calls(RawConn $raw): array {
    $n = [];
    foreach (explode("\n", $raw->cmd('INFO', 'commandstats')) as $line) {
        // calls that ran: the scripting probe's NOSCRIPT is a failed call, its NOPERM a rejected one
        if (preg_match('/^cmdstat_([\w|]+):calls=(\d+).*failed_calls=(\d+)/', trim($line), $m)) $n[$m[1]] = (int)$m[2] - (int)$m[3];
    }
    return $n;
}
$ran = fn (array $a, array $b, string $cmd) => ($b[$cmd] ?? 0) - ($a[$cmd] ?? 0);
$scriptsRan = fn (array $a, array $b) => $ran($a, $b, 'evalsha') + $ran($a, $b, 'eval');
$held = fn (string $name) => $raw->cmd('SET', "{$p}$name", "tok-$name", 'PX', 20000);

// Each first call in a fresh child: this process never made a DistLock
// connection, so the child knows nothing of the server (no hint to inherit).
$firstCalls = [
    'isLocked' => fn (DistLock $d) => $d->isLocked('held') === true && $d->isLocked('free') === false,
    'status' => fn (DistLock $d) => $d->status('held')['kind'] === 'mutex' && $d->status('held')['ttl'] > 10,
    'owner' => fn (DistLock $d) => $d->owner('held') === 'tok-held',
    'tryLock' => fn (DistLock $d) => ($l = $d->tryLock('t', 5)) !== null && $l->release(),
    'lock' => fn (DistLock $d) => ($l = $d->lock('t', 5, 1)) !== null && $l->release(),
    'release by token' => fn (DistLock $d) => $d->release('r', 'tok-r') === true,
    'refresh by token' => fn (DistLock $d) => $d->refresh('r', 'tok-r', 30) === true,
    'restore, Lock::refresh, Lock::release' => fn (DistLock $d) => ($l = $d->restore('r', 'tok-r'))->refresh(30) && $l->release(),
    'restore, scoped release' => function (DistLock $d) { $l = $d->restore('r', 'tok-r'); unset($l); return true; },
];
// What each leaves of r (null: r not used)
$after = ['release by token' => 'gone', 'refresh by token' => 'renewed', 'restore, Lock::refresh, Lock::release' => 'gone',
    'restore, scoped release' => 'gone'];

foreach ([false, true] as $persistent) {
    $ok = [];
    foreach ($firstCalls as $what => $call) {
        $held('held');
        $held('r');
        $raw->cmd('DEL', "{$p}t", "{$p}result");
        $before = calls($raw);
        $pid = fork_child(function () use ($uri, $p, $persistent, $call, $what) {
            $r = RawConn::tcp('127.0.0.1', (int)parse_url($uri, PHP_URL_PORT));
            try {
                $d = new DistLock($uri, ['prefix' => $p, 'timeout' => 10, 'persistent' => $persistent, 'defer_release' => false]);
                $r->cmd('SET', "{$p}result", $call($d) ? 'ok' : 'false');
            } catch (Throwable $e) {
                $r->cmd('SET', "{$p}result", get_class($e) . ': ' . $e->getMessage());
            }
            return 0;
        });
        wait_child($pid);
        $result = $raw->cmd('GET', "{$p}result");
        $pttl = $raw->cmd('PTTL', "{$p}r");
        $state = $pttl === -2 ? 'gone' : ($pttl > 20000 ? 'renewed' : 'held');
        $scripts = $scriptsRan($before, calls($raw));
        if ($native !== '') {
            $good = $result === 'ok' && $state === ($after[$what] ?? 'held') && $scripts === 0;
        } else {
            // No native compare-and-delete: reads and restore() work, whatever would end or extend a lease is refused
            // (a scoped release cannot throw: the restored lease is left to its TTL);
            // where the server has SET ... IFEQ (Valkey 8.1) a refresh is native too
            $reads = in_array($what, ['isLocked', 'status', 'owner', 'restore, scoped release'], true);
            $refreshes = $setIfeq && in_array($what, ['refresh by token', 'restore, Lock::refresh, Lock::release'], true);
            if ($reads || ($refreshes && $what === 'refresh by token')) {
                $good = $result === 'ok' && $state === ($refreshes ? 'renewed' : 'held');
            } else {
                $good = str_starts_with((string)$result, 'DistLock\PermissionException: ') && $state === ($refreshes ? 'renewed' : 'held');
            }
        }
        $ok[$what] = $good;
        if (!$good) echo "FAILED ", $persistent ? 'persistent ' : '', "$what: $result, r $state, scripts run $scripts\n";
    }
    printf("%s connection, %d first calls: %s\n", $persistent ? 'persistent' : 'fresh', count($ok),
        in_array(false, $ok, true) ? 'NOT OK' : 'ok');
}

// Scripting allowed (the default user): a fresh instance's by-token release
// goes out natively once this process has asked the server (the hint of its
// HELLO), and in a child forked after that; in a process that never asked,
// its first call cannot know, and takes the script, adding no round trip.
$admin = new DistLock("redis://127.0.0.1:$port", ['prefix' => $p, 'defer_release' => false]);
$admin->isLocked('x');                        // this process's first HELLO to the server
$byToken = function (string $what, callable $release) use ($raw, $held, $p, $native, $ran, $scriptsRan): void {
    $held('r');
    $before = calls($raw);
    $released = $release();
    $after = calls($raw);
    $how = $native === '' ? $scriptsRan($before, $after) === 1
                          : $ran($before, $after, $native) === 1 && $scriptsRan($before, $after) === 0;
    printf("%s: released %s, key gone %s, %s: %s\n", $what, var_export($released, true),
        var_export($raw->cmd('EXISTS', "{$p}r") === 0, true), $native === '' ? 'by the script' : 'natively', $how ? 'yes' : 'NO');
};
$byToken('fresh instance, same process', fn () => (new DistLock("redis://127.0.0.1:$port", ['prefix' => $p]))->release('r', 'tok-r'));
$byToken('fresh persistent connection', fn () => (new DistLock("redis://127.0.0.1:$port", ['prefix' => $p, 'persistent' => true]))->release('r', 'tok-r'));
$byToken('forked child', function () use ($port, $p) {
    $pid = fork_child(fn () => (new DistLock("redis://127.0.0.1:$port", ['prefix' => $p]))->release('r', 'tok-r') ? 0 : 1);
    return wait_child($pid) === 'exit=0';
});
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('048');
?>
--EXPECTF--
ACL: OK
fresh connection, 9 first calls: ok
persistent connection, 9 first calls: ok
fresh instance, same process: released true, key gone true, %s: yes
fresh persistent connection: released true, key gone true, %s: yes
forked child: released true, key gone true, %s: yes
